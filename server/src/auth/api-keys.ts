/**
 * Partner API keys: `mbt_` + 32 random bytes (base64url), shown once at creation, stored as sha256.
 * Each key belongs to a user (and their organization), lists the browser origins allowed to use it
 * and has its own per-minute rate limit.
 */
import { createHash, randomBytes } from 'node:crypto';
import type { Needs } from '../context.ts';
import { now } from '../db/index.ts';
import type { ApiKeyKind, ApiKeysTable } from '../db/schema.ts';

export const API_KEY_PREFIX = 'mbt_';
/** Characters of the key kept in clear (in `prefix`) so an owner can tell keys apart. */
const SHOWN_LENGTH = API_KEY_PREFIX.length + 8;

export const sha256 = (value: string) => createHash('sha256').update(value).digest('hex');

export function generateApiKey(): { key: string; prefix: string; hash: string } {
  const key = API_KEY_PREFIX + randomBytes(32).toString('base64url');
  return { key, prefix: key.slice(0, SHOWN_LENGTH), hash: sha256(key) };
}

export const looksLikeApiKey = (token: string) => token.startsWith(API_KEY_PREFIX);

export function parseOrigins(json: string): string[] {
  try {
    const v: unknown = JSON.parse(json);
    return Array.isArray(v) ? v.filter((o): o is string => typeof o === 'string') : [];
  } catch {
    return [];
  }
}

/** The public view of a key row (never the hash). */
export function apiKeyView(
  row: Omit<ApiKeysTable, 'id' | 'allowed_origins' | 'kind'> & {
    id: number;
    allowed_origins: string;
    kind: ApiKeyKind;
  },
) {
  return {
    id: row.id,
    name: row.name,
    prefix: row.prefix,
    organization: row.organization,
    allowed_origins: parseOrigins(row.allowed_origins),
    rate_limit_per_minute: row.rate_limit_per_minute,
    kind: row.kind,
    created_at: row.created_at,
    revoked_at: row.revoked_at,
    last_used_at: row.last_used_at,
  };
}

/**
 * The union of all active browser keys' origins, for answering CORS preflights (which carry no key).
 * Cached for a few seconds per server and dropped whenever a key is created or revoked here.
 */
const originCache = new WeakMap<object, { at: number; origins: Promise<Set<string>> }>();
const ORIGIN_CACHE_MS = 5_000;

export function activeKeyOrigins(ctx: Needs<'db'>): Promise<Set<string>> {
  const cached = originCache.get(ctx);
  if (cached && Date.now() - cached.at < ORIGIN_CACHE_MS) return cached.origins;
  const origins = ctx.db
    .selectFrom('api_keys')
    .select('allowed_origins')
    .where('revoked_at', 'is', null)
    .where('kind', '=', 'browser')
    .execute()
    .then((rows) => new Set(rows.flatMap((r) => parseOrigins(r.allowed_origins))));
  originCache.set(ctx, { at: Date.now(), origins });
  origins.catch(() => originCache.delete(ctx));
  return origins;
}

export function forgetKeyOrigins(ctx: Needs<'db'>): void {
  originCache.delete(ctx);
}

/** Revokes every live key of a user (a password reset: whoever took the account must not keep its keys). */
export async function revokeApiKeys(ctx: Needs<'db'>, userId: number): Promise<void> {
  await ctx.db
    .updateTable('api_keys')
    .set({ revoked_at: now() })
    .where('user_id', '=', userId)
    .where('revoked_at', 'is', null)
    .execute();
  forgetKeyOrigins(ctx);
}
