import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { sharedDir, SHARED_MISSING } from '@mango/core/testing/node';
import { evaluateBruise, formatBruiseEvaluation, linCcc, quantile, rocAuc } from './eval.ts';

describe('evaluation statistics', () => {
  it('ROC AUC counts ties as one half', () => {
    expect(rocAuc([1, 2, 3, 4], [false, false, true, true])).toBe(1);
    expect(rocAuc([1, 2, 3, 4], [true, true, false, false])).toBe(0);
    expect(rocAuc([1, 1, 1, 1], [true, false, true, false])).toBe(0.5);
    expect(rocAuc([0, 2, 1, 3], [false, true, false, true])).toBe(1);
    expect(rocAuc([0, 2, 3, 1], [false, false, true, true])).toBe(0.75);
  });

  it("Lin's concordance is 1 for identity and drops with bias", () => {
    expect(linCcc([1, 2, 3], [1, 2, 3])).toBeCloseTo(1, 12);
    // y = x + 1: sxy = sxx = syy = 2/3 per n, bias 1 -> 2*(2/3) / (4/3 + 1)
    expect(linCcc([1, 2, 3], [2, 3, 4])).toBeCloseTo(4 / 3 / (7 / 3), 12);
  });

  it('quantile interpolates linearly', () => {
    expect(quantile([3, 1, 2, 4], 0.5)).toBe(2.5);
    expect(quantile([0, 10], 0.9)).toBe(9);
  });
});

const shared = sharedDir();
const dev = shared ? join(shared, 'data', 'bruise-dev', 'synthetic_composites') : '';

describe('bruise evaluation on the synthetic composites (development split)', () => {
  it.skipIf(!shared)(
    'reaches the pixel targets with segmentFruit and the classical method',
    async () => {
      const ev = await evaluateBruise({ images: join(dev, 'images'), truth: dev, method: 'classical' });
      console.log(formatBruiseEvaluation(ev));
      const p = ev.pixel!;
      expect(p.images).toBe(29);
      expect(p.fruit_iou_median).toBeGreaterThanOrEqual(0.97);
      expect(p.abs_error_median).toBeLessThanOrEqual(1.0);
      expect(p.abs_error_p90).toBeLessThanOrEqual(3);
      expect(p.lin_ccc).toBeGreaterThan(0.95);
      expect(p.clean_images).toBe(6);
      expect(p.clean_max_percent).toBeLessThan(0.5);
    },
    900_000,
  );
  if (!shared) it.skip(SHARED_MISSING, () => {});
});
