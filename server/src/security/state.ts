/**
 * Per-server security state: the rate limits and the sign-in throttle, counted in memory (SQLite, one
 * process) or in the shared PostgreSQL database (every instance sees the same counts), kept apart for
 * each ServerContext.
 */
import { createHash, createHmac } from 'node:crypto';
import { createPgPool } from '../db/index.ts';
import type { Needs } from '../context.ts';
import { memoryStore, type CounterStore } from './rate-limit.ts';
import { postgresStore, storeLimits, type Limits } from './shared-limits.ts';
import { LoginThrottle } from './login-throttle.ts';

export interface SecurityState {
  /** where every count lives: in memory on SQLite, the table `rate_limits` on PostgreSQL */
  counters: CounterStore;
  /** per-minute limits as every instance counts them */
  limits: Limits;
  /** the same with day-long windows */
  dailyLimits: Limits;
  /** failed sign-ins (LOGIN_LIMIT_PER_MINUTE per account and address; 3x per address, 5x per account) */
  loginThrottle: LoginThrottle;
}

const states = new WeakMap<object, SecurityState>();

function counterStore(ctx: Needs<'config' | 'dialect' | 'jwtKey'>): CounterStore {
  if (ctx.dialect !== 'postgres' || !ctx.config.databaseUrl) return memoryStore();
  // Its own small pool: a limit check never waits behind a long query of the app.
  const pool = createPgPool(ctx.config.databaseUrl, { max: 3, allowExitOnIdle: true });
  // Instances of one deployment share JWT_SECRET: the same namespace, the same counts.
  const namespace = createHash('sha256').update(ctx.jwtKey).digest('base64url').slice(0, 16);
  return postgresStore(pool, namespace);
}

export function securityState(ctx: Needs<'config' | 'db' | 'dialect' | 'jwtKey'>): SecurityState {
  let s = states.get(ctx);
  if (!s) {
    const perMinute = ctx.config.loginLimitPerMinute;
    const counters = counterStore(ctx);
    const limitsKey = createHmac('sha256', ctx.jwtKey).update('rate-limits').digest();
    s = {
      counters,
      limits: storeLimits(counters, 'minute', 60, limitsKey),
      dailyLimits: storeLimits(counters, 'day', 86_400, limitsKey),
      loginThrottle: new LoginThrottle({
        limits: { pair: perMinute, address: 3 * perMinute, account: 5 * perMinute },
        store: counters,
        db: ctx.db,
        secret: createHmac('sha256', ctx.jwtKey).update('login-throttle').digest(),
      }),
    };
    states.set(ctx, s);
  }
  return s;
}
