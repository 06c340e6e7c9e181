/**
 * Rate limits as every instance sees them. SQLite (one process): the in-memory RateLimiter. PostgreSQL
 * (any number of instances): rate-limiter-flexible's RateLimiterPostgres, counting in the shared
 * table `rate_limits` (migration 0010), so a limit of 60 a minute is 60 across all instances, not 60
 * per instance. Keys are stored as a fixed-size hash, as in memory (they carry what the client sent).
 */
import { createHash } from 'node:crypto';
import pg from 'pg';
import { RateLimiterPostgres, RateLimiterRes } from 'rate-limiter-flexible';
import { RateLimiter, type RateDecision } from './rate-limit.ts';

export interface Limits {
  /** Counts one hit for `key` and says whether it is within `limit` hits a minute. */
  hit(key: string, limit: number): Promise<RateDecision>;
  /** Counts the hit on every key; refused if any is over its limit. */
  hitAll(entries: { key: string; limit: number }[]): Promise<RateDecision>;
}

async function allOf(limits: Limits['hit'], entries: { key: string; limit: number }[]): Promise<RateDecision> {
  const decisions = await Promise.all(entries.map((e) => limits(e.key, e.limit)));
  const refused = decisions.filter((d) => !d.ok);
  if (refused.length === 0) return { ok: true, retryAfter: 0 };
  return { ok: false, retryAfter: Math.max(...refused.map((d) => d.retryAfter)) };
}

export function memoryLimits(limiter: RateLimiter): Limits {
  return {
    hit: async (key, limit) => limiter.hit(key, limit),
    hitAll: async (entries) => limiter.hitAll(entries),
  };
}

/**
 * `namespace` keeps deployments that share a database apart (the instances of one deployment share
 * JWT_SECRET, so the caller derives it from that).
 */
export function postgresLimits(
  databaseUrl: string,
  namespace: string,
  windowSeconds: number,
): Limits & { close(): Promise<void> } {
  // Its own small pool: a limit check never waits behind a long query of the app.
  const pool = new pg.Pool({ connectionString: databaseUrl, max: 3, allowExitOnIdle: true });
  // One limiter per limit value (points); they share the table and count the same keys.
  const byLimit = new Map<number, RateLimiterPostgres>();
  const limiterFor = (limit: number) => {
    let l = byLimit.get(limit);
    if (!l) {
      l = new RateLimiterPostgres({
        storeClient: pool,
        storeType: 'pool',
        tableName: 'rate_limits',
        tableCreated: true,
        keyPrefix: `mango:${namespace}`,
        points: limit,
        duration: windowSeconds,
      });
      byLimit.set(limit, l);
    }
    return l;
  };
  const hit = async (key: string, limit: number): Promise<RateDecision> => {
    const id = createHash('sha256').update(key).digest('base64url');
    try {
      await limiterFor(limit).consume(id);
      return { ok: true, retryAfter: 0 };
    } catch (e) {
      if (!(e instanceof RateLimiterRes)) throw e;
      return { ok: false, retryAfter: Math.max(1, Math.ceil(e.msBeforeNext / 1000)) };
    }
  };
  return { hit, hitAll: (entries) => allOf(hit, entries), close: () => pool.end() };
}
