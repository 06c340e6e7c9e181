/**
 * Per-server security state: the rate limits, in memory (SQLite) or counted in the shared PostgreSQL
 * database (every instance sees the same counts), kept apart for each ServerContext.
 */
import { createHash } from 'node:crypto';
import type { ServerContext } from '../context.ts';
import { RateLimiter } from './rate-limit.ts';
import { memoryLimits, postgresLimits, type Limits } from './shared-limits.ts';

export interface SecurityState {
  /** the in-memory windows (used on SQLite) */
  limiter: RateLimiter;
  limits: Limits;
}

const states = new WeakMap<ServerContext, SecurityState>();

export function securityState(ctx: ServerContext): SecurityState {
  let s = states.get(ctx);
  if (!s) {
    const limiter = new RateLimiter();
    const url = ctx.dialect === 'postgres' ? ctx.config.databaseUrl : undefined;
    // Instances of one deployment share JWT_SECRET: the same namespace, the same counts.
    const namespace = createHash('sha256').update(ctx.jwtKey).digest('base64url').slice(0, 16);
    s = { limiter, limits: url ? postgresLimits(url, namespace) : memoryLimits(limiter) };
    states.set(ctx, s);
  }
  return s;
}
