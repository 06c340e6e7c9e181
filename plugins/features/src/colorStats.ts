/** Colour and grayscale statistics over the mask (population statistics, as numpy's mean and std). */
import { rgb8ToLab, rgbToHsv, type RasterImage } from '@mango/core';
import { npMean, npStd } from './numeric.ts';

function named(names: string[], mean: number[], std: number[]): Record<string, number> {
  const out: Record<string, number> = {};
  names.forEach((name, c) => (out[`mean_${name}`] = mean[c]));
  names.forEach((name, c) => (out[`std_${name}`] = std[c]));
  return out;
}

/** Mean and population std of three planes (two passes: mean first, then squared deviations). */
function planeStats(p0: Float64Array, p1: Float64Array, p2: Float64Array, names: string[]) {
  const n = p0.length;
  let s0 = 0;
  let s1 = 0;
  let s2 = 0;
  for (let i = 0; i < n; i++) {
    s0 += p0[i];
    s1 += p1[i];
    s2 += p2[i];
  }
  const m0 = s0 / n;
  const m1 = s1 / n;
  const m2 = s2 / n;
  let q0 = 0;
  let q1 = 0;
  let q2 = 0;
  for (let i = 0; i < n; i++) {
    const d0 = p0[i] - m0;
    const d1 = p1[i] - m1;
    const d2 = p2[i] - m2;
    q0 += d0 * d0;
    q1 += d1 * d1;
    q2 += d2 * d2;
  }
  return named(names, [m0, m1, m2], [Math.sqrt(q0 / n), Math.sqrt(q1 / n), Math.sqrt(q2 / n)]);
}

function planes(count: number) {
  return [new Float64Array(count), new Float64Array(count), new Float64Array(count)] as const;
}

export function rgbStats(image: RasterImage, mask: Uint8Array, count: number) {
  const [r, g, b] = planes(count);
  const d = image.data;
  for (let i = 0, k = 0; i < mask.length; i++)
    if (mask[i]) {
      r[k] = d[4 * i];
      g[k] = d[4 * i + 1];
      b[k++] = d[4 * i + 2];
    }
  return planeStats(r, g, b, ['R', 'G', 'B']);
}

export function hsvStats(image: RasterImage, mask: Uint8Array, count: number) {
  const [h, s, v] = planes(count);
  const d = image.data;
  const hsv = new Float64Array(3);
  for (let i = 0, k = 0; i < mask.length; i++)
    if (mask[i]) {
      rgbToHsv(d[4 * i] / 255, d[4 * i + 1] / 255, d[4 * i + 2] / 255, hsv);
      h[k] = hsv[0];
      s[k] = hsv[1];
      v[k++] = hsv[2];
    }
  return planeStats(h, s, v, ['H', 'S', 'V']);
}

export function labStats(image: RasterImage, mask: Uint8Array, count: number) {
  const [L, a, b] = planes(count);
  const d = image.data;
  const lab = new Float64Array(3);
  for (let i = 0, k = 0; i < mask.length; i++)
    if (mask[i]) {
      rgb8ToLab(d[4 * i], d[4 * i + 1], d[4 * i + 2], lab);
      L[k] = lab[0];
      a[k] = lab[1];
      b[k++] = lab[2];
    }
  return planeStats(L, a, b, ['L', 'a', 'b']);
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
