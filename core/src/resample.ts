/**
 * Resampling of images and masks, pure and O(pixels), for Node and the browser alike: block and
 * area-average downscales (one summing kernel), nearest-neighbour mask resizes, bilinear planes for
 * a model, and the 4-channel box sum the local means are made of.
 */
import type { RasterImage } from './image.ts';

const LITTLE_ENDIAN = new Uint8Array(new Uint32Array([1]).buffer)[0] === 1;

/**
 * The pixels as one 32-bit word each (R in the low byte) when the machine is little-endian and the
 * buffer aligned (decoded images are), else null: whole pixels read with one load.
 */
export function rgbaWords(image: RasterImage): Uint32Array | null {
  const { data } = image;
  return LITTLE_ENDIAN && data.byteOffset % 4 === 0
    ? new Uint32Array(data.buffer, data.byteOffset, image.width * image.height)
    : null;
}

/** Output size with the long side at most maxSide, keeping the aspect ratio (never upscales). */
export function fitSize(width: number, height: number, maxSide: number) {
  const s = Math.min(1, maxSide / Math.max(width, height));
  return { width: Math.max(1, Math.round(width * s)), height: Math.max(1, Math.round(height * s)) };
}

/** The source columns (rows) each output column (row) sums: at[start[b]] .. at[start[b + 1] - 1], ascending. */
interface Samples {
  start: Int32Array;
  at: Int32Array;
}

/** Every source index once, in order: the cells are the contiguous ranges start[b] .. start[b + 1] - 1. */
function contiguous(start: Int32Array, size: number): Samples {
  const at = new Int32Array(size);
  for (let i = 0; i < size; i++) at[i] = i;
  return { start, at };
}

/**
 * The shared downscale kernel: every output pixel is the mean of the source pixels its column and
 * row samples pick, all four channels, with integer sums. `contiguousCells`: every cell is a run of
 * consecutive columns (read as a run of 32-bit words when the buffer is aligned). `round`: how the
 * mean becomes a byte (`nearest`: acc / n; `half-up`: acc x (1 / n) + 0.5, both through
 * Uint8ClampedArray's round-half-to-even).
 */
function averageSamples(
  image: RasterImage,
  cols: Samples,
  rows: Samples,
  contiguousCells: boolean,
  round: 'nearest' | 'half-up',
): RasterImage {
  const { width, data } = image;
  const sw = cols.start.length - 1;
  const sh = rows.start.length - 1;
  const out = new Uint8ClampedArray(sw * sh * 4);
  const acc = new Uint32Array(sw * 4);
  // Whole pixels read as one 32-bit word when the buffer is aligned (decoded images are).
  const words = rgbaWords(image);
  for (let by = 0; by < sh; by++) {
    acc.fill(0);
    for (let r = rows.start[by]; r < rows.start[by + 1]; r++) {
      const row = rows.at[r] * width;
      for (let bx = 0, c = 0; bx < sw; bx++) {
        const end = cols.start[bx + 1];
        let R = 0,
          G = 0,
          B = 0,
          A = 0;
        if (words && contiguousCells) {
          // Every column of the block: consecutive words, no index table.
          const x1 = row + cols.at[end - 1];
          for (let p = row + cols.at[c]; p <= x1; p++) {
            const v = words[p];
            R += v & 255;
            G += (v >>> 8) & 255;
            B += (v >>> 16) & 255;
            A += v >>> 24;
          }
          c = end;
        } else if (words)
          for (; c < end; c++) {
            // Little-endian RGBA: r in the low byte.
            const v = words[row + cols.at[c]];
            R += v & 255;
            G += (v >>> 8) & 255;
            B += (v >>> 16) & 255;
            A += v >>> 24;
          }
        else
          for (; c < end; c++) {
            const p = (row + cols.at[c]) * 4;
            R += data[p];
            G += data[p + 1];
            B += data[p + 2];
            A += data[p + 3];
          }
        const q = bx * 4;
        acc[q] += R;
        acc[q + 1] += G;
        acc[q + 2] += B;
        acc[q + 3] += A;
      }
    }
    const nRows = rows.start[by + 1] - rows.start[by];
    for (let bx = 0; bx < sw; bx++) {
      const n = nRows * (cols.start[bx + 1] - cols.start[bx]);
      const q = bx * 4;
      const o = (by * sw + bx) * 4;
      if (round === 'nearest') {
        out[o] = acc[q] / n;
        out[o + 1] = acc[q + 1] / n;
        out[o + 2] = acc[q + 2] / n;
        out[o + 3] = acc[q + 3] / n;
      } else {
        const inv = 1 / n;
        out[o] = acc[q] * inv + 0.5;
        out[o + 1] = acc[q + 1] * inv + 0.5;
        out[o + 2] = acc[q + 2] * inv + 0.5;
        out[o + 3] = acc[q + 3] * inv + 0.5;
      }
    }
  }
  return { width: sw, height: sh, data: out };
}

/**
 * Box-average downscale by an integer factor: each output pixel is the mean of its factor x factor
 * block (blocks on the right and bottom edges may be partial). With `maxSamples` set, a block
 * larger than that many pixels a side is averaged over an evenly spread maxSamples x maxSamples
 * grid of its pixels instead (same mean on smooth content, several times faster on big photos).
 */
export function boxDownscale(image: RasterImage, factor: number, maxSamples = Infinity): RasterImage {
  const f = Math.max(1, Math.floor(factor));
  const { width, height, data } = image;
  if (f === 1) return { width, height, data: data.slice() };
  const m = Math.max(1, Math.floor(Math.min(maxSamples, f)));
  // The source columns (rows) each output column (row) averages: all of its block, or m spread evenly.
  const samples = (size: number): Samples => {
    const blocks = Math.ceil(size / f);
    const start = new Int32Array(blocks + 1);
    const at: number[] = [];
    for (let b = 0; b < blocks; b++) {
      start[b] = at.length;
      const x0 = b * f;
      const len = Math.min(f, size - x0);
      const k = Math.min(len, m);
      for (let j = 0; j < k; j++) at.push(x0 + Math.floor(((j + 0.5) * len) / k));
    }
    start[blocks] = at.length;
    return { start, at: Int32Array.from(at) };
  };
  return averageSamples(image, samples(width), samples(height), m >= f, 'nearest');
}

/** The integer factor that brings the long side to at most `workSize` pixels (1 for small images). */
export function downscaleFactor(width: number, height: number, workSize: number): number {
  return Math.max(1, Math.ceil(Math.max(width, height) / Math.max(16, workSize)));
}

/** Index of the first source pixel of each destination cell (length dst + 1). */
function cellStarts(src: number, dst: number): Int32Array {
  const starts = new Int32Array(dst + 1);
  for (let i = 0; i <= dst; i++) starts[i] = Math.floor((i * src) / dst);
  return starts;
}

/**
 * Area-average downscale (each output pixel is the mean of the source pixels it covers, like
 * OpenCV's INTER_AREA), all four channels. One pass over the source; returns the input when the
 * size is unchanged.
 */
export function downscaleArea(image: RasterImage, width: number, height: number): RasterImage {
  const { width: W, height: H } = image;
  if (width === W && height === H) return image;
  if (width > W || height > H) throw new RangeError('downscaleArea only shrinks');
  const words = W === 2 * width && H === 2 * height ? rgbaWords(image) : null;
  if (words) return halve(image, words);
  return averageSamples(
    image,
    contiguous(cellStarts(W, width), W),
    contiguous(cellStarts(H, height), H),
    true,
    'half-up',
  );
}

/** A 2x2 block's channel sum (0..1020) as averageSamples' 'half-up' rounds its mean: x (1 / 4) + 0.5, round-half-to-even. */
const HALF_UP_OF_4 = (() => {
  const t = new Uint8ClampedArray(1021);
  for (let sum = 0; sum <= 1020; sum++) t[sum] = sum * (1 / 4) + 0.5;
  return t;
})();

/** downscaleArea to exactly half of each side: the same bytes as the general kernel, read two rows of words at a time. */
function halve(image: RasterImage, words: Uint32Array): RasterImage {
  const W = image.width;
  const w = W >> 1;
  const h = image.height >> 1;
  const out = new Uint8ClampedArray(w * h * 4);
  for (let y = 0; y < h; y++) {
    let a = 2 * y * W;
    let b = a + W;
    let o = y * w * 4;
    for (let x = 0; x < w; x++, a += 2, b += 2, o += 4) {
      const p = words[a];
      const q = words[a + 1];
      const r = words[b];
      const t = words[b + 1];
      out[o] = HALF_UP_OF_4[(p & 255) + (q & 255) + (r & 255) + (t & 255)];
      out[o + 1] = HALF_UP_OF_4[((p >>> 8) & 255) + ((q >>> 8) & 255) + ((r >>> 8) & 255) + ((t >>> 8) & 255)];
      out[o + 2] = HALF_UP_OF_4[((p >>> 16) & 255) + ((q >>> 16) & 255) + ((r >>> 16) & 255) + ((t >>> 16) & 255)];
      out[o + 3] = HALF_UP_OF_4[(p >>> 24) + (q >>> 24) + (r >>> 24) + (t >>> 24)];
    }
  }
  return { width: w, height: h, data: out };
}

/** Source index (nearest neighbour) of every destination coordinate. */
function nearestIndex(src: number, dst: number): Int32Array {
  const idx = new Int32Array(dst);
  for (let i = 0; i < dst; i++) idx[i] = Math.min(src - 1, Math.floor(((i + 0.5) * src) / dst));
  return idx;
}

/** Nearest-neighbour resize of a label or binary mask. */
export function resizeMaskNearest<T extends Uint8Array | Int32Array>(
  mask: T,
  width: number,
  height: number,
  outWidth: number,
  outHeight: number,
): T {
  if (width === outWidth && height === outHeight) return mask.slice() as T;
  const xs = nearestIndex(width, outWidth);
  const ys = nearestIndex(height, outHeight);
  const out = new (mask.constructor as { new (n: number): T })(outWidth * outHeight);
  for (let y = 0; y < outHeight; y++) {
    const src = ys[y] * width;
    const dst = y * outWidth;
    for (let x = 0; x < outWidth; x++) out[dst + x] = mask[src + xs[x]];
  }
  return out;
}

/**
 * How many full-resolution pixels each work-resolution column and row stands for when a work mask
 * is upsampled with resizeMaskNearest: the full-resolution count of a mask is then the sum over its
 * set pixels of colWeight[x] * rowWeight[y], exactly, without building the large mask.
 */
export function upsampleWeights(width: number, height: number, outWidth: number, outHeight: number) {
  const colWeight = new Float64Array(width);
  const rowWeight = new Float64Array(height);
  const xs = nearestIndex(width, outWidth);
  const ys = nearestIndex(height, outHeight);
  for (let x = 0; x < outWidth; x++) colWeight[xs[x]]++;
  for (let y = 0; y < outHeight; y++) rowWeight[ys[y]]++;
  return { colWeight, rowWeight };
}

/** Bilinear resize of RGB into planar float channels (used to feed a model). */
export function resizeBilinearPlanes(image: RasterImage, outWidth: number, outHeight: number): Float32Array[] {
  const { width: W, height: H, data } = image;
  const planes = [0, 1, 2].map(() => new Float32Array(outWidth * outHeight));
  const sx = W / outWidth;
  const sy = H / outHeight;
  for (let y = 0; y < outHeight; y++) {
    const fy = Math.min(Math.max((y + 0.5) * sy - 0.5, 0), H - 1);
    const y0 = Math.floor(fy);
    const y1 = Math.min(y0 + 1, H - 1);
    const wy = fy - y0;
    for (let x = 0; x < outWidth; x++) {
      const fx = Math.min(Math.max((x + 0.5) * sx - 0.5, 0), W - 1);
      const x0 = Math.floor(fx);
      const x1 = Math.min(x0 + 1, W - 1);
      const wx = fx - x0;
      const i00 = (y0 * W + x0) * 4;
      const i01 = (y0 * W + x1) * 4;
      const i10 = (y1 * W + x0) * 4;
      const i11 = (y1 * W + x1) * 4;
      const o = y * outWidth + x;
      for (let c = 0; c < 3; c++) {
        const top = data[i00 + c] * (1 - wx) + data[i01 + c] * wx;
        const bottom = data[i10 + c] * (1 - wx) + data[i11 + c] * wx;
        planes[c][o] = top * (1 - wy) + bottom * wy;
      }
    }
  }
  return planes;
}

/**
 * Box sum of 4 interleaved channels on a w x h grid: each output holds the sum over the (2r+1)^2
 * window around it, clipped at the borders; separable running sums (rows into `out`, then its
 * columns in place), O(n) for any r. `out` is caller-owned, of src.length.
 */
export function boxSum4<T extends Float32Array | Float64Array>(src: T, out: T, w: number, h: number, r: number): void {
  for (let y = 0; y < h; y++) {
    const row = y * w * 4;
    let s0 = 0;
    let s1 = 0;
    let s2 = 0;
    let s3 = 0;
    for (let x = 0, j = row; x <= Math.min(r, w - 1); x++, j += 4) {
      s0 += src[j];
      s1 += src[j + 1];
      s2 += src[j + 2];
      s3 += src[j + 3];
    }
    for (let x = 0, o = row; x < w; x++, o += 4) {
      out[o] = s0;
      out[o + 1] = s1;
      out[o + 2] = s2;
      out[o + 3] = s3;
      if (x + r + 1 < w) {
        const j = o + (r + 1) * 4;
        s0 += src[j];
        s1 += src[j + 1];
        s2 += src[j + 2];
        s3 += src[j + 3];
      }
      if (x - r >= 0) {
        const j = o - r * 4;
        s0 -= src[j];
        s1 -= src[j + 1];
        s2 -= src[j + 2];
        s3 -= src[j + 3];
      }
    }
  }
  const stride = w * 4;
  const col = new Float64Array(h * 4);
  for (let x = 0; x < w; x++) {
    for (let y = 0, j = x * 4; y < h; y++, j += stride) {
      col[y * 4] = out[j];
      col[y * 4 + 1] = out[j + 1];
      col[y * 4 + 2] = out[j + 2];
      col[y * 4 + 3] = out[j + 3];
    }
    let s0 = 0;
    let s1 = 0;
    let s2 = 0;
    let s3 = 0;
    for (let y = 0; y <= Math.min(r, h - 1); y++) {
      s0 += col[y * 4];
      s1 += col[y * 4 + 1];
      s2 += col[y * 4 + 2];
      s3 += col[y * 4 + 3];
    }
    for (let y = 0, o = x * 4; y < h; y++, o += stride) {
      out[o] = s0;
      out[o + 1] = s1;
      out[o + 2] = s2;
      out[o + 3] = s3;
      if (y + r + 1 < h) {
        const j = (y + r + 1) * 4;
        s0 += col[j];
        s1 += col[j + 1];
        s2 += col[j + 2];
        s3 += col[j + 3];
      }
      if (y - r >= 0) {
        const j = (y - r) * 4;
        s0 -= col[j];
        s1 -= col[j + 1];
        s2 -= col[j + 2];
        s3 -= col[j + 3];
      }
    }
  }
}
