/** Resampling of images and masks, pure and O(pixels), for Node and the browser alike. */
import type { RasterImage } from '@mango/core';

/** Output size with the long side at most maxSide, keeping the aspect ratio (never upscales). */
export function fitSize(width: number, height: number, maxSide: number) {
  const s = Math.min(1, maxSide / Math.max(width, height));
  return { width: Math.max(1, Math.round(width * s)), height: Math.max(1, Math.round(height * s)) };
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
  const { width: W, height: H, data } = image;
  if (width === W && height === H) return image;
  if (width > W || height > H) throw new RangeError('downscaleArea only shrinks');
  const xs = cellStarts(W, width);
  const ys = cellStarts(H, height);
  const out = new Uint8ClampedArray(width * height * 4);
  // Integer sums (at most 255 * cell area, far below 2^32 for any cell of a sane downscale).
  const acc = new Uint32Array(width * 4);
  for (let oy = 0; oy < height; oy++) {
    acc.fill(0);
    const y0 = ys[oy];
    const y1 = ys[oy + 1];
    for (let y = y0; y < y1; y++) {
      let j = y * W * 4;
      for (let ox = 0, k = 0; ox < width; ox++, k += 4) {
        const end = j + (xs[ox + 1] - xs[ox]) * 4;
        let r = 0;
        let g = 0;
        let b = 0;
        let a = 0;
        for (; j < end; j += 4) {
          r += data[j];
          g += data[j + 1];
          b += data[j + 2];
          a += data[j + 3];
        }
        acc[k] += r;
        acc[k + 1] += g;
        acc[k + 2] += b;
        acc[k + 3] += a;
      }
    }
    const rows = y1 - y0;
    const o = oy * width * 4;
    for (let ox = 0, k = 0; ox < width; ox++, k += 4) {
      const inv = 1 / (rows * (xs[ox + 1] - xs[ox]));
      out[o + k] = acc[k] * inv + 0.5;
      out[o + k + 1] = acc[k + 1] * inv + 0.5;
      out[o + k + 2] = acc[k + 2] * inv + 0.5;
      out[o + k + 3] = acc[k + 3] * inv + 0.5;
    }
  }
  return { width, height, data: out };
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
