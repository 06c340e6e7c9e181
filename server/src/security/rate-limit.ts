/**
 * In-memory fixed-window rate limits (one process; several instances would each keep their own
 * counts, which only makes the limit looser by that factor).
 */
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
  ) {}

  /** Counts one hit for `key` and says whether it is within `limit` hits per window. */
  hit(key: string, limit: number): RateDecision {
    const t = this.clock();
    let w = this.windows.get(key);
    if (!w || w.resetAt <= t) {
      if (this.windows.size > 10_000) this.prune(t);
      w = { count: 0, resetAt: t + this.windowMs };
      this.windows.set(key, w);
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
  }
}
