/**
 * Small dark spots (anthracnose / alternaria dots): too small for the lesion threshold and the
 * large-scale peel background, found by a centre-surround response instead.
 */
import { boxSum4, labelComponents } from '@mango/core';
import type { FruitCrop } from './crop.ts';
import { isBlush, isGreener, SEED_RIM, shadingB } from './rules.ts';

/** Half-width of the spot detector's surround window, as a fraction of the fruit diameter. */
const SPOT_RADIUS = 0.04;
/** ...and at least this many pixels, so the surround of a small fruit is more than the spot itself. */
const SPOT_MIN_RADIUS = 2;
/** b* loss beyond pure darkening of the surround that a spot pixel needs (dark spots are brown/black: they lose yellow). */
const SPOT_YELLOW_LOSS = 3;
/** Smallest spot kept, in working-copy pixels. */
const SPOT_MIN_PIXELS = 4;
/** Candidate spot pixels are at least this share of the seed threshold darker than their surround. */
const SPOT_CANDIDATE_SHARE = 0.5;

/**
 * Small dark spots (anthracnose / alternaria dots, below minLesionFraction or too small for the
 * large-scale background): pixels at least darkening/2 darker than the mean peel in a box of
 * half-width SPOT_RADIUS x diameter around them (a centre-surround response), with at least
 * SPOT_YELLOW_LOSS less b* than a pure darkening of the surround would leave (surround b* x (L* + 16)
 * / (surround L* + 16): a shadow or pit keeps its hue, rotten tissue loses yellow), neither blush nor
 * greener than the surround; 8-connected groups of them holding a seed (darkening or more, SEED_RIM
 * inside the outline) and at least SPOT_MIN_PIXELS pixels. `dist`: squared distance to the outline.
 */
export function darkSpots(crop: FruitCrop, dist: Float32Array, darkening: number): Uint8Array {
  const { width: w, height: h, fruit, L, A, B, diameter } = crop;
  const n = w * h;
  const rs = Math.max(SPOT_MIN_RADIUS, Math.round(SPOT_RADIUS * diameter));
  const src = new Float32Array(n * 4);
  for (let i = 0; i < n; i++) {
    if (!fruit[i]) continue;
    src[i * 4] = 1;
    src[i * 4 + 1] = L[i];
    src[i * 4 + 2] = A[i];
    src[i * 4 + 3] = B[i];
  }
  const mean = new Float32Array(n * 4);
  boxSum4(src, mean, w, h, rs);
  const rim = SEED_RIM * diameter;
  const cand = new Uint8Array(n);
  const seed = new Uint8Array(n);
  for (let i = 0; i < n; i++) {
    if (!fruit[i]) continue;
    const c = mean[i * 4];
    const mL = mean[i * 4 + 1] / c;
    const mA = mean[i * 4 + 2] / c;
    const mB = mean[i * 4 + 3] / c;
    const sL = mL - L[i];
    // Yellow lost beyond what a pure darkening (shadow, pit) of the surround would leave.
    const shadedB = shadingB(mB, mL, L[i]);
    if (sL < darkening * SPOT_CANDIDATE_SHARE || shadedB - B[i] < SPOT_YELLOW_LOSS) continue;
    if (isBlush(A[i], B[i], mA, mB) || isGreener(A[i], A[i] - mA)) continue;
    cand[i] = 1;
    if (sL >= darkening && dist[i] >= rim * rim) seed[i] = 1;
  }
  const { labels, count, areas } = labelComponents(cand, w, h, 8);
  const keep = new Uint8Array(count + 1);
  for (let i = 0; i < n; i++) if (seed[i]) keep[labels[i]] = 1;
  for (let k = 1; k <= count; k++) if (areas[k] < SPOT_MIN_PIXELS) keep[k] = 0;
  for (let i = 0; i < n; i++) cand[i] = keep[labels[i]];
  return cand;
}
