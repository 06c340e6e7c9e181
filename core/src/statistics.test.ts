import { describe, expect, it } from 'vitest';
import {
  describeGroup,
  kthSmallest,
  mean,
  meanInterval,
  medianOf,
  quantile,
  sampleSd,
  tQuantile975,
} from './statistics.ts';
import { seededRandom } from './testing/index.ts';

describe('quantile', () => {
  it('interpolates linearly between the closest ranks, in any order of the values', () => {
    expect(quantile([3, 1, 2, 4], 0.5)).toBe(2.5);
    expect(quantile([0, 10], 0.9)).toBe(9);
    expect(quantile([5], 0.9)).toBe(5);
    expect(quantile(new Float32Array([4, 1, 3, 2, 10]), 0.9)).toBeCloseTo(7.6, 6);
    expect(quantile([7, 1, 3], 0)).toBe(1);
    expect(quantile([7, 1, 3], 1)).toBe(7);
  });

  it('answers null for no values', () => {
    expect(quantile([], 0.5)).toBeNull();
    expect(quantile(new Float32Array(0), 0.9)).toBeNull();
  });
});

// Reference values: scipy 1.17.1 (stats.t.ppf(0.975, df); numpy mean, std(ddof=1), percentile).
describe('tQuantile975', () => {
  it("gives Student's t 0.975 quantile in and beyond the table", () => {
    const scipy: [number, number][] = [
      [1, 12.706205],
      [2, 4.302653],
      [3, 3.182446],
      [5, 2.570582],
      [10, 2.228139],
      [29, 2.04523],
      [30, 2.042272],
      [31, 2.039513],
      [40, 2.021075],
      [60, 2.000298],
      [120, 1.97993],
      [1000, 1.962339],
    ];
    for (const [df, t] of scipy) expect(tQuantile975(df), `df ${df}`).toBeCloseTo(t, 5);
  });

  it('refuses degrees of freedom that are not a whole number >= 1', () => {
    expect(() => tQuantile975(0)).toThrow(/degrees of freedom/);
    expect(() => tQuantile975(2.5)).toThrow(/degrees of freedom/);
  });
});

describe('describeGroup', () => {
  it('gives n, mean, sd, the 95 % t interval and the quartiles as scipy and numpy do', () => {
    const g = describeGroup([5.5, 1, 9, 3, 3, 7, 2.25, 10, 0.5, 4]);
    expect(g.n).toBe(10);
    expect(g.mean).toBeCloseTo(4.525, 10);
    expect(g.sd).toBeCloseTo(3.2626889047055787, 10);
    expect(g.ci_low).toBeCloseTo(2.191012959985001, 5);
    expect(g.ci_high).toBeCloseTo(6.858987040015, 5);
    expect([g.min, g.q1, g.median, g.q3, g.max]).toEqual([0.5, 2.4375, 3.5, 6.625, 10]);
    const two = describeGroup([1, 2]);
    expect(two.ci_low).toBeCloseTo(-4.853102368087347, 5);
    expect(two.ci_high).toBeCloseTo(7.853102368087347, 5);
  });

  it('has no interval below two values, and nothing at all for none; non-finite values are left out', () => {
    const one = describeGroup([3, Number.NaN]);
    expect(one).toMatchObject({ n: 1, mean: 3, sd: null, ci_low: null, ci_high: null, median: 3 });
    expect(describeGroup([])).toMatchObject({ n: 0, mean: null, median: null, ci_low: null });
    expect(mean([Infinity, 2, 4])).toBe(3);
    expect(sampleSd([0, 0, 0])).toBe(0);
  });
});

describe("meanInterval: the 95 % t interval clipped to the figure's bounds", () => {
  // scipy.stats.t.interval(0.95, n - 1, loc=mean, scale=sem): (-0.22017684864996417, 0.3535101819832975)
  // and (99.6464898180167, 100.22017684864997)
  it('clips a percentage near 0 at 0 and one near 100 at 100, and says so', () => {
    expect(meanInterval([0, 0, 0.2])!.low).toBeCloseTo(-0.22017684864996417, 6);
    const low = meanInterval([0, 0, 0.2], [0, 100])!;
    expect(low.low).toBe(0);
    expect(low.high).toBeCloseTo(0.3535101819832975, 6);
    expect(low.clipped).toBe(true);
    const high = meanInterval([99.8, 100, 100], [0, 100])!;
    expect(high.low).toBeCloseTo(99.6464898180167, 6);
    expect(high.high).toBe(100);
    expect(high.clipped).toBe(true);
    const g = describeGroup([0, 0, 0.2], [0, 100]);
    expect([g.ci_low, g.ci_clipped]).toEqual([0, true]);
    expect(g.ci_high).toBeCloseTo(0.3535101819832975, 6);
  });

  it('leaves an interval inside the bounds as it is, and refuses bounds the wrong way round', () => {
    const inside = describeGroup([5.5, 1, 9, 3, 3, 7, 2.25, 10, 0.5, 4], [0, 100]);
    expect(inside.ci_low).toBeCloseTo(2.191012959985001, 5);
    expect(inside.ci_clipped).toBe(false);
    expect(meanInterval([1], [0, 100])).toBeNull();
    expect(() => meanInterval([1, 2], [100, 0])).toThrow(/bounds/);
  });
});

describe('selection', () => {
  it('kthSmallest and medianOf give what a full sort gives, ties and odd or even counts included', () => {
    const r = seededRandom(11);
    for (const n of [1, 2, 3, 10, 101, 1000]) {
      // few distinct values: many ties
      const values = Float64Array.from({ length: n }, () => Math.round(r() * 20) / 4 - 2);
      const sorted = Float64Array.from(values).sort();
      for (const k of [0, n >> 1, n - 1]) expect(kthSmallest(values, k)).toBe(sorted[k]);
      const m = n >> 1;
      expect(medianOf(values)).toBe(n % 2 ? sorted[m] : (sorted[m - 1] + sorted[m]) / 2);
      expect(medianOf(values)).toBe(quantile(values, 0.5));
    }
    expect(medianOf([])).toBeNaN();
  });

  it('leaves its input as it was', () => {
    const values = [3, 1, 2];
    medianOf(values);
    kthSmallest(values, 0);
    expect(values).toEqual([3, 1, 2]);
  });
});
