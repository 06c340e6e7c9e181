import { describe, expect, it } from 'vitest';
import { linCcc, rocAuc, scorePixelImage, summarisePixelSet } from './metrics.ts';

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
});

describe('pixel scores of one photo and of a set', () => {
  // A 4 x 2 photo: the truth's fruit is the left 3 columns with one bruised pixel, the prediction's
  // fruit the middle 2 columns with the same bruised pixel and one more.
  const truth = {
    width: 4,
    height: 2,
    fruit: Uint8Array.from([1, 1, 1, 0, 1, 1, 1, 0]),
    bruise: Uint8Array.from([0, 1, 0, 0, 0, 0, 0, 0]),
  };
  const predicted = {
    fruit: Uint8Array.from([0, 1, 1, 0, 0, 1, 1, 0]),
    bruise: Uint8Array.from([0, 1, 1, 0, 0, 0, 0, 0]),
    fruitCount: 1,
  };

  it('scores the bruise % of each mask, the IoU of the fruit and of the bruise, and the fruit counts', () => {
    expect(scorePixelImage('a.png', predicted, truth)).toEqual({
      filename: 'a.png',
      truth_percent: 16.6667,
      predicted_percent: 50,
      fruit_iou: 0.6667,
      bruise_iou: 0.5,
      truth_fruit_count: 1,
      fruit_count: 1,
    });
    // no bruise in the truth: no bruise IoU
    expect(scorePixelImage('b.png', predicted, { ...truth, bruise: new Uint8Array(8) }).bruise_iou).toBeNull();
  });

  it('summarises a set with medians, the 90th percentile, the concordance and the clean photos', () => {
    const per = [
      scorePixelImage('a.png', predicted, truth),
      scorePixelImage('b.png', predicted, { ...truth, bruise: new Uint8Array(8) }),
    ];
    const set = summarisePixelSet(per);
    expect(set).toMatchObject({
      images: 2,
      fruit_iou_median: 0.6667,
      fruit_iou_min: 0.6667,
      bruise_iou_median: 0.5,
      abs_error_max: 50,
      clean_images: 1,
      clean_max_percent: 50,
      fruit_count_agreement: 1,
    });
    // errors 33.3333 and 50: linear between the two
    expect(set.abs_error_median).toBeCloseTo(41.6667, 4);
    expect(set.abs_error_p90).toBeCloseTo(48.3333, 4);
  });

  it('has no medians for no photos', () => {
    expect(summarisePixelSet([])).toMatchObject({
      images: 0,
      fruit_iou_median: null,
      bruise_iou_median: null,
      abs_error_median: null,
      abs_error_p90: null,
      clean_max_percent: null,
    });
  });
});
