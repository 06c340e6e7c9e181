/**
 * Evaluation of the bruise plugin (Node only: reads files), the `./eval` entry of the package. Three
 * kinds of ground truth: (a) pixel truth (images + a truth in one of the formats of eval/truth.ts),
 * (b) image labels healthy vs lesioned (labels.csv: filename,class,lesioned), (c) defect boxes
 * (boxes.csv: filename,class,x,y,w,h; eval/boxes.ts). The CLI's `mango eval bruise --images DIR
 * --truth DIR` calls evaluateBruise and prints formatBruiseEvaluation; the figures are eval/metrics.ts.
 */
import { existsSync, readFileSync, readdirSync, statSync } from 'node:fs';
import { basename, dirname, extname, join } from 'node:path';
import type { ModelLoader, RasterImage } from '@mango/core';
import { MangoError, resizeMaskNearest } from '@mango/core';
import { decodeImage, readCsv } from '@mango/core/node';
import { analyseBruise, fullResolutionMasks, summariseBruise } from '../analyse.ts';
import bruise from '../index.ts';
import { BruiseOptions, type BruiseOptionsInput } from '../schema.ts';
import { BOX_HIT_FRACTION, scoreBoxes, summariseBoxSet, type BoxSetResult } from './boxes.ts';
import {
  scorePixelImage,
  summariseLabelSet,
  summarisePixelSet,
  type LabelSetResult,
  type PixelImageResult,
  type PixelSetResult,
} from './metrics.ts';
import { openTruth } from './truth.ts';

export type { BoxSetResult, LabelSetResult, PixelSetResult };

export interface EvaluateBruiseOptions {
  /** folder of images with pixel truth (needs `truth`) */
  images?: string;
  /**
   * the pixel truth: a folder holding fruit_masks/ and bruise_masks/ (<stem>.png, 255 = set), a COCO
   * file, a CVAT "Segmentation mask 1.1" folder or a Label Studio JSON export (eval/truth.ts)
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

/** Scores the bruise plugin on each kind of truth given (pixel truth, image labels, defect boxes). */
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
      const { analysis } = await score(join(opts.images, f), opts.truthFruit ? masks.fruit : undefined);
      const full = fullResolutionMasks(analysis);
      if (full.width !== masks.width || full.height !== masks.height) {
        throw new MangoError(
          'INVALID_INPUT',
          `${f}: the truth (${truth.format}) is ${masks.width}x${masks.height}, the photo ${full.width}x${full.height}`,
        );
      }
      const { width: w, height: h } = analysis.work;
      const fruitLabels = resizeMaskNearest(analysis.fruitLabels, w, h, full.width, full.height);
      per.push(scorePixelImage(f, { ...full, fruitCount: analysis.fruitCount, fruitLabels }, masks));
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
