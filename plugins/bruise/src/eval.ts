/**
 * Evaluation of the bruise plugin (Node only: reads files). Three kinds of ground truth:
 * (a) pixel truth (images + fruit_masks/ + bruise_masks/), (b) image labels healthy vs lesioned
 * (labels.csv: filename,class,lesioned), (c) defect boxes (boxes.csv: filename,class,x,y,w,h).
 * The CLI's `mango eval bruise --images DIR --truth DIR` calls evaluateBruise.
 */
import { existsSync, readFileSync, readdirSync, statSync } from 'node:fs';
import { parse } from 'csv-parse/sync';
import { basename, dirname, extname, join } from 'node:path';
import type { ModelLoader, RasterImage } from '@mango/core';
import { labelComponents, MangoError, maskIoU } from '@mango/core';
import { decodeImage } from '@mango/core/node';
import { analyseBruise, fullResolutionMasks, summariseBruise } from './analyse.ts';
import bruise from './index.ts';
import { BruiseOptions, type BruiseOptionsInput } from './schema.ts';
import { openTruth, type TruthFormat } from './truth.ts';

export interface EvaluateBruiseOptions {
  /** folder of images with pixel truth (needs `truth`) */
  images?: string;
  /**
   * the pixel truth: a folder holding fruit_masks/ and bruise_masks/ (<stem>.png, 255 = set), a COCO
   * file, a CVAT "Segmentation mask 1.1" folder or a Label Studio JSON export (src/truth.ts)
   */
  truth?: string;
  /** labels.csv (filename,class,lesioned); images in `labelsImages` or images/ beside the csv */
  labels?: string;
  labelsImages?: string;
  /** boxes.csv (filename,class,x,y,w,h); images in `boxesImages` or images/ beside the csv */
  boxes?: string;
  boxesImages?: string;
  method?: 'auto' | 'classical' | 'model';
  /** further plugin options (tuned parameters) */
  options?: BruiseOptionsInput;
  models?: ModelLoader;
  /** use the truth fruit masks instead of segmentFruit (isolates bruise detection) */
  truthFruit?: boolean;
  /** box classes that count as lesions for (c) */
  boxClasses?: string[];
  /** share of a box's pixels marked bruise for the box to count as found */
  boxFoundFraction?: number;
  /** share of a box's pixels marked bruise for the box to count as hit (BOX_HIT_FRACTION) */
  boxHitFraction?: number;
  onImage?: (done: number, total: number, name: string) => void;
  /** score only the photos this accepts (e.g. the held-out fold of a grouped cross-validation) */
  only?: (filename: string) => boolean;
}

export interface PixelImageResult {
  filename: string;
  truth_percent: number;
  predicted_percent: number;
  fruit_iou: number;
  bruise_iou: number | null;
  /** fruit found, and fruit in the truth (8-connected pieces of its fruit mask) */
  fruit_count?: number;
  truth_fruit_count?: number;
}

export interface PixelSetResult {
  /** the truth's format (set by evaluateBruise) */
  format?: TruthFormat;
  images: number;
  fruit_iou_median: number;
  fruit_iou_min: number;
  bruise_iou_median: number | null;
  abs_error_median: number;
  abs_error_p90: number;
  abs_error_max: number;
  lin_ccc: number;
  clean_images: number;
  clean_max_percent: number | null;
  /** share of photos whose fruit count equals the truth's (when counts are known) */
  fruit_count_agreement?: number | null;
  per_image: PixelImageResult[];
}

export interface LabelSetResult {
  images: number;
  auc: number;
  median_percent_by_class: Record<string, number>;
  per_image: { filename: string; class: string; lesioned: number; predicted_percent: number }[];
}

/**
 * A second, looser box criterion. The lesions of the AI CUP boxes cover 0.7-9.2 % of their loosely
 * drawn boxes (models/training/analysis/box_ceiling.py: the half-peak darkening region), so an exact
 * outline of the lesion never reaches the 10 % of `found`. A box is *hit* when at least 0.5 % of it
 * is marked: below the smallest measured lesion share, so an exact outline of any of those lesions
 * counts. Because a loose criterion also rewards marking at random, each lesion box is paired with
 * control windows: windows of the same size on the same photo's fruit (at least 90 % fruit, on a
 * grid one window apart) that touch no labelled box of any class. The share of control windows that
 * reach the same 0.5 % is the hit rate of chance, reported beside the hit rate.
 */
export const BOX_HIT_FRACTION = 0.005;
/** Share of a control window that must be fruit. */
const CONTROL_FRUIT_SHARE = 0.9;

export interface BoxResult {
  filename: string;
  class: string;
  bruise_fraction: number;
  found: boolean;
  /** at least BOX_HIT_FRACTION (or the boxHitFraction asked for) of the box marked */
  hit?: boolean;
  /** control windows of this box's size on its photo's fruit, and how many reach the hit fraction */
  control_windows?: number;
  control_hits?: number;
}

export interface BoxSetResult {
  boxes: number;
  found: number;
  found_share: number;
  /** boxes hit (at least BOX_HIT_FRACTION marked) */
  hits: number;
  hit_share: number;
  /** the same criterion on control windows of the lesion boxes (chance level) */
  control_windows: number;
  control_hit_share: number;
  by_class: Record<string, { boxes: number; found: number; hits: number }>;
  per_box: BoxResult[];
}

/** Share of the pixels of [x0, x1) x [y0, y1) set in `mask` (full-resolution, row-major, width w). */
function markedShare(mask: Uint8Array, w: number, x0: number, y0: number, x1: number, y1: number): number {
  let marked = 0;
  for (let y = y0; y < y1; y++) for (let x = x0; x < x1; x++) marked += mask[y * w + x];
  const total = (x1 - x0) * (y1 - y0);
  return total > 0 ? marked / total : 0;
}

/** The boxes of one photo scored against its full-resolution masks (both criteria and the controls). */
export function scoreBoxes(
  filename: string,
  full: { width: number; height: number; fruit: Uint8Array; bruise: Uint8Array },
  rows: readonly Record<string, string | number>[],
  wanted: Set<string>,
  foundFraction = 0.1,
  hitFraction = BOX_HIT_FRACTION,
): BoxResult[] {
  // Pixel bounds: a box drawn at fractional coordinates covers every pixel it touches.
  const boxes = rows.map((row) => {
    const [x, y, w, h] = [row.x, row.y, row.w, row.h].map(Number);
    if (![x, y, w, h].every(Number.isFinite)) {
      throw new MangoError('INVALID_INPUT', `${filename}: box ${JSON.stringify(row)} has no numeric x, y, w, h`);
    }
    return {
      row,
      x0: Math.max(0, Math.floor(x)),
      y0: Math.max(0, Math.floor(y)),
      x1: Math.min(full.width, Math.ceil(x + w)),
      y1: Math.min(full.height, Math.ceil(y + h)),
    };
  });
  return boxes.map(({ row, x0, y0, x1, y1 }) => {
    const fraction = markedShare(full.bruise, full.width, x0, y0, x1, y1);
    const controls = wanted.has(String(row.class)) ? controlShares(full, x1 - x0, y1 - y0, boxes) : [];
    return {
      filename,
      class: String(row.class),
      bruise_fraction: r4(fraction),
      found: fraction >= foundFraction,
      hit: fraction >= hitFraction,
      control_windows: controls.length,
      control_hits: controls.filter((c) => c >= hitFraction).length,
    };
  });
}

/** Control windows of a w x h box on the photo's fruit away from every labelled box: [marked share]. */
function controlShares(
  full: { width: number; height: number; fruit: Uint8Array; bruise: Uint8Array },
  w: number,
  h: number,
  labelled: { x0: number; y0: number; x1: number; y1: number }[],
): number[] {
  const out: number[] = [];
  if (w < 1 || h < 1) return out;
  for (let y0 = 0; y0 + h <= full.height; y0 += h)
    for (let x0 = 0; x0 + w <= full.width; x0 += w) {
      const x1 = x0 + w;
      const y1 = y0 + h;
      if (labelled.some((b) => x0 < b.x1 && b.x0 < x1 && y0 < b.y1 && b.y0 < y1)) continue;
      if (markedShare(full.fruit, full.width, x0, y0, x1, y1) < CONTROL_FRUIT_SHARE) continue;
      out.push(markedShare(full.bruise, full.width, x0, y0, x1, y1));
    }
  return out;
}

export interface BruiseEvaluation {
  method: string;
  pixel?: PixelSetResult;
  labels?: LabelSetResult;
  boxes?: BoxSetResult;
  elapsed_ms: number;
}

const IMAGE_EXT = new Set(['.jpg', '.jpeg', '.png']);

/** Decoded as the product decodes it (with maxSide: straight to the bruise plugin's working size). */
async function readImage(path: string, maxSide?: number): Promise<RasterImage> {
  return decodeImage(readFileSync(path), basename(path), undefined, { maxSide });
}

/** A CSV file with a header row, as one record per row keyed by the header (csv-parse; BOM removed). */
export function readCsv(path: string): Record<string, string>[] {
  return parse(readFileSync(path, 'utf8'), { columns: true, bom: true, skip_empty_lines: true, trim: true });
}

export function quantile(values: number[], q: number): number {
  if (values.length === 0) return NaN;
  const s = [...values].sort((a, b) => a - b);
  const pos = (s.length - 1) * q;
  const lo = Math.floor(pos);
  const hi = Math.ceil(pos);
  return s[lo] + (s[hi] - s[lo]) * (pos - lo);
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

const r4 = (v: number) => Math.round(v * 1e4) / 1e4;

export async function evaluateBruise(opts: EvaluateBruiseOptions): Promise<BruiseEvaluation> {
  const start = performance.now();
  const params = BruiseOptions.parse({
    ...(opts.options ?? {}),
    method: opts.method ?? opts.options?.method ?? 'auto',
  });
  if (!opts.images && !opts.labels && !opts.boxes) {
    throw new MangoError('INVALID_INPUT', 'nothing to evaluate: give images + truth, labels or boxes');
  }
  const out: BruiseEvaluation = { method: params.method, elapsed_ms: 0 };
  const methodsRun = new Set<string>();

  const score = async (path: string, fruitMask?: Uint8Array) => {
    const image = await readImage(path, bruise.decodeMaxSide?.(params));
    const analysis = await analyseBruise(image, params, { models: opts.models, fruitMask });
    methodsRun.add(analysis.method);
    return { analysis, summary: summariseBruise(analysis) };
  };

  if (opts.images) {
    if (!opts.truth) throw new MangoError('INVALID_INPUT', 'evaluating an image folder needs --truth');
    if (!existsSync(opts.images) || !statSync(opts.images).isDirectory()) {
      throw new MangoError('INVALID_INPUT', `images folder not found: ${opts.images}`);
    }
    const truth = openTruth(opts.truth);
    const files = readdirSync(opts.images)
      .filter((f) => IMAGE_EXT.has(extname(f).toLowerCase()) && (!opts.only || opts.only(f)))
      .sort();
    const per: PixelImageResult[] = [];
    for (const [k, f] of files.entries()) {
      const masks = await truth.masks(f);
      if (!masks) continue;
      const { fruit: tf, bruise: tb } = masks;
      const { analysis } = await score(join(opts.images, f), opts.truthFruit ? tf : undefined);
      const full = fullResolutionMasks(analysis);
      if (full.width !== masks.width || full.height !== masks.height) {
        throw new MangoError(
          'INVALID_INPUT',
          `${f}: the truth (${truth.format}) is ${masks.width}x${masks.height}, the photo ${full.width}x${full.height}`,
        );
      }
      let nf = 0;
      let nb = 0;
      let pf = 0;
      let pb = 0;
      for (let i = 0; i < tf.length; i++) {
        nf += tf[i];
        nb += tb[i];
        pf += full.fruit[i];
        pb += full.bruise[i];
      }
      const truthPct = nf ? (100 * nb) / nf : 0;
      const predPct = pf ? (100 * pb) / pf : 0;
      per.push({
        filename: f,
        truth_percent: r4(truthPct),
        predicted_percent: r4(predPct),
        fruit_iou: r4(maskIoU(full.fruit, tf)),
        bruise_iou: nb > 0 ? r4(maskIoU(full.bruise, tb)) : null,
        // fruit in the truth: its 8-connected pieces (annotations cut touching fruit apart)
        truth_fruit_count: labelComponents(tf, masks.width, masks.height, 8).count,
        fruit_count: analysis.fruitCount,
      });
      opts.onImage?.(k + 1, files.length, f);
    }
    if (per.length === 0) {
      throw new MangoError(
        'INVALID_INPUT',
        `no photo in ${opts.images} has truth in ${opts.truth} (${truth.format}): truth is matched by file name`,
      );
    }
    out.pixel = { format: truth.format, ...summarisePixelSet(per) };
  }

  if (opts.labels) {
    const dir = opts.labelsImages ?? join(dirname(opts.labels), 'images');
    const rows = readCsv(opts.labels).filter((r) => !opts.only || opts.only(r.filename));
    const per: LabelSetResult['per_image'] = [];
    for (const [k, row] of rows.entries()) {
      const { summary } = await score(join(dir, row.filename));
      per.push({
        filename: row.filename,
        class: row.class,
        lesioned: Number(row.lesioned),
        predicted_percent: summary.bruise_percent,
      });
      opts.onImage?.(k + 1, rows.length, row.filename);
    }
    out.labels = summariseLabelSet(per);
  }

  if (opts.boxes) {
    const dir = opts.boxesImages ?? join(dirname(opts.boxes), 'images');
    const wanted = new Set(opts.boxClasses ?? ['anthracnose', 'latex']);
    const minFraction = opts.boxFoundFraction ?? 0.1;
    const hitFraction = opts.boxHitFraction ?? BOX_HIT_FRACTION;
    const rows = readCsv(opts.boxes).filter((r) => !opts.only || opts.only(r.filename));
    const files = [...new Set(rows.map((r) => r.filename))];
    const per: BoxSetResult['per_box'] = [];
    for (const [k, f] of files.entries()) {
      const { analysis } = await score(join(dir, f));
      const full = fullResolutionMasks(analysis);
      per.push(
        ...scoreBoxes(
          f,
          full,
          rows.filter((r) => r.filename === f),
          wanted,
          minFraction,
          hitFraction,
        ),
      );
      opts.onImage?.(k + 1, files.length, f);
    }
    out.boxes = summariseBoxSet(per, wanted);
  }
  out.method = [...methodsRun].join('+') || params.method;
  out.elapsed_ms = Math.round(performance.now() - start);
  return out;
}

/** A printable summary table of an evaluation. */
export function formatBruiseEvaluation(ev: BruiseEvaluation): string {
  const lines: string[] = [`bruise evaluation (method ${ev.method}, ${(ev.elapsed_ms / 1000).toFixed(1)} s)`];
  const row = (k: string, v: string) => lines.push(`  ${k.padEnd(42)} ${v}`);
  const f = (v: number | null | undefined, d = 3) =>
    v === null || v === undefined || Number.isNaN(v) ? '-' : v.toFixed(d);
  if (ev.pixel) {
    const p = ev.pixel;
    lines.push(`pixel truth${p.format ? ` (${p.format})` : ''}: ${p.images} images`);
    row('fruit IoU median (min)', `${f(p.fruit_iou_median)} (${f(p.fruit_iou_min)})`);
    row('bruise IoU median (images with bruise)', f(p.bruise_iou_median));
    row(
      '|bruise_percent error| median / p90 / max',
      `${f(p.abs_error_median, 2)} / ${f(p.abs_error_p90, 2)} / ${f(p.abs_error_max, 2)}`,
    );
    row("Lin's concordance", f(p.lin_ccc));
    row(`max bruise_percent on ${p.clean_images} images without bruise`, f(p.clean_max_percent, 2));
    if (p.fruit_count_agreement != null)
      row('fruit count as in the truth (share of images)', f(p.fruit_count_agreement));
  }
  if (ev.labels) {
    const l = ev.labels;
    lines.push(`image labels: ${l.images} images`);
    row('ROC AUC healthy vs lesioned', f(l.auc));
    for (const [c, v] of Object.entries(l.median_percent_by_class)) row(`median bruise_percent ${c}`, f(v, 2));
  }
  if (ev.boxes) {
    const b = ev.boxes;
    lines.push(`defect boxes: ${b.boxes} lesion boxes`);
    row('found (>= 10% of the box marked bruise)', `${b.found}/${b.boxes} = ${f(b.found_share * 100, 1)}%`);
    row(
      `hit (>= ${BOX_HIT_FRACTION * 100}% marked) / chance on control windows`,
      `${b.hits}/${b.boxes} = ${f(b.hit_share * 100, 1)}% / ${f(b.control_hit_share * 100, 1)}% of ${b.control_windows}`,
    );
    for (const [c, v] of Object.entries(b.by_class))
      row(`  ${c} found / hit`, `${v.found}/${v.boxes} / ${v.hits}/${v.boxes}`);
  }
  return lines.join('\n');
}

/** The figures of a pixel-truth set from its per-image results (also pools the folds of a cross-validation). */
export function summarisePixelSet(per: PixelImageResult[]): PixelSetResult {
  const errors = per.map((p) => Math.abs(p.predicted_percent - p.truth_percent));
  const clean = per.filter((p) => p.truth_percent === 0);
  const bruiseIous = per.map((p) => p.bruise_iou).filter((v): v is number => v !== null);
  const counted = per.filter((p) => p.fruit_count !== undefined && p.truth_fruit_count !== undefined);
  return {
    images: per.length,
    fruit_iou_median: r4(
      quantile(
        per.map((p) => p.fruit_iou),
        0.5,
      ),
    ),
    fruit_iou_min: r4(Math.min(...per.map((p) => p.fruit_iou))),
    bruise_iou_median: bruiseIous.length ? r4(quantile(bruiseIous, 0.5)) : null,
    abs_error_median: r4(quantile(errors, 0.5)),
    abs_error_p90: r4(quantile(errors, 0.9)),
    abs_error_max: r4(Math.max(...errors)),
    lin_ccc: r4(
      linCcc(
        per.map((p) => p.truth_percent),
        per.map((p) => p.predicted_percent),
      ),
    ),
    clean_images: clean.length,
    clean_max_percent: clean.length ? Math.max(...clean.map((p) => p.predicted_percent)) : null,
    fruit_count_agreement: counted.length
      ? r4(counted.filter((p) => p.fruit_count === p.truth_fruit_count).length / counted.length)
      : null,
    per_image: per,
  };
}

/** The figures of an image-label set from its per-image results. */
export function summariseLabelSet(per: LabelSetResult['per_image']): LabelSetResult {
  const classes = [...new Set(per.map((p) => p.class))].sort();
  return {
    images: per.length,
    auc: r4(
      rocAuc(
        per.map((p) => p.predicted_percent),
        per.map((p) => p.lesioned === 1),
      ),
    ),
    median_percent_by_class: Object.fromEntries(
      classes.map((c) => [
        c,
        r4(
          quantile(
            per.filter((p) => p.class === c).map((p) => p.predicted_percent),
            0.5,
          ),
        ),
      ]),
    ),
    per_image: per,
  };
}

/** The figures of a defect-box set from its per-box results (`wanted`: the classes that count). */
export function summariseBoxSet(per: BoxSetResult['per_box'], wanted: Set<string>): BoxSetResult {
  const byClass: BoxSetResult['by_class'] = {};
  for (const p of per) {
    byClass[p.class] ??= { boxes: 0, found: 0, hits: 0 };
    byClass[p.class].boxes++;
    if (p.found) byClass[p.class].found++;
    if (p.hit) byClass[p.class].hits++;
  }
  const counted = per.filter((p) => wanted.has(p.class));
  const found = counted.filter((p) => p.found).length;
  const hits = counted.filter((p) => p.hit).length;
  const windows = counted.reduce((a, p) => a + (p.control_windows ?? 0), 0);
  const controlHits = counted.reduce((a, p) => a + (p.control_hits ?? 0), 0);
  return {
    boxes: counted.length,
    found,
    found_share: counted.length ? r4(found / counted.length) : NaN,
    hits,
    hit_share: counted.length ? r4(hits / counted.length) : NaN,
    control_windows: windows,
    control_hit_share: windows ? r4(controlHits / windows) : NaN,
    by_class: byClass,
    per_box: per,
  };
}

export { openTruth, cocoFile, cocoPhoto, maskFromImage, regionsOfMasks } from './truth.ts';
export type { PixelTruth, TruthFormat, TruthMasks, PhotoRegions, CocoPhoto } from './truth.ts';
