import { describe, expect, it } from 'vitest';
import type { StoredRun } from '@mango/core/results';
import { compareRuns, shortSha } from './compare.ts';

type Item = StoredRun['items'][number];

/** A run of items with the given names, hashes and results (only what the comparison reads). */
const run = (items: [string, string, Record<string, unknown>, Record<string, unknown>?][]): StoredRun =>
  ({
    items: items.map(([filename, sha256, result, model_result], position): Partial<Item> => ({
      position,
      filename,
      sha256,
      result,
      ...(model_result ? { model_result } : {}),
    })),
  }) as StoredRun;

describe('compareRuns', () => {
  it("matches photos by content and name, compares the models' bruise %, and sums up the differences", () => {
    const first = run([
      ['a.png', 'aa', { bruise_percent: 10 }],
      ['b.png', 'bb', { bruise_percent: 20 }],
      ['broken.jpg', '', { error: 'not an image' }],
      // a corrected photo: the model's figure is compared, not the person's
      ['c.png', 'cc', { bruise_percent: 50 }, { bruise_percent: 4 }],
    ]);
    // The re-scoring holds the scored photos only, in its own order.
    const second = run([
      ['c.png', 'cc', { bruise_percent: 5 }],
      ['a.png', 'aa', { bruise_percent: 12.5 }],
      ['b.png', 'bb', { bruise_percent: 17 }],
    ]);
    const c = compareRuns(first, second);
    expect(c.photos).toEqual([
      { filename: 'a.png', first: 10, second: 12.5, difference: 2.5 },
      { filename: 'b.png', first: 20, second: 17, difference: -3 },
      { filename: 'broken.jpg', first: null, second: null, difference: null },
      { filename: 'c.png', first: 4, second: 5, difference: 1 },
    ]);
    expect(c.n).toBe(3);
    expect(c.mean_difference).toBeCloseTo(0.5 / 3, 12);
    expect(c.median_difference).toBe(1);
    expect(c.mean_absolute_difference).toBeCloseTo(6.5 / 3, 12);
  });

  it('pairs photos of the same name and content in order, and has no summary without pairs', () => {
    const twice = run([
      ['x.png', 'xx', { bruise_percent: 1 }],
      ['x.png', 'xx', { bruise_percent: 3 }],
    ]);
    const again = run([
      ['x.png', 'xx', { bruise_percent: 2 }],
      ['x.png', 'xx', { bruise_percent: 4 }],
    ]);
    expect(compareRuns(twice, again).photos.map((p) => p.difference)).toEqual([1, 1]);
    const none = compareRuns(twice, run([['y.png', 'yy', { bruise_percent: 2 }]]));
    expect(none).toMatchObject({
      n: 0,
      mean_difference: null,
      median_difference: null,
      mean_absolute_difference: null,
    });
  });

  it('names a model file by the first 8 hex digits of its sha256', () => {
    expect(shortSha('e7cedefbc035b1461df4')).toBe('e7cedefb');
    expect(shortSha(null)).toBe('–');
  });
});
