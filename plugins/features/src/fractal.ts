/**
 * Box-counting dimensions ("factual" features) and the Otsu threshold they use, written after the
 * reference's boxcount_dimension and skimage.filters.threshold_otsu on uint8 values.
 */
import { boundingBox, erodeCross } from './maskOps.ts';

/** skimage threshold_otsu of the G8 values under the mask (integer histogram from min to max). */
export function otsuThreshold(g8: Uint8Array, mask: Uint8Array): number {
  const counts = new Float64Array(256);
  let lo = 255;
  let hi = 0;
  for (let i = 0; i < mask.length; i++) {
    if (!mask[i]) continue;
    const v = g8[i];
    counts[v]++;
    if (v < lo) lo = v;
    if (v > hi) hi = v;
  }
  if (lo === hi) return lo;
  const nb = hi - lo + 1;
  const w1 = new Float64Array(nb);
  const w2 = new Float64Array(nb);
  const m1 = new Float64Array(nb);
  const m2 = new Float64Array(nb);
  let cw = 0;
  let cs = 0;
  for (let k = 0; k < nb; k++) {
    cw += counts[lo + k];
    cs += counts[lo + k] * (lo + k);
    w1[k] = cw;
    m1[k] = cs / cw;
  }
  cw = 0;
  cs = 0;
  for (let k = nb - 1; k >= 0; k--) {
    cw += counts[lo + k];
    cs += counts[lo + k] * (lo + k);
    w2[k] = cw;
    m2[k] = cs / cw;
  }
  let best = -Infinity;
  let idx = 0;
  for (let k = 0; k < nb - 1; k++) {
    const d = m1[k] - m2[k + 1];
    const v = w1[k] * w2[k + 1] * (d * d);
    if (v > best) {
      best = v;
      idx = k;
    }
  }
  return lo + idx;
}

/**
 * Box-counting dimension of a binary image (h x w): box sizes 2^(n-2) .. 2 with
 * n = floor(log2(min(h, w))), complete boxes only from the top-left corner; 'mixed' counts boxes
 * holding both values, 'occupied' boxes holding any 1. Minus the least-squares slope of
 * log(count) on log(size) over sizes with count > 0; 0 with fewer than two such sizes.
 */
export function boxcountDimension(z: Uint8Array, w: number, h: number, count: 'mixed' | 'occupied'): number {
  const p = Math.min(w, h);
  if (p < 4) return 0;
  const n = Math.floor(Math.log2(p));
  const xs: number[] = [];
  const ys: number[] = [];
  // integral image for O(1) box sums
  const integral = new Int32Array((w + 1) * (h + 1));
  for (let y = 0; y < h; y++) {
    let rowSum = 0;
    for (let x = 0; x < w; x++) {
      rowSum += z[y * w + x];
      integral[(y + 1) * (w + 1) + x + 1] = integral[y * (w + 1) + x + 1] + rowSum;
    }
  }
  for (let e = n - 2; e >= 1; e--) {
    const k = 2 ** e;
    const by = Math.floor(h / k);
    const bx = Math.floor(w / k);
    let c = 0;
    for (let j = 0; j < by; j++)
      for (let i = 0; i < bx; i++) {
        const y0 = j * k;
        const x0 = i * k;
        const s =
          integral[(y0 + k) * (w + 1) + x0 + k] -
          integral[y0 * (w + 1) + x0 + k] -
          integral[(y0 + k) * (w + 1) + x0] +
          integral[y0 * (w + 1) + x0];
        if (count === 'mixed' ? s > 0 && s < k * k : s > 0) c++;
      }
    if (c > 0) {
      xs.push(Math.log(k));
      ys.push(Math.log(c));
    }
  }
  if (xs.length < 2) return 0;
  const m = xs.length;
  const mx = xs.reduce((s, v) => s + v, 0) / m;
  const my = ys.reduce((s, v) => s + v, 0) / m;
  let sxy = 0;
  let sxx = 0;
  for (let i = 0; i < m; i++) {
    sxy += (xs[i] - mx) * (ys[i] - my);
    sxx += (xs[i] - mx) * (xs[i] - mx);
  }
  return -(sxy / sxx);
}

function crop(src: Uint8Array, width: number, box: { x: number; y: number; width: number; height: number }) {
  const out = new Uint8Array(box.width * box.height);
  for (let y = 0; y < box.height; y++)
    out.set(src.subarray((box.y + y) * width + box.x, (box.y + y) * width + box.x + box.width), y * box.width);
  return out;
}

/**
 * fractal_dimension_texture: mixed boxes of (G8 > Otsu(G8 over M)) & M cropped to M's bounding box
 * (threshold 256, i.e. nothing above it, when M holds a single grey level);
 * fractal_dimension_outline: occupied boxes of the object's inner 4-connected boundary.
 */
export function fractalFeatures(g8: Uint8Array, mask: Uint8Array, object: Uint8Array, width: number, height: number) {
  let lo = 255;
  let hi = 0;
  for (let i = 0; i < mask.length; i++)
    if (mask[i]) {
      if (g8[i] < lo) lo = g8[i];
      if (g8[i] > hi) hi = g8[i];
    }
  const thr = hi > lo ? otsuThreshold(g8, mask) : 256;
  const texture = new Uint8Array(mask.length);
  for (let i = 0; i < mask.length; i++) texture[i] = mask[i] && g8[i] > thr ? 1 : 0;
  const mbox = boundingBox(mask, width, height)!;
  const textureDim = boxcountDimension(crop(texture, width, mbox), mbox.width, mbox.height, 'mixed');
  const eroded = erodeCross(object, width, height);
  const edge = new Uint8Array(object.length);
  for (let i = 0; i < edge.length; i++) edge[i] = object[i] && !eroded[i] ? 1 : 0;
  const obox = boundingBox(object, width, height)!;
  const outlineDim = boxcountDimension(crop(edge, width, obox), obox.width, obox.height, 'occupied');
  return { fractal_dimension_texture: textureDim, fractal_dimension_outline: outlineDim };
}
