import {
  maskOverlap,
  segmentFruit,
  type DecodedImage,
  type FruitSegmentation,
  type RasterImage,
  type SegmentOptions,
} from '@mango/core';

/**
 * The image with the segmentation's alpha as its alpha channel: RGB kept where the alpha is above
 * 0, fully transparent pixels set to 0 (transparent black), which a PNG encoder compresses to
 * almost nothing (a 4000x3000 cut-out encodes about 6x faster and 5x smaller than with the
 * background's colours kept under alpha 0). Any transparency the input already had is kept; a
 * decoded image without an alpha channel (`hasAlpha: false`) is known opaque, so its runs of
 * alpha 255 are not read a second time.
 * `inPlace`: written into the image's own pixels (same result), which saves touching 48 MB of new
 * memory on a 4000x3000 photo (about 200 ms on a busy machine); only for an image nobody reads after.
 */
export function applyAlpha(image: RasterImage, alpha: Uint8Array, inPlace = false): RasterImage {
  const n = alpha.length;
  // A fresh buffer reads as zeros (transparent black) without being written: only the pixels with
  // some alpha are copied, which on a cut-out is a small part of a large photo. In place, the
  // transparent pixels are cleared instead.
  const src = image.data;
  const opaque = (image as Partial<DecodedImage>).hasAlpha === false;
  const data = inPlace ? src : new Uint8ClampedArray(n * 4);
  if (src.byteOffset % 4 === 0 && new Uint8Array(new Uint32Array([1]).buffer)[0] === 1) {
    // Little-endian RGBA words: alpha is the top byte.
    const from = new Uint32Array(src.buffer, src.byteOffset, n);
    const to = new Uint32Array(data.buffer, data.byteOffset, n);
    const pixel = (i: number) => {
      const a = alpha[i];
      const v = from[i];
      const keep = v >>> 24;
      if (a === 0 || keep === 0) {
        if (inPlace) to[i] = 0;
      } else if (a >= keep) {
        if (!inPlace) to[i] = v;
      } else to[i] = ((v & 0xffffff) | (a << 24)) >>> 0;
    };
    // Four alphas at a time: a cut-out is mostly long runs of alpha 0 (cleared in place, or left as
    // the fresh buffer's zeros) and 255 (kept as they are, or copied, then the pixels that were
    // already fully transparent cleared): the same result as pixel by pixel, with memset and memcpy
    // doing the runs.
    const words = alpha.byteOffset % 4 === 0 ? n >>> 2 : 0;
    const quads = words > 0 ? new Uint32Array(alpha.buffer, alpha.byteOffset, words) : new Uint32Array(0);
    let w = 0;
    while (w < words) {
      const q = quads[w];
      if (q === 0 || q === 0xffffffff) {
        let end = w + 1;
        while (end < words && quads[end] === q) end++;
        if (q === 0) {
          if (inPlace) to.fill(0, 4 * w, 4 * end);
        } else {
          if (!inPlace) to.set(from.subarray(4 * w, 4 * end), 4 * w);
          if (!opaque) for (let i = 4 * w; i < 4 * end; i++) if (from[i] < 0x1000000) to[i] = 0;
        }
        w = end;
      } else {
        for (let i = 4 * w; i < 4 * w + 4; i++) pixel(i);
        w++;
      }
    }
    for (let i = 4 * words; i < n; i++) pixel(i);
  } else {
    for (let i = 0, j = 0; i < n; i++, j += 4) {
      const a = Math.min(alpha[i], src[j + 3]);
      if (a === 0) {
        if (inPlace) data[j] = data[j + 1] = data[j + 2] = data[j + 3] = 0;
        continue;
      }
      data[j] = src[j];
      data[j + 1] = src[j + 1];
      data[j + 2] = src[j + 2];
      data[j + 3] = a;
    }
  }
  return { width: image.width, height: image.height, data };
}

export interface CutOut {
  image: RasterImage;
  segmentation: FruitSegmentation;
  fruitPixels: number;
}

/**
 * Segments the fruit and returns the cut-out (runs in Node and the browser); `inPlace` writes it
 * into the image's pixels (see applyAlpha), else the image is left untouched.
 */
export function removeBackground(image: RasterImage, options: Partial<SegmentOptions> = {}, inPlace = false): CutOut {
  const segmentation = segmentFruit(image, options);
  return { image: applyAlpha(image, segmentation.alpha, inPlace), segmentation, fruitPixels: segmentation.pixels };
}

export interface IoUReport {
  iou: number;
  /** pixels in the predicted mask, in the truth mask, in both */
  predicted: number;
  truth: number;
  intersection: number;
}

/**
 * Fruit IoU of a predicted mask against a truth mask (any non-zero value is fruit; an 8-bit PNG
 * with 255 = fruit decoded to one byte per pixel works as is). For the CLI eval command.
 */
export function evaluateFruitIoU(predicted: Uint8Array, truth: Uint8Array | Uint8ClampedArray): IoUReport {
  if (predicted.length !== truth.length) {
    throw new RangeError(`mask sizes differ: ${predicted.length} vs ${truth.length} pixels`);
  }
  const o = maskOverlap(predicted, truth);
  return { iou: o.iou, predicted: o.a, truth: o.b, intersection: o.intersection };
}

/** Segments `image` and scores the fruit mask against `truth` (one value per pixel, non-zero = fruit). */
export function evaluateImage(
  image: RasterImage,
  truth: Uint8Array | Uint8ClampedArray,
  options: Partial<SegmentOptions> = {},
) {
  const segmentation = segmentFruit(image, options);
  return { ...evaluateFruitIoU(segmentation.mask, truth), fruits: segmentation.count };
}
