import { describe, expect, it } from 'vitest';
import { quantile } from './statistics.ts';

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
