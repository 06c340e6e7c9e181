/**
 * Per-fruit features (issue 27 item 3): every fruit of a labelled fruit image (the bruise plugin's
 * `fruit-labels`: 1..count, 0 = not fruit) measured on its own, at the photo's resolution. A fruit's
 * image is its bounding box cut from the photo with alpha 255 on the fruit and 0 elsewhere, so the
 * features' mask rule (M = alpha >= 128) makes M exactly that fruit; every value is the one
 * scikit-image gives on that crop (features.md), `area_fraction` therefore relative to the box.
 * With a scale, the lengths and areas are also given in cm and cm² (`scaled`).
 */
import type { RasterImage } from '@mango/core';
import { computeFeatures, type FeatureValues } from './computeFeatures.ts';
import { type FeatureId } from './names.ts';

export interface FruitBox {
  x: number;
  y: number;
  width: number;
  height: number;
}

/** The bounding box of each fruit number 1..count (index n - 1; null when the number has no pixel). */
export function labelBoundingBoxes(
  labels: Uint8Array,
  width: number,
  height: number,
  count: number,
): (FruitBox | null)[] {
  const x0 = new Int32Array(count + 1).fill(width);
  const y0 = new Int32Array(count + 1).fill(height);
  const x1 = new Int32Array(count + 1).fill(-1);
  const y1 = new Int32Array(count + 1).fill(-1);
  for (let y = 0; y < height; y++) {
    const row = y * width;
    for (let x = 0; x < width; x++) {
      const l = labels[row + x];
      if (!l || l > count) continue;
      if (x < x0[l]) x0[l] = x;
      if (x > x1[l]) x1[l] = x;
      if (y < y0[l]) y0[l] = y;
      y1[l] = y;
    }
  }
  return Array.from({ length: count }, (_, i) => {
    const l = i + 1;
    return x1[l] < 0 ? null : { x: x0[l], y: y0[l], width: x1[l] - x0[l] + 1, height: y1[l] - y0[l] + 1 };
  });
}

/** Fruit `n`'s image: its box of the photo, alpha 255 on its pixels and 0 on every other pixel. */
export function fruitCrop(image: RasterImage, labels: Uint8Array, n: number, box: FruitBox): RasterImage {
  const data = new Uint8ClampedArray(box.width * box.height * 4);
  for (let y = 0; y < box.height; y++) {
    const src = (box.y + y) * image.width + box.x;
    const dst = y * box.width;
    data.set(image.data.subarray(src * 4, (src + box.width) * 4), dst * 4);
    for (let x = 0; x < box.width; x++) data[(dst + x) * 4 + 3] = labels[src + x] === n ? 255 : 0;
  }
  return { width: box.width, height: box.height, data };
}

/** Values in pixels that have a length (power 1) or an area (power 2): their name in cm or cm². */
export const SCALED_VALUES: readonly { name: string; feature: FeatureId; value: string; power: 1 | 2 }[] = [
  { name: 'area_cm2', feature: 'area', value: 'area', power: 2 },
  { name: 'convex_area_cm2', feature: 'area', value: 'convex_area', power: 2 },
  { name: 'equivalent_diameter_cm', feature: 'area', value: 'equivalent_diameter', power: 1 },
  { name: 'perimeter_cm', feature: 'perimeter', value: 'perimeter', power: 1 },
  { name: 'perimeter_crofton_cm', feature: 'perimeter', value: 'perimeter_crofton', power: 1 },
  { name: 'major_axis_length_cm', feature: 'eccentricity', value: 'major_axis_length', power: 1 },
  { name: 'minor_axis_length_cm', feature: 'eccentricity', value: 'minor_axis_length', power: 1 },
];

/** The scaled names of the groups `ids`, in SCALED_VALUES order (the CSV's columns). */
export const scaledNames = (ids: readonly string[]) =>
  SCALED_VALUES.filter((s) => ids.includes(s.feature)).map((s) => s.name);

/** The computed lengths and areas in cm and cm² at `pxPerCm` pixels per centimetre. */
export function scaledValues(values: FeatureValues, pxPerCm: number): Record<string, number> {
  const out: Record<string, number> = {};
  for (const s of SCALED_VALUES) {
    const v = values[s.feature]?.[s.value];
    if (v !== undefined) out[s.name] = v / pxPerCm ** s.power;
  }
  return out;
}

export interface MeasuredFruit {
  /** 1-based, as in the labels */
  fruit: number;
  bbox: FruitBox;
  features: FeatureValues;
  scaled?: Record<string, number>;
}

/**
 * The features `ids` of every fruit 1..count of `labels` (the photo's size), each on its own crop
 * and mask; a number without pixels is left out. `onFruit` reports progress after each fruit.
 */
export function fruitFeatures(
  image: RasterImage,
  labels: Uint8Array,
  count: number,
  ids: readonly FeatureId[],
  options: { pxPerCm?: number; onFruit?: (done: number, count: number) => void; checkAbort?: () => void } = {},
): MeasuredFruit[] {
  const boxes = labelBoundingBoxes(labels, image.width, image.height, count);
  const out: MeasuredFruit[] = [];
  boxes.forEach((bbox, i) => {
    if (!bbox) return;
    options.checkAbort?.();
    const features = computeFeatures(fruitCrop(image, labels, i + 1, bbox), ids, { checkAbort: options.checkAbort });
    out.push({
      fruit: i + 1,
      bbox,
      features,
      ...(options.pxPerCm ? { scaled: scaledValues(features, options.pxPerCm) } : {}),
    });
    options.onFruit?.(i + 1, count);
  });
  return out;
}
