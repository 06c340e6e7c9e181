/**
 * Per-caller limits of the /api-py plugin endpoints, after authentication: requests per minute of a
 * signed-in user (an API key has its own limit, checked by requireCaller), and uploads in progress at
 * once per caller. Refusals are 429 {detail} with Retry-After; the unread body is read and discarded
 * (bounded) before the answer goes out (security/refused-bodies.ts).
 */
import type { MiddlewareHandler } from 'hono';
import type { Needs } from '../../context.ts';
import { errorResponse } from '../../auth/caller.ts';
import { securityState } from '../../security/state.ts';

/**
 * Seconds to ask a caller to wait for a free place: the photos ahead per thread, at about a second
 * each (a bruise score of a camera photo takes 0.2-1 s of one core), from 1 to 30.
 */
export function estimatedWaitSeconds(ctx: Needs<'pool'>): number {
  return Math.min(30, 1 + Math.floor(ctx.pool.pending / Math.max(1, ctx.pool.threads)));
}

export function callerLimits(ctx: Needs<'config' | 'db' | 'dialect' | 'jwtKey' | 'pool'>): MiddlewareHandler {
  const active = new Map<string, number>();
  const { apiPyLimitPerMinute, maxConcurrentUploads } = ctx.config;
  return async (c, next) => {
    const caller = c.get('caller');
    if (!caller) return next();
    const refuse = (retryAfter: number, message: string) => {
      c.header('Retry-After', String(retryAfter));
      return errorResponse(c, 429, message);
    };
    if (caller.apiKeyId === undefined) {
      const decision = await securityState(ctx).limits.hit(`api-py:user:${caller.userId}`, apiPyLimitPerMinute);
      if (!decision.ok) {
        return refuse(decision.retryAfter, `Rate limit of ${apiPyLimitPerMinute} requests per minute exceeded`);
      }
    }
    const key = caller.apiKeyId === undefined ? `user:${caller.userId}` : `key:${caller.apiKeyId}`;
    const running = active.get(key) ?? 0;
    if (running >= maxConcurrentUploads) {
      return refuse(
        estimatedWaitSeconds(ctx),
        `Too many uploads at once: at most ${maxConcurrentUploads}; wait for one to finish`,
      );
    }
    active.set(key, running + 1);
    try {
      await next();
    } finally {
      const left = (active.get(key) ?? 1) - 1;
      if (left > 0) active.set(key, left);
      else active.delete(key);
    }
  };
}
