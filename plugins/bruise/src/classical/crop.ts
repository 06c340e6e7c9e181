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
}

/** The crop of fruit `label` in `box`: CIELAB of the fruit's pixels only. */
export function cropFruit(image: RasterImage, labels: Int32Array, label: number, box: LabelBox): FruitCrop {
  const { x0, y0, x1, y1 } = box;
  const W = image.width;
  const w = x1 - x0 + 1;
  const h = y1 - y0 + 1;
  const fruit = new Uint8Array(w * h);
  const L = new Float32Array(w * h);
  const A = new Float32Array(w * h);
  const B = new Float32Array(w * h);
  const lab = new Float64Array(3);
  const data = image.data;
  for (let y = 0; y < h; y++) {
    const srcRow = (y + y0) * W + x0;
    for (let x = 0; x < w; x++) {
      if (labels[srcRow + x] !== label) continue;
      const i = y * w + x;
      const j = (srcRow + x) * 4;
      fruit[i] = 1;
      rgb8ToLab(data[j], data[j + 1], data[j + 2], lab);
      L[i] = lab[0];
      A[i] = lab[1];
      B[i] = lab[2];
    }
  }
  return { width: w, height: h, fruit, L, A, B, area: box.area, diameter: 2 * Math.sqrt(box.area / Math.PI) };
}
