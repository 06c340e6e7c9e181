/** Colour and grayscale statistics over the mask (population statistics, as numpy's mean and std). */
import { rgbToHsv, rgbToLab, type RasterImage } from '@mango/core';
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

type Converter = (r: number, g: number, b: number, out: Float64Array) => unknown;

/** Converts each masked pixel once per distinct colour (photos repeat colours a lot). */
function convertMasked(image: RasterImage, mask: Uint8Array, count: number, convert: Converter | null) {
  const values = new Float64Array(count * 3);
  const d = image.data;
  const cache = new Map<number, number>(); // colour -> index of its first converted copy in values
  const tmp = new Float64Array(3);
  let k = 0;
  for (let i = 0, j = 0; i < mask.length; i++, j += 4) {
    if (!mask[i]) continue;
    if (!convert) {
      values[k] = d[j];
      values[k + 1] = d[j + 1];
      values[k + 2] = d[j + 2];
    } else {
      const key = (d[j] << 16) | (d[j + 1] << 8) | d[j + 2];
      const at = cache.get(key);
      if (at !== undefined) {
        values[k] = values[at];
        values[k + 1] = values[at + 1];
        values[k + 2] = values[at + 2];
      } else {
        convert(d[j] / 255, d[j + 1] / 255, d[j + 2] / 255, tmp);
        values[k] = tmp[0];
        values[k + 1] = tmp[1];
        values[k + 2] = tmp[2];
        cache.set(key, k);
      }
    }
    k += 3;
  }
  return values;
}

export function rgbStats(image: RasterImage, mask: Uint8Array, count: number) {
  return named(['R', 'G', 'B'], meanStd(convertMasked(image, mask, count, null), 3));
}

export function hsvStats(image: RasterImage, mask: Uint8Array, count: number) {
  return named(['H', 'S', 'V'], meanStd(convertMasked(image, mask, count, rgbToHsv), 3));
}

export function labStats(image: RasterImage, mask: Uint8Array, count: number) {
  return named(['L', 'a', 'b'], meanStd(convertMasked(image, mask, count, rgbToLab), 3));
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
    for (let i = 0; i < count; i++) scratch[i] = Math.pow(g[i] - mean, 3);
    skewness = npMean(scratch) / Math.pow(sd, 3);
    for (let i = 0; i < count; i++) scratch[i] = Math.pow(g[i] - mean, 4);
    kurtosis = npMean(scratch) / Math.pow(sd, 4) - 3;
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
