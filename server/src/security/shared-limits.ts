/**
 * Rate limits as every instance sees them. SQLite (one process): rate-limiter-flexible's
 * RateLimiterMemory (rate-limit.ts). PostgreSQL (any number of instances): its RateLimiterPostgres,
 * counting in the shared table `rate_limits` (migration 0010), so a limit of 60 a minute is 60 across
 * all instances, not 60 per instance; the sign-in throttle counts its failures in the same store.
 * Keys are stored as a fixed-size hash (they carry what the client sent).
 */
import { createHmac } from 'node:crypto';
import type pg from 'pg';
import { RateLimiterPostgres } from 'rate-limiter-flexible';
import { allOf, retryAfter, type CounterStore, type RateDecision } from './rate-limit.ts';

export interface Limits {
  /** Counts one hit for `key` and says whether it is within `limit` hits a window. */
  hit(key: string, limit: number): Promise<RateDecision>;
  /** Counts the hit on every key; refused if any is over its limit. */
  hitAll(entries: { key: string; limit: number }[]): Promise<RateDecision>;
}

/**
 * Limits counted by `store`'s counter `name` in windows of `windowSeconds`. A key's count is the same
 * whatever limit it is checked against (an API key whose limit changes keeps its count). Keys carry
 * client addresses: they are stored only as HMAC-SHA256 under `secret`, so a row of `rate_limits`
 * cannot be turned back into an address by trying all of them.
 */
export function storeLimits(
  store: CounterStore,
  name: string,
  windowSeconds: number,
  secret: string | Uint8Array,
): Limits {
  const counter = store.counter(name, windowSeconds);
  const hit = async (key: string, limit: number): Promise<RateDecision> => {
    const res = await counter.penalty(createHmac('sha256', secret).update(key).digest('base64url'));
    return res.consumedPoints <= limit ? { ok: true, retryAfter: 0 } : { ok: false, retryAfter: retryAfter(res) };
  };
  return { hit, hitAll: async (entries) => allOf(await Promise.all(entries.map((e) => hit(e.key, e.limit)))) };
}

/**
 * Counters in the shared table `rate_limits`. `namespace` keeps deployments that share a database
 * apart (the instances of one deployment share JWT_SECRET, so the caller derives it from that).
 */
export function postgresStore(pool: pg.Pool, namespace: string): CounterStore {
  const counters = new Map<string, RateLimiterPostgres>();
  const counter = (name: string, seconds: number) => {
    let c = counters.get(name);
    if (!c) {
      c = new RateLimiterPostgres({
        storeClient: pool,
        storeType: 'pool',
        tableName: 'rate_limits',
        tableCreated: true,
        keyPrefix: `mango:${namespace}:${name}`,
        duration: seconds,
      });
      counters.set(name, c);
    }
    return c;
  };
  return {
    counter,
    async deleteStartingWith(name, prefix) {
      const start = counters.get(name)?.getKey(prefix);
      if (start) await pool.query('DELETE FROM rate_limits WHERE left(key, $2) = $1', [start, start.length]);
    },
  };
}
