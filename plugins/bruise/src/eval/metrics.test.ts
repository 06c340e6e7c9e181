import { describe, expect, it } from 'vitest';
import { linCcc, matchedFruit, rocAuc, scorePixelImage, summarisePixelSet } from './metrics.ts';

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

describe('fruit matched one to one', () => {
  // 6 x 2: truth fruit A (columns 0-2) and B (columns 4-5), cut apart by column 3
  const truth = {
    width: 6,
    height: 2,
    fruit: Uint8Array.from([1, 1, 1, 0, 1, 1, 1, 1, 1, 0, 1, 1]),
    bruise: new Uint8Array(12),
  };
  const pieces = Int32Array.from([1, 1, 1, 0, 2, 2, 1, 1, 1, 0, 2, 2]);

  it('matches a found fruit to a truth fruit when their IoU is over 0.5', () => {
    // the two found as one fruit over the whole row: A's IoU 6/12, B's 4/12: neither matched
    expect(matchedFruit(Int32Array.from([1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1]), pieces, 2)).toBe(0);
    // cut at column 3 into 0-3 and 4-5: A 6/8, B 4/4
    expect(matchedFruit(Int32Array.from([1, 1, 1, 1, 2, 2, 1, 1, 1, 1, 2, 2]), pieces, 2)).toBe(2);
    // cut at column 1: A's best is 4/6, B's found fruit 2-5 covers 4 of its 8 pixels (IoU 4/8 = 0.5, not over)
    expect(matchedFruit(Int32Array.from([1, 1, 2, 2, 2, 2, 1, 1, 2, 2, 2, 2]), pieces, 2)).toBe(1);
  });

  it('pools the matches of a set into recall, precision and F1', () => {
    const merged = {
      fruit: truth.fruit,
      bruise: truth.bruise,
      fruitCount: 1,
      fruitLabels: Int32Array.from(truth.fruit),
    };
    const split = { ...merged, fruitCount: 2, fruitLabels: pieces };
    const per = [scorePixelImage('merged.png', merged, truth), scorePixelImage('split.png', split, truth)];
    expect(per.map((p) => [p.truth_fruit_count, p.fruit_count, p.fruit_matched])).toEqual([
      [2, 1, 1], // the merged fruit is A's with IoU 6/10
      [2, 2, 2],
    ]);
    // truth 4, found 3, matched 3
    expect(summarisePixelSet(per).fruit_instances).toEqual({
      truth: 4,
      found: 3,
      matched: 3,
      recall: 0.75,
      precision: 1,
      f1: 0.8571,
    });
  });
});
