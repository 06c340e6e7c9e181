/**
 * The figures of an evaluation: a photo's pixel scores against its truth (mask IoU, bruise %), the
 * statistics (Lin's concordance, ROC AUC; quantiles and IoU come from @mango/core) and the summaries
 * of a pixel-truth set and of an image-label set from their per-image results.
 */
import { labelComponents, maskIoU, quantile } from '@mango/core';
import type { TruthFormat, TruthMasks } from './truth-masks.ts';

/** Rounded to 4 decimals, the precision of every figure (null stays null). */
export const round4 = <T extends number | null>(v: T): T => (v === null ? v : Math.round(v * 1e4) / 1e4) as T;

export interface PixelImageResult {
  filename: string;
  truth_percent: number;
  predicted_percent: number;
  fruit_iou: number;
  bruise_iou: number | null;
  /** fruit found, and fruit in the truth (8-connected pieces of its fruit mask) */
  fruit_count?: number;
  truth_fruit_count?: number;
  /** truth fruit that one found fruit covers with an IoU over 0.5 (one to one), when the labels are given */
  fruit_matched?: number;
}

export interface PixelSetResult {
  /** the truth's format (set by evaluateBruise) */
  format?: TruthFormat;
  images: number;
  /** medians and 90th percentiles: null for no images (quantile of @mango/core) */
  fruit_iou_median: number | null;
  fruit_iou_min: number;
  /** over the images with bruise in the truth */
  bruise_iou_median: number | null;
  abs_error_median: number | null;
  abs_error_p90: number | null;
  abs_error_max: number;
  lin_ccc: number;
  clean_images: number;
  clean_max_percent: number | null;
  /** share of photos whose fruit count equals the truth's (when counts are known) */
  fruit_count_agreement?: number | null;
  /**
   * each fruit as its own object (when the found labels are known): the truth fruit matched at IoU > 0.5
   * over all truth fruit (recall), over all found fruit (precision), and their harmonic mean (F1)
   */
  fruit_instances?: {
    truth: number;
    found: number;
    matched: number;
    recall: number;
    precision: number;
    f1: number;
  } | null;
  per_image: PixelImageResult[];
}

export interface LabelSetResult {
  images: number;
  auc: number;
  median_percent_by_class: Record<string, number>;
  per_image: { filename: string; class: string; lesioned: number; predicted_percent: number }[];
}

/** One photo's predicted full-resolution masks scored against its truth (same size). */
export function scorePixelImage(
  filename: string,
  predicted: { fruit: Uint8Array; bruise: Uint8Array; fruitCount?: number; fruitLabels?: Int32Array },
  truth: TruthMasks,
): PixelImageResult {
  const pieces = labelComponents(truth.fruit, truth.width, truth.height, 8);
  const { fruit: tf, bruise: tb } = truth;
  let nf = 0;
  let nb = 0;
  let pf = 0;
  let pb = 0;
  for (let i = 0; i < tf.length; i++) {
    nf += tf[i];
    nb += tb[i];
    pf += predicted.fruit[i];
    pb += predicted.bruise[i];
  }
  return {
    filename,
    truth_percent: round4(nf ? (100 * nb) / nf : 0),
    predicted_percent: round4(pf ? (100 * pb) / pf : 0),
    fruit_iou: round4(maskIoU(predicted.fruit, tf)),
    bruise_iou: nb > 0 ? round4(maskIoU(predicted.bruise, tb)) : null,
    // fruit in the truth: its 8-connected pieces (annotations cut touching fruit apart)
    truth_fruit_count: pieces.count,
    fruit_count: predicted.fruitCount,
    ...(predicted.fruitLabels
      ? { fruit_matched: matchedFruit(predicted.fruitLabels, pieces.labels, pieces.count) }
      : {}),
  };
}

/** Truth pieces (1..truthCount) that a found fruit label covers with an IoU over 0.5: at most one each way. */
export function matchedFruit(found: Int32Array, truth: Int32Array, truthCount: number): number {
  let foundCount = 0;
  for (const f of found) if (f > foundCount) foundCount = f;
  const stride = foundCount + 1;
  const foundSize = new Int32Array(stride);
  const truthSize = new Int32Array(truthCount + 1);
  // pixels of truth piece t under found label f, at t * stride + f
  const overlap = new Map<number, number>();
  for (let i = 0; i < truth.length; i++) {
    const f = found[i];
    const t = truth[i];
    truthSize[t]++;
    foundSize[f]++;
    if (f && t) overlap.set(t * stride + f, (overlap.get(t * stride + f) ?? 0) + 1);
  }
  let matched = 0;
  for (const [key, n] of overlap) {
    const t = Math.floor(key / stride);
    const f = key - t * stride;
    if (n / (truthSize[t] + foundSize[f] - n) > 0.5) matched++;
  }
  return matched;
}

/** Lin's concordance correlation coefficient (population moments). */
export function linCcc(x: number[], y: number[]): number {
  const n = x.length;
  if (n === 0) return NaN;
  const mx = x.reduce((a, b) => a + b, 0) / n;
  const my = y.reduce((a, b) => a + b, 0) / n;
  let sxx = 0;
  let syy = 0;
  let sxy = 0;
  for (let i = 0; i < n; i++) {
    sxx += (x[i] - mx) ** 2;
    syy += (y[i] - my) ** 2;
    sxy += (x[i] - mx) * (y[i] - my);
  }
  const den = sxx / n + syy / n + (mx - my) ** 2;
  return den === 0 ? 1 : (2 * sxy) / n / den;
}

/** ROC AUC of scores for positives vs negatives (Mann-Whitney, ties count one half). */
export function rocAuc(scores: number[], positive: boolean[]): number {
  const pos = scores.filter((_, i) => positive[i]);
  const neg = scores.filter((_, i) => !positive[i]);
  if (!pos.length || !neg.length) return NaN;
  const all = scores.map((s, i) => ({ s, p: positive[i] })).sort((a, b) => a.s - b.s);
  let rankSumPos = 0;
  for (let i = 0; i < all.length;) {
    let j = i;
    while (j < all.length && all[j].s === all[i].s) j++;
    const rank = (i + 1 + j) / 2;
    for (let k = i; k < j; k++) if (all[k].p) rankSumPos += rank;
    i = j;
  }
  return (rankSumPos - (pos.length * (pos.length + 1)) / 2) / (pos.length * neg.length);
}

/** The figures of a pixel-truth set from its per-image results (also pools the folds of a cross-validation). */
export function summarisePixelSet(per: PixelImageResult[]): PixelSetResult {
  const errors = per.map((p) => Math.abs(p.predicted_percent - p.truth_percent));
  const clean = per.filter((p) => p.truth_percent === 0);
  const bruiseIous = per.map((p) => p.bruise_iou).filter((v): v is number => v !== null);
  const counted = per.filter((p) => p.fruit_count !== undefined && p.truth_fruit_count !== undefined);
  const matched = counted.filter((p) => p.fruit_matched !== undefined);
  const sum = (f: (p: PixelImageResult) => number) => matched.reduce((a, p) => a + f(p), 0);
  const [truthFruit, foundFruit, matchedFruit] = [
    sum((p) => p.truth_fruit_count!),
    sum((p) => p.fruit_count!),
    sum((p) => p.fruit_matched!),
  ];
  return {
    images: per.length,
    fruit_iou_median: round4(
      quantile(
        per.map((p) => p.fruit_iou),
        0.5,
      ),
    ),
    fruit_iou_min: round4(Math.min(...per.map((p) => p.fruit_iou))),
    bruise_iou_median: round4(quantile(bruiseIous, 0.5)),
    abs_error_median: round4(quantile(errors, 0.5)),
    abs_error_p90: round4(quantile(errors, 0.9)),
    abs_error_max: round4(Math.max(...errors)),
    lin_ccc: round4(
      linCcc(
        per.map((p) => p.truth_percent),
        per.map((p) => p.predicted_percent),
      ),
    ),
    clean_images: clean.length,
    clean_max_percent: clean.length ? Math.max(...clean.map((p) => p.predicted_percent)) : null,
    fruit_count_agreement: counted.length
      ? round4(counted.filter((p) => p.fruit_count === p.truth_fruit_count).length / counted.length)
      : null,
    fruit_instances: matched.length
      ? {
          truth: truthFruit,
          found: foundFruit,
          matched: matchedFruit,
          recall: round4(truthFruit ? matchedFruit / truthFruit : 0),
          precision: round4(foundFruit ? matchedFruit / foundFruit : 0),
          f1: round4(truthFruit + foundFruit ? (2 * matchedFruit) / (truthFruit + foundFruit) : 0),
        }
      : null,
    per_image: per,
  };
}

/** The figures of an image-label set from its per-image results. */
export function summariseLabelSet(per: LabelSetResult['per_image']): LabelSetResult {
  const classes = [...new Set(per.map((p) => p.class))].sort();
  return {
    images: per.length,
    auc: round4(
      rocAuc(
        per.map((p) => p.predicted_percent),
        per.map((p) => p.lesioned === 1),
      ),
    ),
    median_percent_by_class: Object.fromEntries(
      classes.map((c) => [
        c,
        // every class has photos (the classes are those of `per`)
        round4(
          quantile(
            per.filter((p) => p.class === c).map((p) => p.predicted_percent),
            0.5,
          )!,
        ),
      ]),
    ),
    per_image: per,
  };
}
