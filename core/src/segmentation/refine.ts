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
  /** built on first access from the alpha (`alpha >= 128` is the mask, exactly): a cut-out never needs it */
  readonly mask: Uint8Array;
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
  // The alpha is the only full-resolution output: 0 background, 255 fruit, and while the band is
  // worked on, a state per band pixel (values below 128 other than 0: see BAND_BG and the others).
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
  // The runs are found once per row of blocks and filled on each of its f pixel rows.
  const runs: number[] = [];
  for (let by = 0; by < sh; by++) {
    const brow = by * sw;
    runs.length = 0;
    let bx = 0;
    while (bx < sw) {
      const b = brow + bx;
      if (band[b] || !cm[b]) {
        bx++;
        continue;
      }
      let end = bx + 1;
      while (end < sw && !band[brow + end] && cm[brow + end]) end++;
      runs.push(bx * f, Math.min(W, end * f));
      bx = end;
    }
    for (let y = by * f; y < Math.min(H, (by + 1) * f); y++) {
      const row = y * W;
      for (let r = 0; r < runs.length; r += 2) {
        alpha.fill(255, row + runs[r], row + runs[r + 1]);
        pixels += runs[r + 1] - runs[r];
      }
    }
  }
  if (bandCount === 0) return withLabels(alpha, pixels, coarse, W, null, 0);

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
  // Band states: classified fruit or background, and reached by the flood from outside the band.
  const BAND_BG = 1;
  const BAND_FRUIT = 2;
  const SEEN_BG = 3;
  const SEEN_FRUIT = 4;
  for (let s = 0; s < bandCount; s++) alpha[idx[s]] = score[s] > threshold[blk[s]] ? BAND_FRUIT : BAND_BG;

  // Fruit pixels of the band must connect to fruit outside the band (or be confidently fruit in a
  // fruit block); background pixels of the band must connect to the outside, else they are holes.
  const stack = new Int32Array(bandCount);
  const lastRow = N - W;
  for (const value of [1, 0]) {
    const inBand = value ? BAND_FRUIT : BAND_BG;
    const seen = value ? SEEN_FRUIT : SEEN_BG;
    const outside = value ? 255 : 0; // a pixel outside the band with this value
    let top = 0;
    for (let s = 0; s < bandCount; s++) {
      const i = idx[s];
      if (alpha[i] !== inBand) continue;
      const x = i % W;
      let seed =
        (x > 0 && alpha[i - 1] === outside) ||
        (x < W - 1 && alpha[i + 1] === outside) ||
        (i >= W && alpha[i - W] === outside) ||
        (i < lastRow && alpha[i + W] === outside);
      if (!seed && value === 1) seed = cm[blk[s]] === 1 && score[s] > 2 * threshold[blk[s]];
      if (!seed && value === 0) seed = x === 0 || x === W - 1 || i < W || i >= lastRow;
      if (seed) {
        alpha[i] = seen;
        stack[top++] = i;
      }
    }
    while (top > 0) {
      const i = stack[--top];
      const x = i % W;
      let j = i - 1;
      if (x > 0 && alpha[j] === inBand) {
        alpha[j] = seen;
        stack[top++] = j;
      }
      j = i + 1;
      if (x < W - 1 && alpha[j] === inBand) {
        alpha[j] = seen;
        stack[top++] = j;
      }
      j = i - W;
      if (i >= W && alpha[j] === inBand) {
        alpha[j] = seen;
        stack[top++] = j;
      }
      j = i + W;
      if (i < lastRow && alpha[j] === inBand) {
        alpha[j] = seen;
        stack[top++] = j;
      }
    }
    // Not reached: the other value (a speck dropped, a hole filled).
    const other = value ? BAND_BG : BAND_FRUIT;
    for (let s = 0; s < bandCount; s++) {
      const i = idx[s];
      if (alpha[i] === seen) alpha[i] = inBand;
      else if (alpha[i] === inBand) alpha[i] = other;
    }
  }

  for (let s = 0; s < bandCount; s++) if (alpha[idx[s]] === BAND_FRUIT) pixels++;

  // Feather: the mean of the binary mask over a (2r+1)^2 window, kept on the mask's side of 128;
  // computed for the whole band before any band pixel's state is overwritten.
  const r = Math.max(0, Math.round(feather));
  const win = (2 * r + 1) ** 2;
  const isFruit = new Uint8Array(256); // by alpha or band state: 1 = fruit
  isFruit[255] = isFruit[BAND_FRUIT] = 1;
  const feathered = new Uint8Array(bandCount);
  for (let s = 0; s < bandCount; s++) {
    const i = idx[s];
    const m = alpha[i] === BAND_FRUIT;
    if (r === 0) {
      feathered[s] = m ? 255 : 0;
      continue;
    }
    const x = i % W;
    const y = (i - x) / W;
    let sum = 0;
    if (x >= r && x < W - r && y >= r && y < H - r) {
      // The whole window inside the image (nearly every band pixel): no clamping.
      for (let dy = -r; dy <= r; dy++) {
        const row = i + dy * W;
        for (let dx = -r; dx <= r; dx++) sum += isFruit[alpha[row + dx]];
      }
    } else
      for (let dy = -r; dy <= r; dy++) {
        const row = Math.min(H - 1, Math.max(0, y + dy)) * W;
        for (let dx = -r; dx <= r; dx++) sum += isFruit[alpha[row + Math.min(W - 1, Math.max(0, x + dx))]];
      }
    const v = Math.round((255 * sum) / win);
    feathered[s] = m ? Math.max(128, v) : Math.min(127, v);
  }
  for (let s = 0; s < bandCount; s++) alpha[idx[s]] = feathered[s];
  return withLabels(alpha, pixels, coarse, W, idx, bandCount);
}

/**
 * The result with `mask` (alpha >= 128) and `labels` built on first access: a fruit pixel takes its
 * block's label, or, in a block the coarse pass left as background, the largest label of a block
 * within 3 blocks.
 */
function withLabels(
  alpha: Uint8Array,
  pixels: number,
  coarse: CoarseSegmentation,
  W: number,
  idx: Int32Array | null,
  bandCount: number,
): FullResolution {
  let mask: Uint8Array | null = null;
  let labels: Int32Array | null = null;
  const { width: sw, height: sh, factor: f, labels: cl } = coarse;
  const maskOf = () => {
    if (mask) return mask;
    mask = new Uint8Array(alpha.length);
    for (let i = 0; i < alpha.length; i++) mask[i] = alpha[i] >>> 7;
    return mask;
  };
  return {
    alpha,
    pixels,
    get mask() {
      return maskOf();
    },
    get labels() {
      if (labels) return labels;
      const mask = maskOf();
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
