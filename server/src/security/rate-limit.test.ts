import { createHash, createHmac } from 'node:crypto';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { memoryStore } from './rate-limit.ts';
import { storeLimits } from './shared-limits.ts';

const KEY = 'rate-limit-test-key';

describe('rate limits in memory (rate-limiter-flexible RateLimiterMemory)', () => {
  beforeEach(() => vi.useFakeTimers({ now: 1_000 }));
  afterEach(() => vi.useRealTimers());

  it('allows `limit` hits per window, then refuses until the window resets', async () => {
    const limits = storeLimits(memoryStore(), 'minute', 60, KEY);
    const hits = async (key: string, n: number) => {
      const ok: boolean[] = [];
      for (let i = 0; i < n; i++) ok.push((await limits.hit(key, 3)).ok);
      return ok;
    };
    expect(await hits('a', 3)).toEqual([true, true, true]);
    expect(await limits.hit('a', 3)).toEqual({ ok: false, retryAfter: 60 });
    expect((await limits.hit('b', 3)).ok).toBe(true);
    vi.advanceTimersByTime(30_000);
    expect(await limits.hit('a', 3)).toEqual({ ok: false, retryAfter: 30 });
    vi.advanceTimersByTime(30_000);
    expect(await hits('a', 4)).toEqual([true, true, true, false]);
  });

  it('hitAll refuses when any key is over its limit', async () => {
    const limits = storeLimits(memoryStore(), 'minute', 60, KEY);
    const ip = { key: 'ip', limit: 5 };
    expect((await limits.hitAll([ip, { key: 'acct', limit: 1 }])).ok).toBe(true);
    expect(await limits.hitAll([ip, { key: 'acct', limit: 1 }])).toEqual({ ok: false, retryAfter: 60 });
    expect((await limits.hitAll([ip, { key: 'other', limit: 1 }])).ok).toBe(true);
  });

  it("counts a key the same whatever limit it is checked against, and keeps the windows' counters apart", async () => {
    const store = memoryStore();
    const minute = storeLimits(store, 'minute', 60, KEY);
    const day = storeLimits(store, 'day', 86_400, KEY);
    expect((await minute.hit('key', 2)).ok).toBe(true);
    expect((await minute.hit('key', 2)).ok).toBe(true);
    expect((await minute.hit('key', 5)).ok).toBe(true);
    expect((await minute.hit('key', 3)).ok).toBe(false);
    expect(await day.hit('key', 1)).toEqual({ ok: true, retryAfter: 0 });
    expect(await day.hit('key', 1)).toEqual({ ok: false, retryAfter: 86_400 });
  });

  it('keeps at most maxKeys keys of fixed size, whatever the keys hold (the oldest go first)', async () => {
    const store = memoryStore(100);
    const limits = storeLimits(store, 'minute', 60, KEY);
    const long = 'x'.repeat(50_000);
    for (let i = 0; i < 1_000; i++) await limits.hit(`login:account:${long}${i}`, 3);
    expect(store.size).toBe(100);
    // What rate-limiter-flexible itself holds: 100 records, keyed by a hash.
    const held = Object.keys(
      (store.counter('minute', 60) as unknown as { _memoryStorage: { _storage: object } })._memoryStorage._storage,
    );
    expect(held).toHaveLength(100);
    expect(held.every((k) => k.length === 'minute:'.length + 43)).toBe(true);
    // Keyed: the stored id is the HMAC of the key, not its plain sha256 (which anyone can recompute).
    const hmac = createHmac('sha256', KEY).update(`login:account:${long}999`).digest('base64url');
    const plain = createHash('sha256').update(`login:account:${long}999`).digest('base64url');
    expect(held).toContain(`minute:${hmac}`);
    expect(held).not.toContain(`minute:${plain}`);
    // The newest keys are kept and still count; the oldest were forgotten.
    const newest = `login:account:${long}999`;
    expect((await limits.hit(newest, 2)).ok).toBe(true);
    expect((await limits.hit(newest, 2)).ok).toBe(false);
    expect((await limits.hit(`login:account:${long}0`, 1)).ok).toBe(true);
    vi.advanceTimersByTime(60_000);
    expect((await limits.hit(newest, 2)).ok).toBe(true);
  });

  it('makes room with the windows that ended before it forgets a current one', async () => {
    const store = memoryStore(3);
    const limits = storeLimits(store, 'minute', 60, KEY);
    await limits.hit('a', 1);
    await limits.hit('b', 1);
    vi.advanceTimersByTime(30_000);
    await limits.hit('c', 1);
    vi.advanceTimersByTime(30_000);
    await limits.hit('d', 1);
    expect(store.size).toBe(2);
    expect(await limits.hit('c', 1)).toEqual({ ok: false, retryAfter: 30 });
  });

  it('deletes the keys of a counter that start with a prefix', async () => {
    const store = memoryStore();
    const counter = store.counter('pairs', 60);
    await Promise.all(['a.1', 'a.2', 'b.1'].map((k) => counter.penalty(k, 5)));
    await store.deleteStartingWith('pairs', 'a.');
    expect(await counter.get('a.1')).toBeNull();
    expect(await counter.get('a.2')).toBeNull();
    expect((await counter.get('b.1'))?.consumedPoints).toBe(5);
    expect(store.size).toBe(1);
  });
});
