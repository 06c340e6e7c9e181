/**
 * In-memory fixed-window rate limits (one process; several instances would each keep their own
 * counts, which only makes the limit looser by that factor). Keys are stored as a fixed-size hash
 * (they carry what the client sent), and the store holds at most `maxKeys` windows: expired ones
 * go first, then the oldest.
 */
import { createHash } from 'node:crypto';

export interface RateDecision {
  ok: boolean;
  /** seconds until the window resets (for Retry-After) */
  retryAfter: number;
}

export class RateLimiter {
  private readonly windows = new Map<string, { count: number; resetAt: number }>();

  constructor(
    private readonly windowMs = 60_000,
    private readonly clock: () => number = Date.now,
    private readonly maxKeys = 100_000,
  ) {}

  /** How many windows are kept. */
  get size(): number {
    return this.windows.size;
  }

  /** Counts one hit for `key` and says whether it is within `limit` hits per window. */
  hit(key: string, limit: number): RateDecision {
    const t = this.clock();
    const id = createHash('sha256').update(key).digest('base64url');
    let w = this.windows.get(id);
    if (!w || w.resetAt <= t) {
      this.windows.delete(id);
      if (this.windows.size >= this.maxKeys) this.prune(t);
      w = { count: 0, resetAt: t + this.windowMs };
      this.windows.set(id, w);
    }
    w.count += 1;
    return { ok: w.count <= limit, retryAfter: Math.max(1, Math.ceil((w.resetAt - t) / 1000)) };
  }

  /** Checks every key and counts the hit on all of them; refused if any is over its limit. */
  hitAll(entries: { key: string; limit: number }[]): RateDecision {
    const decisions = entries.map((e) => this.hit(e.key, e.limit));
    const refused = decisions.filter((d) => !d.ok);
    if (refused.length === 0) return { ok: true, retryAfter: 0 };
    return { ok: false, retryAfter: Math.max(...refused.map((d) => d.retryAfter)) };
  }

  private prune(t: number): void {
    for (const [key, w] of this.windows) if (w.resetAt <= t) this.windows.delete(key);
    // Still full: drop the oldest windows (a Map iterates in insertion order).
    for (const key of this.windows.keys()) {
      if (this.windows.size < this.maxKeys) break;
      this.windows.delete(key);
    }
  }
}
