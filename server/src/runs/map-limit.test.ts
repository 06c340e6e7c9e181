import { describe, expect, it } from 'vitest';
import { mapLimit } from './service.ts';

describe('mapLimit', () => {
  const tick = () => new Promise((r) => setTimeout(r, 5));

  it('keeps input order and never runs more than the limit at once', async () => {
    let running = 0;
    let most = 0;
    const out = await mapLimit([5, 1, 4, 2, 3], 2, async (n) => {
      most = Math.max(most, ++running);
      await new Promise((r) => setTimeout(r, n * 3));
      running--;
      return n * 10;
    });
    expect(out).toEqual([50, 10, 40, 20, 30]);
    expect(most).toBe(2);
  });

  it('rejects with the first failure and starts nothing after it', async () => {
    const started: number[] = [];
    const run = mapLimit([1, 2, 3, 4, 5, 6], 2, async (n) => {
      started.push(n);
      await tick();
      if (n === 2) throw new Error('busy');
      return n;
    });
    await expect(run).rejects.toThrow('busy');
    await new Promise((r) => setTimeout(r, 30));
    expect(started).toEqual([1, 2, 3]);
  });
});
