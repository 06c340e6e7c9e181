import type { LabelBox, RasterImage } from '@mango/core';
import { rgb8ToLab } from '@mango/core';

/**
 * One fruit cut out of the image: its bounding box in CIELAB (crop coordinates, row-major), with
 * the fruit's own pixels marked. Every step of the classical detector works on one crop, with that
 * fruit's own peel statistics.
 */
export interface FruitCrop {
  width: number;
  height: number;
  /** 1 = a pixel of this fruit; the rest of the box is never read */
  fruit: Uint8Array;
  L: Float32Array;
  A: Float32Array;
  B: Float32Array;
  /** fruit pixels */
  area: number;
  /** equivalent diameter, 2 sqrt(area / pi): the length every spatial constant is a fraction of */
  diameter: number;
  /** crop pixel (x, y) stands for the box's factor x factor block at (factor x, factor y) */
  factor: number;
}

/**
 * The crop of fruit `label` in `box`: CIELAB of the fruit's pixels only. With `factor` > 1 each crop
 * pixel is a factor x factor block of the box: fruit when at least half of the block's pixels are
 * (of the part of the block inside the box), its colour the mean RGB of those fruit pixels (rounded
 * to 8 bits). With factor 1 it is the box pixel for pixel (a fruit pixel is its own block).
 */
export function cropFruit(image: RasterImage, labels: Int32Array, label: number, box: LabelBox, factor = 1): FruitCrop {
  const { x0, y0, x1, y1 } = box;
  const W = image.width;
  const f = Math.max(1, Math.floor(factor));
  const bw = x1 - x0 + 1;
  const bh = y1 - y0 + 1;
  const w = Math.ceil(bw / f);
  const h = Math.ceil(bh / f);
  const fruit = new Uint8Array(w * h);
  const L = new Float32Array(w * h);
  const A = new Float32Array(w * h);
  const B = new Float32Array(w * h);
  const lab = new Float64Array(3);
  const data = image.data;
  // Block column of each box column.
  const cellX = new Int32Array(bw);
  for (let X = 0; X < bw; X++) cellX[X] = Math.floor(X / f) * 4;
  // Per block: count and RGB sums of the fruit pixels, a row of blocks at a time.
  const sums = new Float64Array(w * 4);
  let area = 0;
  for (let y = 0; y < h; y++) {
    sums.fill(0);
    const by0 = y0 + y * f;
    const by1 = Math.min(y1 + 1, by0 + f);
    for (let Y = by0; Y < by1; Y++)
      for (let X = 0, i = Y * W + x0; X < bw; X++, i++) {
        if (labels[i] !== label) continue;
        const j = i * 4;
        const s = cellX[X];
        sums[s]++;
        sums[s + 1] += data[j];
        sums[s + 2] += data[j + 1];
        sums[s + 3] += data[j + 2];
      }
    for (let x = 0; x < w; x++) {
      const c = sums[x * 4];
      const blockPixels = (Math.min(bw, (x + 1) * f) - x * f) * (by1 - by0);
      if (c === 0 || 2 * c < blockPixels) continue;
      const i = y * w + x;
      fruit[i] = 1;
      area++;
      rgb8ToLab(Math.round(sums[x * 4 + 1] / c), Math.round(sums[x * 4 + 2] / c), Math.round(sums[x * 4 + 3] / c), lab);
      L[i] = lab[0];
      A[i] = lab[1];
      B[i] = lab[2];
    }
  }
  return { width: w, height: h, fruit, L, A, B, area, diameter: 2 * Math.sqrt(area / Math.PI), factor: f };
}
