import { describe, expect, it } from 'vitest';
import { RateLimiter } from './rate-limit.ts';

describe('RateLimiter', () => {
  it('allows `limit` hits per window, then refuses until the window resets', () => {
    let t = 1_000;
    const limiter = new RateLimiter(60_000, () => t);
    expect([1, 2, 3].map(() => limiter.hit('a', 3).ok)).toEqual([true, true, true]);
    const refused = limiter.hit('a', 3);
    expect(refused).toEqual({ ok: false, retryAfter: 60 });
    expect(limiter.hit('b', 3).ok).toBe(true);
    t += 30_000;
    expect(limiter.hit('a', 3).retryAfter).toBe(30);
    t += 30_000;
    expect(limiter.hit('a', 3).ok).toBe(true);
  });

  it('hitAll refuses when any key is over its limit', () => {
    const limiter = new RateLimiter();
    expect(
      limiter.hitAll([
        { key: 'ip', limit: 5 },
        { key: 'acct', limit: 1 },
      ]).ok,
    ).toBe(true);
    expect(
      limiter.hitAll([
        { key: 'ip', limit: 5 },
        { key: 'acct', limit: 1 },
      ]).ok,
    ).toBe(false);
    expect(
      limiter.hitAll([
        { key: 'ip', limit: 5 },
        { key: 'other', limit: 1 },
      ]).ok,
    ).toBe(true);
  });

  it('keeps at most maxKeys windows of fixed size, whatever the keys hold', () => {
    let t = 1_000;
    const limiter = new RateLimiter(60_000, () => t, 100);
    const long = 'x'.repeat(50_000);
    for (let i = 0; i < 1_000; i++) limiter.hit(`login:account:${long}${i}`, 3);
    expect(limiter.size).toBe(100);
    const keys = [...(limiter as unknown as { windows: Map<string, unknown> }).windows.keys()];
    expect(keys.every((k) => k.length === 43)).toBe(true);
    // The newest windows are kept and still count.
    expect([1, 2, 3].map(() => limiter.hit(`login:account:${long}999`, 3).ok)).toEqual([true, true, false]);
    t += 60_000;
    expect(limiter.hit(`login:account:${long}999`, 3).ok).toBe(true);
  });
});
