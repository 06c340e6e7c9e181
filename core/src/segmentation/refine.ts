/**
 * From the coarse (downscaled) segmentation to full resolution: blocks far from the outline are
 * copied, blocks near it are classified pixel by pixel with the same colour score, then cleaned
 * (specks not connected to a fruit dropped, enclosed background filled) and feathered.
 */
import { rgbaToLabPlanes } from '../color.ts';
import { dilateSquare } from '../mask.ts';
import type { RasterImage } from '../image.ts';
import { fruitScore, type BackgroundMode } from './background.ts';

export interface CoarseSegmentation {
  width: number;
  height: number;
  factor: number;
  mask: Uint8Array;
  labels: Int32Array;
}

export interface FullResolution {
  mask: Uint8Array;
  alpha: Uint8Array;
  /** built on first access (a 12-megapixel label image costs 48 MB that a cut-out never needs) */
  readonly labels: Int32Array;
  /** pixels of `mask` that are set */
  pixels: number;
}

/** Block size from which the band is the mixed blocks alone (see `widen`). */
const BARE_BAND_FACTOR = 8;

export function refineToFullResolution(
  image: RasterImage,
  coarse: CoarseSegmentation,
  modes: BackgroundMode[],
  threshold: Float32Array,
  feather: number,
): FullResolution {
  const { width: W, height: H, data } = image;
  const { width: sw, height: sh, factor: f, mask: cm } = coarse;
  const N = W * H;
  const mask = new Uint8Array(N);
  const alpha = new Uint8Array(N);
  let pixels = 0;

  // Blocks whose 3x3 neighbourhood mixes fruit and background, widened so that the refined outline
  // and its feather stay inside the band.
  const mixed = new Uint8Array(sw * sh);
  for (let y = 0; y < sh; y++)
    for (let x = 0; x < sw; x++) {
      const v = cm[y * sw + x];
      let m = 0;
      for (let dy = -1; dy <= 1 && !m; dy++) {
        const yy = y + dy;
        if (yy < 0 || yy >= sh) continue;
        for (let dx = -1; dx <= 1; dx++) {
          const xx = x + dx;
          if (xx >= 0 && xx < sw && cm[yy * sw + xx] !== v) {
            m = 1;
            break;
          }
        }
      }
      mixed[y * sw + x] = m;
    }
  // Large blocks (f >= 8) leave the outline well inside the two mixed blocks; smaller ones get a
  // margin of at least one block so the refined outline and its feather stay inside the band.
  const widen = f >= BARE_BAND_FACTOR ? 0 : Math.max(1, Math.ceil((feather + 2) / f));
  const band = dilateSquare(mixed, sw, sh, widen);

  // Copy the blocks away from the outline, a run of equal blocks at a time; count the band pixels.
  let bandCount = 0;
  for (let b = 0; b < sw * sh; b++) {
    if (!band[b]) continue;
    const x0 = (b % sw) * f;
    const y0 = Math.floor(b / sw) * f;
    bandCount += (Math.min(W, x0 + f) - x0) * (Math.min(H, y0 + f) - y0);
  }
  for (let y = 0; y < H; y++) {
    const brow = Math.floor(y / f) * sw;
    const row = y * W;
    let bx = 0;
    while (bx < sw) {
      const b = brow + bx;
      if (band[b] || !cm[b]) {
        bx++;
        continue;
      }
      let end = bx + 1;
      while (end < sw && !band[brow + end] && cm[brow + end]) end++;
      const x0 = row + bx * f;
      const x1 = row + Math.min(W, end * f);
      mask.fill(1, x0, x1);
      alpha.fill(255, x0, x1);
      pixels += x1 - x0;
      bx = end;
    }
  }
  if (bandCount === 0) return withLabels(mask, alpha, pixels, coarse, W, null, 0);

  // Classify band pixels with the colour score.
  const idx = new Int32Array(bandCount);
  const blk = new Int32Array(bandCount);
  const rgba = new Uint8ClampedArray(bandCount * 4);
  let k = 0;
  for (let by = 0; by < sh; by++) {
    const y0 = by * f;
    const y1 = Math.min(H, y0 + f);
    for (let bx = 0; bx < sw; bx++) {
      if (!band[by * sw + bx]) continue;
      const x0 = bx * f;
      const x1 = Math.min(W, x0 + f);
      for (let y = y0; y < y1; y++)
        for (let x = x0; x < x1; x++) {
          const i = y * W + x;
          idx[k] = i;
          blk[k] = by * sw + bx;
          const p = i * 4;
          const q = k * 4;
          rgba[q] = data[p];
          rgba[q + 1] = data[p + 1];
          rgba[q + 2] = data[p + 2];
          rgba[q + 3] = 255;
          k++;
        }
    }
  }
  const lab = rgbaToLabPlanes(rgba, bandCount);
  const score = fruitScore(lab, bandCount, modes);
  for (let s = 0; s < bandCount; s++) mask[idx[s]] = score[s] > threshold[blk[s]] ? 1 : 0;

  // Fruit pixels of the band must connect to fruit outside the band (or be confidently fruit in a
  // fruit block); background pixels of the band must connect to the outside, else they are holes.
  // Until the feather is computed, `alpha` marks band pixels (BAND, SEEN once flooded); pixels
  // outside the band hold 0 or 255.
  const BAND = 1;
  const SEEN = 2;
  for (let s = 0; s < bandCount; s++) alpha[idx[s]] = BAND;
  const stack = new Int32Array(bandCount);
  const lastRow = N - W;
  // An outside-band neighbour (alpha 0 or 255, i.e. not BAND or SEEN) with mask value v.
  const outsideWith = (j: number, v: number) => mask[j] === v && alpha[j] !== BAND && alpha[j] !== SEEN;
  for (const value of [1, 0]) {
    let top = 0;
    for (let s = 0; s < bandCount; s++) {
      const i = idx[s];
      if (mask[i] !== value) continue;
      const x = i % W;
      let seed =
        (x > 0 && outsideWith(i - 1, value)) ||
        (x < W - 1 && outsideWith(i + 1, value)) ||
        (i >= W && outsideWith(i - W, value)) ||
        (i < lastRow && outsideWith(i + W, value));
      if (!seed && value === 1) seed = cm[blk[s]] === 1 && score[s] > 2 * threshold[blk[s]];
      if (!seed && value === 0) seed = x === 0 || x === W - 1 || i < W || i >= lastRow;
      if (seed) {
        alpha[i] = SEEN;
        stack[top++] = i;
      }
    }
    while (top > 0) {
      const i = stack[--top];
      const x = i % W;
      let j = i - 1;
      if (x > 0 && alpha[j] === BAND && mask[j] === value) {
        alpha[j] = SEEN;
        stack[top++] = j;
      }
      j = i + 1;
      if (x < W - 1 && alpha[j] === BAND && mask[j] === value) {
        alpha[j] = SEEN;
        stack[top++] = j;
      }
      j = i - W;
      if (i >= W && alpha[j] === BAND && mask[j] === value) {
        alpha[j] = SEEN;
        stack[top++] = j;
      }
      j = i + W;
      if (i < lastRow && alpha[j] === BAND && mask[j] === value) {
        alpha[j] = SEEN;
        stack[top++] = j;
      }
    }
    for (let s = 0; s < bandCount; s++) {
      const i = idx[s];
      if (mask[i] === value && alpha[i] !== SEEN) mask[i] = 1 - value;
      alpha[i] = BAND;
    }
  }

  for (let s = 0; s < bandCount; s++) pixels += mask[idx[s]];

  // Feather: the mean of the binary mask over a (2r+1)^2 window, kept on the mask's side of 128.
  const r = Math.max(0, Math.round(feather));
  const win = (2 * r + 1) ** 2;
  for (let s = 0; s < bandCount; s++) {
    const i = idx[s];
    const m = mask[i];
    if (r === 0) {
      alpha[i] = m ? 255 : 0;
      continue;
    }
    const x = i % W;
    const y = (i - x) / W;
    let sum = 0;
    for (let dy = -r; dy <= r; dy++) {
      const yy = Math.min(H - 1, Math.max(0, y + dy));
      const row = yy * W;
      for (let dx = -r; dx <= r; dx++) sum += mask[row + Math.min(W - 1, Math.max(0, x + dx))];
    }
    const v = Math.round((255 * sum) / win);
    alpha[i] = m ? Math.max(128, v) : Math.min(127, v);
  }
  return withLabels(mask, alpha, pixels, coarse, W, idx, bandCount);
}

/**
 * The result with `labels` built on first access: a fruit pixel takes its block's label, or, in
 * a block the coarse pass left as background, the largest label of a block within 3 blocks.
 */
function withLabels(
  mask: Uint8Array,
  alpha: Uint8Array,
  pixels: number,
  coarse: CoarseSegmentation,
  W: number,
  idx: Int32Array | null,
  bandCount: number,
): FullResolution {
  let labels: Int32Array | null = null;
  const { width: sw, height: sh, factor: f, labels: cl } = coarse;
  return {
    mask,
    alpha,
    pixels,
    get labels() {
      if (labels) return labels;
      const N = mask.length;
      labels = new Int32Array(N);
      const H = N / W;
      const blockOfX = new Int32Array(W);
      for (let x = 0; x < W; x++) blockOfX[x] = Math.floor(x / f);
      for (let y = 0; y < H; y++) {
        const row = y * W;
        const brow = Math.floor(y / f) * sw;
        for (let x = 0; x < W; x++) if (mask[row + x]) labels[row + x] = cl[brow + blockOfX[x]];
      }
      for (let s = 0; idx && s < bandCount; s++) {
        const i = idx[s];
        if (!mask[i] || labels[i]) continue;
        const bx = Math.floor((i % W) / f);
        const by = Math.floor(Math.floor(i / W) / f);
        let l = 0;
        for (let r = 1; !l && r <= 3; r++)
          for (let dy = -r; dy <= r; dy++)
            for (let dx = -r; dx <= r; dx++) {
              const xx = bx + dx;
              const yy = by + dy;
              if (xx >= 0 && yy >= 0 && xx < sw && yy < sh && cl[yy * sw + xx] > l) l = cl[yy * sw + xx];
            }
        labels[i] = l || 1;
      }
      return labels;
    },
  };
}
