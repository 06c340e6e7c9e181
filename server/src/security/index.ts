/**
 * HTTP-level protections mounted by app.ts before any router: secure headers with a CSP that suits
 * the SPA, CORS allow-lists, request body limits (counted as bodies stream, never held whole:
 * body-limit.ts). Rate limits for individual routes are applied with `rateLimit()`.
 */
import type { Context, Hono } from 'hono';
import { cors } from 'hono/cors';
import { secureHeaders } from 'hono/secure-headers';
import type { Needs } from '../context.ts';
import { activeKeyOrigins } from '../auth/api-keys.ts';
import { streamingBodyLimit } from './body-limit.ts';
import { clientAddress } from './client-address.ts';
import { securityState } from './state.ts';

export { clientAddress } from './client-address.ts';
export { hashPassword, verifyPassword, verifyAgainstDummy } from './passwords.ts';

/** JSON endpoints need little; uploads (the /api-py routes) get config.maxRequestBytes. */
export const JSON_BODY_LIMIT = 64 * 1024;

/**
 * The SPA needs: its own scripts and styles (React sets inline style attributes), images from
 * data: (bruise overlays) and blob: (processed images, canvas exports), fetch() of blob:/data: URLs
 * (images sent on to analysis), and workers from self or blob:.
 */
export const CONTENT_SECURITY_POLICY = {
  defaultSrc: ["'self'"],
  baseUri: ["'self'"],
  objectSrc: ["'none'"],
  frameAncestors: ["'self'"],
  formAction: ["'self'"],
  scriptSrc: ["'self'"],
  styleSrc: ["'self'", "'unsafe-inline'"],
  imgSrc: ["'self'", 'data:', 'blob:'],
  fontSrc: ["'self'", 'data:'],
  connectSrc: ["'self'", 'blob:', 'data:'],
  mediaSrc: ["'self'", 'blob:', 'data:'],
  workerSrc: ["'self'", 'blob:'],
  childSrc: ["'self'", 'blob:'],
};

const isPartnerPath = (path: string) => path.startsWith('/api-py') || path.startsWith('/widget/');

export function applySecurity(app: Hono, ctx: Needs<'config' | 'db'>): void {
  const sameOrigin = secureHeaders({ contentSecurityPolicy: CONTENT_SECURITY_POLICY });
  // Partner pages load the widget bundle and call the plugin API from their own origin.
  const crossOrigin = secureHeaders({
    contentSecurityPolicy: CONTENT_SECURITY_POLICY,
    crossOriginResourcePolicy: 'cross-origin',
  });
  app.use('*', (c, next) => (isPartnerPath(c.req.path) ? crossOrigin(c, next) : sameOrigin(c, next)));

  const allowList = new Set(ctx.config.corsOrigins);
  const corsOptions = {
    allowHeaders: ['Authorization', 'Content-Type'],
    allowMethods: ['GET', 'POST', 'PUT', 'DELETE', 'OPTIONS'],
    exposeHeaders: ['Retry-After', 'Content-Disposition'],
    maxAge: 600,
  };
  app.use('/api-node/*', cors({ ...corsOptions, origin: (o) => (allowList.has(o) ? o : null) }));
  app.use('/api/*', cors({ ...corsOptions, origin: (o) => (allowList.has(o) ? o : null) }));
  // A preflight carries no key, so any origin of some active key passes here; requireCaller then
  // checks the origin against the key actually sent (403 when it is not in that key's list).
  app.use(
    '/api-py/*',
    cors({
      ...corsOptions,
      origin: async (o) => (allowList.has(o) || (await activeKeyOrigins(ctx)).has(o) ? o : null),
    }),
  );

  // The widget bundle is public code that partner pages import as an ES module (a CORS request).
  app.use('/widget/*', cors({ origin: '*', allowMethods: ['GET', 'HEAD'] }));

  // Body limits, counted as the body streams (security/body-limit.ts): nothing is read before the routes,
  // which check credentials first. A batch job's upload (POST /api-node/jobs) has its own bound (its
  // files are streamed to disk); the rest of /api-node takes JSON.
  app.use(
    '*',
    streamingBodyLimit((c) => {
      if (c.req.method === 'POST' && c.req.path === '/api-node/jobs') return ctx.config.maxJobBytes;
      // A photo's corrected masks (COCO RLE) and annotation imports are larger than other JSON: up to an upload.
      if (/^\/api-node\/runs\/[^/]+\/(items\/\d+\/truth|annotations)$/.test(c.req.path))
        return ctx.config.maxRequestBytes;
      if (/^\/api-node(\/|$)/.test(c.req.path)) return Math.min(JSON_BODY_LIMIT, ctx.config.maxRequestBytes);
      return ctx.config.maxRequestBytes;
    }),
  );
}

/**
 * Counts a hit against each (key, limit) per minute (or per day); over any limit it answers 429
 * {error} with Retry-After.
 * Returns null when the request may go on.
 */
export async function rateLimit(
  c: Context,
  ctx: Needs<'config' | 'db' | 'dialect' | 'jwtKey'>,
  entries: { key: string; limit: number }[],
  window: 'minute' | 'day' = 'minute',
): Promise<Response | null> {
  const state = securityState(ctx);
  const decision = await (window === 'day' ? state.dailyLimits : state.limits).hitAll(entries);
  return decision.ok ? null : tooManyAttempts(c, decision.retryAfter);
}

/** 429 {error} with Retry-After. */
export function tooManyAttempts(c: Context, retryAfter: number): Response {
  c.header('Retry-After', String(retryAfter));
  return c.json({ error: `Too many attempts. Please try again in ${retryAfter} seconds.` }, 429);
}

/** The sign-in throttle's name for an account: its id, so username and e-mail count as one. */
export const loginAccount = (user: { id: number } | undefined, identifier: string) =>
  user ? `user:${user.id}` : `unknown:${identifier}`;

/** A password reset clears the account's failed sign-ins (on every instance): the owner can sign in at once. */
export const clearLoginFailures = (ctx: Needs<'config' | 'db' | 'dialect' | 'jwtKey'>, userId: number): Promise<void> =>
  securityState(ctx).loginThrottle.clear(loginAccount({ id: userId }, ''));

/** Rate-limit key for the client address of a request. */
export const addressKey = (c: Context, ctx: Needs<'config'>, scope: string) =>
  `${scope}:ip:${clientAddress(c, ctx.config.trustProxy)}`;
