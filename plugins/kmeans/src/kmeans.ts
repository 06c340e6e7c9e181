/**
 * Supervised-seeded k-means over RGB (product-spec.md section 9): the initial centres are the mean
 * colours of each class's sample rectangles, then exactly 10 rounds of "assign every pixel to the
 * nearest centre (Euclidean in RGB, ties to the lower class index), recompute each centre as the mean
 * of its pixels (a class left without pixels keeps its centre)". The percentages come from the last
 * assignment. plugins/kmeans/fixtures/kmeans_ref.py implements the same definition with numpy.
 */
import { invalidInput, type RasterImage } from '@mango/core';
import { KMEANS_ITERATIONS, type KMeansClass, type RgbColor } from './schema.ts';

/**
 * Pixel bounds of a region: columns floor(x) <= c < floor(x + width), rows likewise, clipped to the
 * image. Returns null when nothing is left.
 */
export function regionBounds(
  region: { x: number; y: number; width: number; height: number },
  imageWidth: number,
  imageHeight: number,
): { x0: number; y0: number; x1: number; y1: number } | null {
  const x0 = Math.max(0, Math.floor(region.x));
  const y0 = Math.max(0, Math.floor(region.y));
  const x1 = Math.min(imageWidth, Math.floor(region.x + region.width));
  const y1 = Math.min(imageHeight, Math.floor(region.y + region.height));
  return x1 > x0 && y1 > y0 ? { x0, y0, x1, y1 } : null;
}

/**
 * Initial centres: the mean colour of each class's samples. Every rectangle contributes its pixels,
 * so a pixel under two rectangles of one class counts twice (each drag on the page adds samples).
 */
export function initialCentres(image: RasterImage, classes: readonly KMeansClass[]): Float64Array {
  const centres = new Float64Array(classes.length * 3);
  const d = image.data;
  classes.forEach((cls, k) => {
    let n = 0;
    let r = 0;
    let g = 0;
    let b = 0;
    for (const region of cls.regions) {
      const box = regionBounds(region, image.width, image.height);
      if (!box) continue;
      for (let y = box.y0; y < box.y1; y++) {
        for (let i = (y * image.width + box.x0) * 4, end = (y * image.width + box.x1) * 4; i < end; i += 4) {
          r += d[i];
          g += d[i + 1];
          b += d[i + 2];
        }
      }
      n += (box.x1 - box.x0) * (box.y1 - box.y0);
    }
    if (n === 0) {
      throw invalidInput(
        `class "${cls.name}" has no samples: draw at least one rectangle of it inside the image (${image.width}x${image.height})`,
      );
    }
    centres[k * 3] = r / n;
    centres[k * 3 + 1] = g / n;
    centres[k * 3 + 2] = b / n;
  });
  return centres;
}

/** Index of the nearest centre to (r, g, b); strict comparison gives ties to the lower index. */
function nearest(centres: Float64Array, k: number, r: number, g: number, b: number): number {
  let best = 0;
  let bestD = Infinity;
  for (let c = 0, j = 0; c < k; c++, j += 3) {
    const dr = r - centres[j];
    const dg = g - centres[j + 1];
    const db = b - centres[j + 2];
    const dist = dr * dr + dg * dg + db * db;
    if (dist < bestD) {
      bestD = dist;
      best = c;
    }
  }
  return best;
}

/** Sets each centre to the mean of its members; sums are exact integers in float64. */
function updateCentres(centres: Float64Array, sums: Float64Array, counts: Float64Array): void {
  for (let c = 0; c < counts.length; c++) {
    if (counts[c] === 0) continue; // a class that lost all its pixels keeps its centre
    centres[c * 3] = sums[c * 3] / counts[c];
    centres[c * 3 + 1] = sums[c * 3 + 1] / counts[c];
    centres[c * 3 + 2] = sums[c * 3 + 2] / counts[c];
  }
}

export interface Clustering {
  /** class index per pixel from the last assignment (empty when not asked for) */
  labels: Uint8Array;
  /** pixels per class from the last assignment */
  counts: Float64Array;
  /** centres after the last update, 3 per class */
  centres: Float64Array;
}

/** Straightforward version: every pixel, every round. */
function clusterPixels(image: RasterImage, centres: Float64Array, o: Required<ClusterOptions>): Clustering {
  const k = centres.length / 3;
  const d = image.data;
  const n = image.width * image.height;
  const labels = new Uint8Array(n);
  const sums = new Float64Array(k * 3);
  const counts = new Float64Array(k);
  for (let it = 0; it < o.iterations; it++) {
    sums.fill(0);
    counts.fill(0);
    for (let p = 0, i = 0; p < n; p++, i += 4) {
      const r = d[i];
      const g = d[i + 1];
      const b = d[i + 2];
      const c = nearest(centres, k, r, g, b);
      labels[p] = c;
      counts[c]++;
      sums[c * 3] += r;
      sums[c * 3 + 1] += g;
      sums[c * 3 + 2] += b;
    }
    updateCentres(centres, sums, counts);
    o.afterRound(it + 1);
  }
  return { labels, counts, centres };
}

/**
 * Same result, computed on the histogram of distinct colours: pixels of equal colour always share a
 * class, so each round visits each distinct colour once, weighted by its pixel count. A photo of 12
 * megapixels has a few hundred thousand distinct colours, which makes the ten rounds cheap.
 */
function clusterHistogram(image: RasterImage, centres: Float64Array, o: Required<ClusterOptions>): Clustering {
  const k = centres.length / 3;
  const d = image.data;
  const n = image.width * image.height;
  // Pixel count per 24-bit colour; the distinct colours are listed as they are first met.
  const slot = new Uint32Array(1 << 24);
  let firstSeen = new Uint32Array(1 << 16);
  let distinct = 0;
  for (let i = 0; i < d.length; i += 4) {
    const key = (d[i] << 16) | (d[i + 1] << 8) | d[i + 2];
    if (slot[key]++ === 0) {
      if (distinct === firstSeen.length) {
        const grown = new Uint32Array(firstSeen.length * 2);
        grown.set(firstSeen);
        firstSeen = grown;
      }
      firstSeen[distinct++] = key;
    }
  }
  const colours = firstSeen.subarray(0, distinct);
  const weights = new Float64Array(distinct);
  for (let u = 0; u < distinct; u++) weights[u] = slot[colours[u]];
  const colourLabels = new Uint8Array(distinct);
  const sums = new Float64Array(k * 3);
  const counts = new Float64Array(k);
  for (let it = 0; it < o.iterations; it++) {
    sums.fill(0);
    counts.fill(0);
    for (let u = 0; u < distinct; u++) {
      const key = colours[u];
      const r = key >>> 16;
      const g = (key >>> 8) & 255;
      const b = key & 255;
      const c = nearest(centres, k, r, g, b);
      const w = weights[u];
      colourLabels[u] = c;
      counts[c] += w;
      sums[c * 3] += w * r;
      sums[c * 3 + 1] += w * g;
      sums[c * 3 + 2] += w * b;
    }
    updateCentres(centres, sums, counts);
    o.afterRound(it + 1);
  }
  if (!o.labels) return { labels: new Uint8Array(0), counts, centres };
  // The count table is no longer needed: reuse its bytes as the label of each colour.
  const labelOf = new Uint8Array(slot.buffer, 0, 1 << 24);
  for (let u = 0; u < distinct; u++) labelOf[colours[u]] = colourLabels[u];
  const labels = new Uint8Array(n);
  for (let p = 0, i = 0; p < n; p++, i += 4) labels[p] = labelOf[(d[i] << 16) | (d[i + 1] << 8) | d[i + 2]];
  return { labels, counts, centres };
}

/** Below this many pixels the 64 MB colour table costs more than it saves. */
const HISTOGRAM_MIN_PIXELS = 1 << 20;

export type ClusterStrategy = 'auto' | 'pixels' | 'histogram';

export interface ClusterOptions {
  /** rounds of assign + update; default 10 (product-spec.md section 9) */
  iterations?: number;
  /** 'auto' uses the colour histogram from a megapixel up; both give identical results */
  strategy?: ClusterStrategy;
  /** compute the per-pixel labels (default true) */
  labels?: boolean;
  /** called after each round, e.g. to report progress or throw when cancelled */
  afterRound?: (round: number) => void;
}

/** Runs the rounds from the given initial centres (copied, not modified). */
export function clusterColours(image: RasterImage, initial: Float64Array, options: ClusterOptions = {}): Clustering {
  const o: Required<ClusterOptions> = {
    iterations: options.iterations ?? KMEANS_ITERATIONS,
    strategy: options.strategy ?? 'auto',
    labels: options.labels ?? true,
    afterRound: options.afterRound ?? (() => {}),
  };
  const centres = new Float64Array(initial);
  const useHistogram =
    o.strategy === 'histogram' || (o.strategy === 'auto' && image.width * image.height >= HISTOGRAM_MIN_PIXELS);
  return useHistogram ? clusterHistogram(image, centres, o) : clusterPixels(image, centres, o);
}

/** Percent of the image per class with 2 decimals, as the table and the result file show it. */
export function percentages(counts: Float64Array, total: number): string[] {
  return Array.from(counts, (c) => ((c / total) * 100).toFixed(2));
}

/** A copy of the image where every pixel takes the colour of its class (opaque). */
export function recolor(image: RasterImage, labels: Uint8Array, colors: readonly RgbColor[]): RasterImage {
  const n = image.width * image.height;
  if (labels.length !== n) throw invalidInput(`expected ${n} labels, got ${labels.length}`);
  const data = new Uint8ClampedArray(n * 4);
  for (let p = 0, i = 0; p < n; p++, i += 4) {
    const c = colors[labels[p]];
    if (!c) throw invalidInput(`label ${labels[p]} at pixel ${p} has no colour`);
    data[i] = c[0];
    data[i + 1] = c[1];
    data[i + 2] = c[2];
    data[i + 3] = 255;
  }
  return { width: image.width, height: image.height, data };
}
