/**
 * Counting hits in windows with rate-limiter-flexible, in memory (one process: SQLite). The shared
 * PostgreSQL store is in shared-limits.ts; both give the rate limits and the sign-in throttle the same
 * `CounterStore`. RateLimiterMemory drops a key when its window ends but holds any number of keys until
 * then; BoundedMemoryLimiter caps that at `maxKeys` (the oldest window is forgotten first). Callers
 * pass fixed-size hashed keys (they carry what the client sent).
 */
import { RateLimiterMemory, RateLimiterRes, type RateLimiterAbstract } from 'rate-limiter-flexible';

export interface RateDecision {
  ok: boolean;
  /** seconds until the window resets (for Retry-After) */
  retryAfter: number;
}

/** Where counts live: rate-limiter-flexible limiters that count per key, each in windows of its own. */
export interface CounterStore {
  /** The counter named `name`, windows of `seconds` (the same name gives the same counter). */
  counter(name: string, seconds: number): RateLimiterAbstract;
  /** Deletes the counts of counter `name` whose key starts with `prefix`. */
  deleteStartingWith(name: string, prefix: string): Promise<void>;
  /** keys held (in memory only) */
  readonly size?: number;
}

/** A count whose window has not ended, or null. */
export const current = (res: RateLimiterRes | null): RateLimiterRes | null =>
  res && res.msBeforeNext > 0 ? res : null;

/** Seconds until a count's window ends, for Retry-After (at least 1). */
export const retryAfter = (res: RateLimiterRes): number => Math.max(1, Math.ceil(res.msBeforeNext / 1000));

/** Refused if any is: the longest wait of those refused. */
export function allOf(decisions: RateDecision[]): RateDecision {
  const refused = decisions.filter((d) => !d.ok);
  if (refused.length === 0) return { ok: true, retryAfter: 0 };
  return { ok: false, retryAfter: Math.max(...refused.map((d) => d.retryAfter)) };
}

/** RateLimiterMemory holding at most `maxKeys` keys: when full, ended windows go, then the oldest. */
export class BoundedMemoryLimiter extends RateLimiterMemory {
  /** the keys held, in the order their windows began, with when each ends */
  private readonly keys = new Map<string, number>();

  constructor(
    opts: { keyPrefix: string; duration: number },
    private readonly maxKeys = 100_000,
  ) {
    super(opts);
  }

  get size(): number {
    return this.keys.size;
  }

  override consume(key: string | number, points?: number, options?: { [key: string]: unknown }) {
    return this.tracked(String(key), () => super.consume(key, points, options));
  }

  override penalty(key: string | number, points?: number, options?: { [key: string]: unknown }) {
    return this.tracked(String(key), () => super.penalty(key, points, options));
  }

  override delete(key: string | number): Promise<boolean> {
    this.keys.delete(String(key));
    return super.delete(key);
  }

  async deleteStartingWith(prefix: string): Promise<void> {
    for (const key of [...this.keys.keys()]) if (key.startsWith(prefix)) await this.delete(key);
  }

  private async tracked(key: string, count: () => Promise<RateLimiterRes>): Promise<RateLimiterRes> {
    if (!this.keys.has(key)) this.makeRoom();
    try {
      return this.held(key, await count());
    } catch (e) {
      // consume() rejects with the count when it is over the limit
      if (e instanceof RateLimiterRes) this.held(key, e);
      throw e;
    }
  }

  private held(key: string, res: RateLimiterRes): RateLimiterRes {
    // A new window goes to the end of the order.
    if (res.isFirstInDuration) this.keys.delete(key);
    this.keys.set(key, Date.now() + res.msBeforeNext);
    return res;
  }

  private makeRoom(): void {
    if (this.keys.size < this.maxKeys) return;
    const t = Date.now();
    // The map is in the order windows began, and every window of this limiter lasts `duration`, so
    // it is also the order they end: the ended ones are a prefix, and the scan stops at the first
    // current one (a full store costs the ended keys, not a pass over all of them per new key).
    for (const [key, end] of this.keys) {
      if (end > t) break;
      this.keys.delete(key);
    }
    // Still full: forget the oldest windows (a Map iterates in insertion order).
    for (const key of this.keys.keys()) {
      if (this.keys.size < this.maxKeys) break;
      void this.delete(key);
    }
  }
}

/** Counters in this process's memory, each holding at most `maxKeys` keys. */
export function memoryStore(maxKeys = 100_000): CounterStore {
  const counters = new Map<string, BoundedMemoryLimiter>();
  const counter = (name: string, seconds: number) => {
    let c = counters.get(name);
    if (!c) {
      c = new BoundedMemoryLimiter({ keyPrefix: name, duration: seconds }, maxKeys);
      counters.set(name, c);
    }
    return c;
  };
  return {
    counter,
    deleteStartingWith: async (name, prefix) => counters.get(name)?.deleteStartingWith(prefix),
    get size() {
      let n = 0;
      for (const c of counters.values()) n += c.size;
      return n;
    },
  };
}
