import { describe, expect, it } from 'vitest';
import { histogramBins, summaryStats } from './results.ts';

describe('summary statistics and histogram', () => {
  it('gives n, mean, median, p90 (linear between ranks) and the share over the threshold', () => {
    const s = summaryStats([4, 1, 3, 2, 10], 3);
    expect(s).toMatchObject({ n: 5, mean: 4, median: 3, threshold: 3, share_over: 0.4 });
    expect(s.p90).toBeCloseTo(7.6, 12);
    expect(summaryStats([], 5)).toEqual({ n: 0, mean: null, median: null, p90: null, threshold: 5, share_over: null });
  });

  it('bins bruise % from 0 in round widths, at most 12 bins, the maximum in the last bin', () => {
    const bins = histogramBins([0, 0.4, 3.2, 7.9, 13]);
    expect(bins.map((b) => [b.from, b.to, b.count])).toEqual([
      [0, 2, 2],
      [2, 4, 1],
      [4, 6, 0],
      [6, 8, 1],
      [8, 10, 0],
      [10, 12, 0],
      [12, 14, 1],
    ]);
    // 12 one-wide bins are enough for a maximum of 12, which falls in the last one.
    expect(histogramBins([12]).map((b) => b.count)).toEqual([...Array(11).fill(0), 1]);
    expect(histogramBins([]).map((b) => b.count)).toEqual([0]);
    expect(histogramBins([55, 100]).length).toBeLessThanOrEqual(12);
  });
});
