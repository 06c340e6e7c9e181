/**
 * Per-server security state: the rate limits, in memory (SQLite) or counted in the shared PostgreSQL
 * database (every instance sees the same counts), kept apart for each ServerContext.
 */
import { createHash } from 'node:crypto';
import type { ServerContext } from '../context.ts';
import { RateLimiter } from './rate-limit.ts';
import { memoryLimits, postgresLimits, type Limits } from './shared-limits.ts';
import { LoginThrottle } from './login-throttle.ts';

export interface SecurityState {
  /** the in-memory windows (used on SQLite) */
  limiter: RateLimiter;
  /** the same with day-long windows */
  dailyLimiter: RateLimiter;
  /** per-minute limits as every instance counts them (shared in PostgreSQL; in memory on SQLite) */
  limits: Limits;
  /** the same with day-long windows */
  dailyLimits: Limits;
  /** failed sign-ins (LOGIN_LIMIT_PER_MINUTE per account and address; 3x per address, 5x per account) */
  loginThrottle: LoginThrottle;
}

const states = new WeakMap<ServerContext, SecurityState>();

export function securityState(ctx: ServerContext): SecurityState {
  let s = states.get(ctx);
  if (!s) {
    const perMinute = ctx.config.loginLimitPerMinute;
    const limiter = new RateLimiter();
    const dailyLimiter = new RateLimiter(86_400_000);
    const url = ctx.dialect === 'postgres' ? ctx.config.databaseUrl : undefined;
    // Instances of one deployment share JWT_SECRET: the same namespace, the same counts.
    const namespace = createHash('sha256').update(ctx.jwtKey).digest('base64url').slice(0, 16);
    s = {
      limiter,
      dailyLimiter,
      limits: url ? postgresLimits(url, namespace, 60) : memoryLimits(limiter),
      dailyLimits: url ? postgresLimits(url, `${namespace}:day`, 86_400) : memoryLimits(dailyLimiter),
      loginThrottle: new LoginThrottle({ pair: perMinute, address: 3 * perMinute, account: 5 * perMinute }),
    };
    states.set(ctx, s);
  }
  return s;
}
