/**
 * The figures of a photo whose masks a person corrected (issue 28: the mask editor, stored truth).
 * The same counting as the plugin's (`summariseBruise`): the masks may be at a working resolution
 * smaller than the photo (the editor's) or at its size (the stored truth); either way the pixel
 * counts are those of the masks upsampled to the photo (nearest neighbour), so the editor's live
 * figures equal the ones the server stores. Browser-safe.
 */
import { labelComponents, resizeMaskNearest, type RasterImage } from '@mango/core';
import { summariseBruise, type BruiseAnalysis } from './analyse.ts';
import {
  overlayDecorations,
  renderOverlay,
  type OverlayCircle,
  type OverlayMarks,
  type OverlayQuad,
} from './overlay.ts';
import { type BruiseFruit } from './results.ts';

export interface CorrectedMasks {
  /** the masks' size (the photo's, or a working copy's) */
  width: number;
  height: number;
  /** 1 = fruit (a lesion is on its fruit: set lesion pixels count as fruit) */
  fruit: Uint8Array;
  /** 1 = bruised peel */
  bruise: Uint8Array;
}

/**
 * The figures of corrected masks: `work` is the photo at the masks' size (its colours give the
 * colour difference), `photo` the photo's own size, `pxPerCm` its scale when it had one.
 */
export function figuresOfMasks(
  masks: CorrectedMasks,
  work: RasterImage,
  photo: { width: number; height: number },
  pxPerCm?: number,
) {
  const { width, height } = masks;
  if (work.width !== width || work.height !== height)
    throw new Error(`the photo copy is ${work.width}x${work.height}, the masks ${width}x${height}`);
  const n = width * height;
  if (masks.fruit.length !== n || masks.bruise.length !== n)
    throw new Error(`masks of ${width}x${height} need ${n} pixels each`);
  const fruit = new Uint8Array(n);
  const bruise = new Uint8Array(n);
  for (let i = 0; i < n; i++) {
    bruise[i] = masks.bruise[i] ? 1 : 0;
    fruit[i] = masks.fruit[i] || bruise[i] ? 1 : 0;
  }
  const labels = labelComponents(fruit, width, height, 8);
  const analysis: BruiseAnalysis = {
    width: photo.width,
    height: photo.height,
    work,
    fruitLabels: labels.labels,
    fruitCount: labels.count,
    fruit,
    bruise,
    method: 'classical',
  };
  const { method: _m, width: _w, height: _h, ...figures } = summariseBruise(analysis, pxPerCm);
  return figures;
}

/**
 * The overlay of corrected masks on `photo` (long side at most `maxSide`), drawn as the plugin draws
 * its own (`renderOverlay`: the same colours and outlines): a lesion counts as fruit, as in the
 * figures. The masks may be at the photo's size or a working copy's (upsampled, nearest neighbour).
 */
export function overlayOfMasks(
  photo: RasterImage,
  masks: CorrectedMasks,
  maxSide: number,
  marks?: { reference?: OverlayCircle; card?: OverlayQuad },
): RasterImage {
  const { width, height } = masks;
  const n = width * height;
  if (masks.fruit.length !== n || masks.bruise.length !== n)
    throw new Error(`masks of ${width}x${height} need ${n} pixels each`);
  const fruit = new Uint8Array(n);
  for (let i = 0; i < n; i++) fruit[i] = masks.fruit[i] || masks.bruise[i] ? 1 : 0;
  const atPhoto = (m: Uint8Array) =>
    width === photo.width && height === photo.height
      ? m
      : resizeMaskNearest(m, width, height, photo.width, photo.height);
  return renderOverlay(photo, atPhoto(fruit), atPhoto(masks.bruise), maxSide, marks?.reference, marks?.card);
}

/** The long side of a bruise overlay when the run's options give none (`overlayMaxSide`'s default and largest). */
export const OVERLAY_MAX_SIDE = 1600;

/**
 * The overlay of a photo's corrected masks as the model's overlay of it is drawn: the same colours
 * and outlines, the reference ring and the colour-card outline its result (`model`, the model's
 * stored result) recorded, at `maxSide` (default: the run's `overlayMaxSide`, as the model's
 * overlay). `photo` may be a reduced copy of the photo; `masks` are at the photo's own size (the
 * stored truth), which the marks' coordinates are in.
 */
export function correctedOverlay(
  model: OverlayMarks,
  masks: CorrectedMasks,
  photo: RasterImage,
  options: { overlayMaxSide?: unknown },
  maxSide?: number,
): RasterImage {
  return overlayOfMasks(photo, masks, maxSide ?? overlaySideOf(options), overlayDecorations(model, masks.width));
}

/** The long side of a run's overlays: its `overlayMaxSide`, else the default. */
export const overlaySideOf = (options: { overlayMaxSide?: unknown }) =>
  typeof options.overlayMaxSide === 'number' ? options.overlayMaxSide : OVERLAY_MAX_SIDE;

type Fruit = Pick<BruiseFruit, 'bbox' | 'pixels' | 'bruise_pixels' | 'bruise_percent'>;

/** The model's fruit that overlaps `f` most (bounding boxes), or undefined when none overlaps it. */
function modelFruitOf(f: Fruit, model: readonly Fruit[]): Fruit | undefined {
  let best: Fruit | undefined;
  let bestArea = 0;
  for (const m of model) {
    const w = Math.min(f.bbox.x + f.bbox.width, m.bbox.x + m.bbox.width) - Math.max(f.bbox.x, m.bbox.x);
    const h = Math.min(f.bbox.y + f.bbox.height, m.bbox.y + m.bbox.height) - Math.max(f.bbox.y, m.bbox.y);
    if (w > 0 && h > 0 && w * h > bestArea) {
      best = m;
      bestArea = w * h;
    }
  }
  return best;
}

interface ModelFigures {
  total_mango_pixels: number;
  bruise_pixels: number;
  bruise_percent: number;
  fruits: readonly Fruit[];
  px_per_cm?: number;
}

/**
 * A photo's result with corrected masks: the model's result (its name, method, model, scale and
 * warnings kept) with the figures of the masks in force, `corrected: true`, and the model's own
 * figures beside them (`model_fruit_pixels`, ...; per fruit those of the model's fruit it overlaps most).
 */
export function correctedResult<R extends ModelFigures>(
  model: R,
  masks: CorrectedMasks,
  work: RasterImage,
  photo: { width: number; height: number },
) {
  const figures = figuresOfMasks(masks, work, photo, model.px_per_cm);
  const { grades: _grades, ...kept } = model as R & { grades?: string };
  return {
    ...kept,
    ...figures,
    fruits: figures.fruits.map((f) => {
      const m = modelFruitOf(f, model.fruits);
      return {
        ...f,
        model_pixels: m?.pixels ?? null,
        model_bruise_pixels: m?.bruise_pixels ?? null,
        model_bruise_percent: m?.bruise_percent ?? null,
      };
    }),
    corrected: true,
    model_fruit_pixels: model.total_mango_pixels,
    model_bruise_pixels: model.bruise_pixels,
    model_bruise_percent: model.bruise_percent,
  };
}
