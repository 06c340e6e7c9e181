/** Colour and grayscale statistics over the mask (population statistics, as numpy's mean and std). */
import { rgb8ToLab, rgbToHsv, type RasterImage } from '@mango/core';
import { npMean, npStd } from './numeric.ts';

/** Mean and population std of each of k interleaved channels at the masked pixels. */
function meanStd(values: Float64Array, k: number): { mean: number[]; std: number[] } {
  const n = values.length / k;
  const mean = new Array<number>(k).fill(0);
  const std = new Array<number>(k).fill(0);
  for (let i = 0; i < values.length; i += k) for (let c = 0; c < k; c++) mean[c] += values[i + c];
  for (let c = 0; c < k; c++) mean[c] /= n;
  for (let i = 0; i < values.length; i += k)
    for (let c = 0; c < k; c++) {
      const d = values[i + c] - mean[c];
      std[c] += d * d;
    }
  for (let c = 0; c < k; c++) std[c] = Math.sqrt(std[c] / n);
  return { mean, std };
}

function named(names: string[], s: { mean: number[]; std: number[] }): Record<string, number> {
  const out: Record<string, number> = {};
  names.forEach((name, c) => (out[`mean_${name}`] = s.mean[c]));
  names.forEach((name, c) => (out[`std_${name}`] = s.std[c]));
  return out;
}

/** Mean and population std of 3 channels over the masked pixels, each pixel converted by `convert`. */
function channelStats(
  image: RasterImage,
  mask: Uint8Array,
  count: number,
  convert: (r: number, g: number, b: number, out: Float64Array) => void,
) {
  const values = new Float64Array(count * 3);
  const d = image.data;
  const tmp = new Float64Array(3);
  for (let i = 0, j = 0, k = 0; i < mask.length; i++, j += 4) {
    if (!mask[i]) continue;
    convert(d[j], d[j + 1], d[j + 2], tmp);
    values[k++] = tmp[0];
    values[k++] = tmp[1];
    values[k++] = tmp[2];
  }
  return meanStd(values, 3);
}

export function rgbStats(image: RasterImage, mask: Uint8Array, count: number) {
  return named(
    ['R', 'G', 'B'],
    channelStats(image, mask, count, (r, g, b, out) => {
      out[0] = r;
      out[1] = g;
      out[2] = b;
    }),
  );
}

export function hsvStats(image: RasterImage, mask: Uint8Array, count: number) {
  return named(
    ['H', 'S', 'V'],
    channelStats(image, mask, count, (r, g, b, out) => rgbToHsv(r / 255, g / 255, b / 255, out)),
  );
}

export function labStats(image: RasterImage, mask: Uint8Array, count: number) {
  return named(['L', 'a', 'b'], channelStats(image, mask, count, rgb8ToLab));
}

/**
 * gray mean/std/min/max/skewness/excess kurtosis over the mask, and the entropy (bits) of G8's
 * histogram. Sums follow numpy's order so a constant region gives numpy's answer exactly.
 */
export function grayscaleStats(gray: Float64Array, g8: Uint8Array, mask: Uint8Array, count: number) {
  const g = new Float64Array(count);
  const hist = new Float64Array(256);
  let min = Infinity;
  let max = -Infinity;
  for (let i = 0, k = 0; i < mask.length; i++) {
    if (!mask[i]) continue;
    const v = gray[i];
    g[k++] = v;
    if (v < min) min = v;
    if (v > max) max = v;
    hist[g8[i]]++;
  }
  const mean = npMean(g);
  const scratch = new Float64Array(count);
  const sd = npStd(g, mean, scratch);
  let skewness = 0;
  let kurtosis = 0;
  if (sd > 0) {
    const scratch4 = new Float64Array(count);
    for (let i = 0; i < count; i++) {
      const d = g[i] - mean;
      const d2 = d * d;
      scratch[i] = d2 * d;
      scratch4[i] = d2 * d2;
    }
    skewness = npMean(scratch) / (sd * sd * sd);
    kurtosis = npMean(scratch4) / (sd * sd * sd * sd) - 3;
  }
  let entropy = 0;
  for (let v = 0; v < 256; v++) {
    if (hist[v] > 0) {
      const p = hist[v] / count;
      entropy -= p * Math.log2(p);
    }
  }
  return {
    gray_mean: mean,
    gray_std: sd,
    gray_min: min,
    gray_max: max,
    gray_skewness: skewness,
    gray_kurtosis: kurtosis,
    gray_entropy: entropy,
  };
}
