/**
 * Lesion evidence: how much darker each fruit pixel is than its healthy peel, and the lesions that
 * evidence outlines (seeded, cut at their half-maximum, without specks, the stem end and natural peel).
 */
import { fillHolesInPlace, labelComponents } from '@mango/core';
import type { FruitCrop } from './crop.ts';
import { dropNaturalPeel } from './natural-peel.ts';
import type { PeelBackground } from './peel-background.ts';
import { isBlush, SEED_RIM } from './rules.ts';

export interface ClassicalParams {
  /** L* drop below the local healthy peel that starts a lesion (its seed threshold). */
  darkening: number;
  /** Smallest lesion kept, as a fraction of its fruit's area. */
  minLesionFraction: number;
}

export const DEFAULT_CLASSICAL: ClassicalParams = { darkening: 12, minLesionFraction: 0.002 };

/** A lesion smaller than this share of the fruit whose mean depth inside the outline is below STEM_DEPTH x diameter is the stem end. */
const STEM_MAX_FRACTION = 0.012;
/** Mean depth inside the outline (fraction of the diameter) below which a small lesion hugs the outline: the stem end. */
const STEM_DEPTH = 0.04;
/** Candidates are connected regions at least this share of the seed threshold darker than the peel. */
const CANDIDATE_SHARE = 0.5;
/** Each lesion keeps the pixels at least this share of its own peak darkening (its half-maximum outline). */
const PEAK_SHARE = 0.5;
/** Fewest pixels of a lesion at any fruit size (a single pixel is noise). */
const MIN_LESION_PIXELS = 2;

/**
 * Per-pixel bruise evidence (crop coordinates): the L* drop below the healthy peel, set to 0 where
 * the pixel is redder and at least as saturated as the peel around it (blush, not bruise).
 */
export function bruiseEvidence(crop: FruitCrop, bg: PeelBackground): Float32Array {
  const { L, A, B, fruit } = crop;
  const n = L.length;
  const e = new Float32Array(n);
  for (let i = 0; i < n; i++) {
    if (!fruit[i]) continue;
    const drop = bg.L[i] - L[i];
    if (drop <= 0) continue;
    if (isBlush(A[i], B[i], bg.a[i], bg.b[i])) continue;
    e[i] = drop;
  }
  return e;
}

/**
 * Lesions from the evidence map: connected regions above half the seed threshold that contain a
 * seed; each region keeps the pixels at or above half of its own peak darkening (the lesion's
 * half-maximum outline), loses specks, and must cover minLesionFraction of the fruit.
 */
export function lesionsFromEvidence(
  crop: FruitCrop,
  bg: PeelBackground,
  e: Float32Array,
  params: ClassicalParams,
): Uint8Array {
  const { width: w, height: h, fruit, area: fruitArea, diameter } = crop;
  const dist = bg.dist;
  const n = w * h;
  // Seeds lie off the outline: a thin dark crescent along the shaded rim is shading, not a lesion.
  const rim = SEED_RIM * diameter;
  const rim2 = rim * rim;
  const low = params.darkening * CANDIDATE_SHARE;
  const cand = new Uint8Array(n);
  for (let i = 0; i < n; i++) cand[i] = fruit[i] && e[i] >= low ? 1 : 0;
  const { labels, count } = labelComponents(cand, w, h, 8);
  const peak = new Float32Array(count + 1);
  // Peak = a high percentile rather than the maximum, so one noisy pixel does not set the level:
  // approximated by the mean of the component's pixels above its seed threshold plus their spread.
  const sum = new Float64Array(count + 1);
  const sum2 = new Float64Array(count + 1);
  const cnt = new Float64Array(count + 1);
  for (let i = 0; i < n; i++) {
    const k = labels[i];
    if (!k || e[i] < params.darkening || dist[i] < rim2) continue;
    sum[k] += e[i];
    sum2[k] += e[i] * e[i];
    cnt[k]++;
  }
  for (let k = 1; k <= count; k++) {
    if (!cnt[k]) continue;
    const m = sum[k] / cnt[k];
    const sd = Math.sqrt(Math.max(0, sum2[k] / cnt[k] - m * m));
    peak[k] = m + sd;
  }
  const out = new Uint8Array(n);
  for (let i = 0; i < n; i++) {
    const k = labels[i];
    if (!k || !cnt[k]) continue;
    if (e[i] >= Math.max(low, PEAK_SHARE * peak[k])) out[i] = 1;
  }
  const minArea = Math.max(MIN_LESION_PIXELS, params.minLesionFraction * fruitArea);
  const lab2 = labelComponents(out, w, h, 8);
  // Small dark regions hugging the outline are the stem end (brown stalk and its scar), not bruise.
  const depth = new Float64Array(lab2.count + 1);
  for (let i = 0; i < n; i++) if (lab2.labels[i]) depth[lab2.labels[i]] += Math.sqrt(dist[i]);
  const drop = new Uint8Array(lab2.count + 1);
  for (let k = 1; k <= lab2.count; k++) {
    const area = lab2.areas[k];
    const stemLike = area < STEM_MAX_FRACTION * fruitArea && depth[k] / area < STEM_DEPTH * diameter;
    drop[k] = area < minArea || stemLike ? 1 : 0;
  }
  dropNaturalPeel(crop, bg, lab2, drop);
  for (let i = 0; i < n; i++) if (lab2.labels[i] && drop[lab2.labels[i]]) out[i] = 0;
  fillHolesInPlace(out, w, h);
  for (let i = 0; i < n; i++) out[i] &= fruit[i];
  return out;
}
