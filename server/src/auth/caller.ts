/**
 * Who is calling: `requireUser` (bearer access token; the /api-node routes) and `requireCaller`
 * (bearer access token or partner API key; the /api-py plugin endpoints). Both set c.get('caller').
 */
import type { Context, MiddlewareHandler } from 'hono';
import type { Needs } from '../context.ts';
import { now } from '../db/index.ts';
import type { ApiKeyKind } from '../db/schema.ts';
import { securityState } from '../security/state.ts';
import { looksLikeApiKey, parseOrigins, sha256 } from './api-keys.ts';
import { verifyAccessToken } from './tokens.ts';

export interface Caller {
  userId: number;
  username: string;
  organization: string;
  /** set when the call was made with a partner API key */
  apiKeyId?: number;
  /** refresh-token family of the access token's sign-in (not set for API keys) */
  family?: string;
}

declare module 'hono' {
  interface ContextVariableMap {
    caller: Caller;
  }
}

export type CallerEnv = { Variables: { caller: Caller } };

/** Error bodies: {detail} on /api-py (the original plugin API), {error} elsewhere. */
export function errorResponse(c: Context, status: 401 | 403 | 404 | 429, message: string): Response {
  return c.req.path.startsWith('/api-py') ? c.json({ detail: message }, status) : c.json({ error: message }, status);
}

function bearer(c: Context): string | null {
  const header = c.req.header('authorization') ?? '';
  const m = /^Bearer\s+(\S+)\s*$/i.exec(header);
  return m ? m[1] : null;
}

/**
 * The user of a valid access token that was issued after their last password change and whose sign-in
 * (refresh-token family) is still live (not logged out, not revoked), or null.
 */
export async function authenticateAccessToken(ctx: Needs<'db' | 'jwtKey'>, token: string): Promise<Caller | null> {
  const claims = await verifyAccessToken(ctx, token);
  if (!claims?.family) return null;
  const family = claims.family;
  const user = await ctx.db
    .selectFrom('users')
    .select(['id', 'username', 'organization', 'token_version'])
    .where('id', '=', claims.userId)
    .where((eb) =>
      eb.exists(
        eb
          .selectFrom('refresh_tokens')
          .select('refresh_tokens.id')
          .whereRef('refresh_tokens.user_id', '=', 'users.id')
          .where('refresh_tokens.family', '=', family)
          .where('refresh_tokens.revoked_at', 'is', null)
          .where('refresh_tokens.expires_at', '>', now()),
      ),
    )
    .executeTakeFirst();
  if (!user || user.token_version !== claims.version) return null;
  return { userId: user.id, username: user.username, organization: user.organization, family: claims.family };
}

/** Bearer access token required (API keys are refused: they are for the plugin endpoints only). */
export function requireUser(ctx: Needs<'db' | 'jwtKey'>): MiddlewareHandler<CallerEnv> {
  return async (c, next) => {
    const token = bearer(c);
    if (!token) return errorResponse(c, 401, 'Authentication required');
    const caller = looksLikeApiKey(token) ? null : await authenticateAccessToken(ctx, token);
    if (!caller) return errorResponse(c, 401, 'Invalid or expired token');
    c.set('caller', caller);
    await next();
  };
}

/**
 * Whether a key of `kind` may be used by a request carrying `origin` (its Origin header, if any). A
 * browser key needs an Origin from its list ('*' allows any origin, never none); a server key is for
 * server-to-server calls and refuses any Origin. The server's own origin is never worked out from the
 * Host header, which the caller controls.
 */
export function keyOriginRefusal(kind: ApiKeyKind, allowed: string[], origin: string | undefined): string | null {
  if (kind === 'server') {
    return origin ? 'This API key is for server-to-server use and is refused from a web page (Origin sent)' : null;
  }
  if (!origin) return 'This API key is for web pages: requests without an allowed Origin are refused';
  return allowed.includes(origin) || allowed.includes('*') ? null : `Origin ${origin} is not allowed for this API key`;
}

/**
 * Bearer access token or partner API key. For a key: unknown or revoked -> 401, an Origin its kind
 * does not allow -> 403 (keyOriginRefusal), over the key's per-minute limit -> 429.
 */
export function requireCaller(ctx: Needs<'config' | 'db' | 'dialect' | 'jwtKey'>): MiddlewareHandler<CallerEnv> {
  return async (c, next) => {
    const token = bearer(c);
    if (!token) return errorResponse(c, 401, 'Not authenticated: send Authorization: Bearer <token or API key>');
    if (!looksLikeApiKey(token)) {
      const caller = await authenticateAccessToken(ctx, token);
      if (!caller) return errorResponse(c, 401, 'Invalid or expired token');
      c.set('caller', caller);
      return next();
    }
    const key = await ctx.db
      .selectFrom('api_keys')
      .innerJoin('users', 'users.id', 'api_keys.user_id')
      .select([
        'api_keys.id',
        'api_keys.user_id',
        'api_keys.organization',
        'api_keys.allowed_origins',
        'api_keys.rate_limit_per_minute',
        'api_keys.kind',
        'api_keys.revoked_at',
        'api_keys.last_used_at',
        'users.username',
      ])
      .where('api_keys.key_hash', '=', sha256(token))
      .executeTakeFirst();
    if (!key || key.revoked_at !== null) return errorResponse(c, 401, 'Invalid or revoked API key');
    const refusal = keyOriginRefusal(key.kind, parseOrigins(key.allowed_origins), c.req.header('origin'));
    if (refusal) return errorResponse(c, 403, refusal);
    const decision = await securityState(ctx).limits.hit(`api-key:${key.id}`, key.rate_limit_per_minute);
    if (!decision.ok) {
      c.header('Retry-After', String(decision.retryAfter));
      return errorResponse(c, 429, `Rate limit of ${key.rate_limit_per_minute} requests per minute exceeded`);
    }
    const t = now();
    // last_used_at is informative: written at most once a minute per key.
    if (!key.last_used_at || Date.parse(t) - Date.parse(key.last_used_at) > 60_000) {
      await ctx.db.updateTable('api_keys').set({ last_used_at: t }).where('id', '=', key.id).execute();
    }
    c.set('caller', {
      userId: key.user_id,
      username: key.username,
      organization: key.organization,
      apiKeyId: key.id,
    });
    return next();
  };
}

/**
 * An access token or a server API key (a browser key's call, made from a partner's page with an
 * Origin, is refused with 403): for the caller's own data, stored runs and batch jobs, which a
 * partner page's visitors must not reach.
 */
export function requireUserOrServerKey(
  ctx: Needs<'config' | 'db' | 'dialect' | 'jwtKey'>,
): MiddlewareHandler<CallerEnv> {
  const caller = requireCaller(ctx);
  return (c, next) =>
    caller(c, async () => {
      if (c.get('caller').apiKeyId !== undefined && c.req.header('origin')) {
        return void (c.res = errorResponse(c, 403, 'A browser API key cannot be used here: use a server key'));
      }
      await next();
    });
}

/** Records an operation in the caller's history (API key calls land under the key owner). */
export async function logAction(
  ctx: Needs<'db'>,
  caller: Caller,
  operationType: string,
  runId: string | null = null,
): Promise<void> {
  await ctx.db
    .insertInto('actions')
    .values({
      user_id: caller.userId,
      operation_type: operationType,
      created_at: now(),
      api_key_id: caller.apiKeyId ?? null,
      run_id: runId,
    })
    .execute();
}
