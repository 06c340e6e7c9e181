/**
 * Classical bruise detection: inside each fruit, bruised tissue is peel that is clearly darker than
 * that fruit's own healthy peel around it and has lost chroma (olive / brown rather than the
 * green-yellow-red of sound peel). See README.md for the method and the choice of every default.
 */
import type { RasterImage } from '@mango/core';
import { distanceTransformSquared, fillHoles, labelComponents, rgbaToLabPlanes } from '@mango/core';

export interface ClassicalParams {
  /** L* drop below the local healthy peel that starts a lesion (its seed threshold). */
  darkening: number;
  /** Smallest lesion kept, as a fraction of its fruit's area. */
  minLesionFraction: number;
}

export const DEFAULT_CLASSICAL: ClassicalParams = { darkening: 12, minLesionFraction: 0.002 };

/** Half-width of each of the two box passes of the peel background, as a fraction of the fruit diameter. */
const BACKGROUND_RADIUS = 0.06;
/** Rings of distance to the outline and angular sectors of the edge-shading profile. */
const PROFILE_RINGS = 16;
const PROFILE_SECTORS = 1;
const PROFILE_BINS = PROFILE_RINGS * PROFILE_SECTORS;

/** Running window sums over a (2r+1)^2 box, clipped at the borders; separable, O(n) for any r. */
function boxSum(src: Float32Array, w: number, h: number, r: number): Float32Array {
  const tmp = new Float32Array(w * h);
  const out = new Float32Array(w * h);
  for (let y = 0; y < h; y++) {
    const row = y * w;
    let s = 0;
    for (let x = 0; x <= Math.min(r, w - 1); x++) s += src[row + x];
    for (let x = 0; x < w; x++) {
      tmp[row + x] = s;
      const add = x + r + 1;
      const sub = x - r;
      if (add < w) s += src[row + add];
      if (sub >= 0) s -= src[row + sub];
    }
  }
  for (let x = 0; x < w; x++) {
    let s = 0;
    for (let y = 0; y <= Math.min(r, h - 1); y++) s += tmp[y * w + x];
    for (let y = 0; y < h; y++) {
      out[y * w + x] = s;
      const add = y + r + 1;
      const sub = y - r;
      if (add < h) s += tmp[add * w + x];
      if (sub >= 0) s -= tmp[sub * w + x];
    }
  }
  return out;
}

/** A rise of a* above the peel beyond this is blush (bruising shifts a* by a few units at most). */
const REDDER_IS_BLUSH = 8;

/** Seeds must lie at least this fraction of the fruit diameter inside the outline. */
const SEED_RIM = 0.05;

/** Coarse scale used where the fine window is mostly lesion; FINE_SUPPORT = healthy share that trusts the fine scale. */
const COARSE_RADIUS = 0.2;
const FINE_SUPPORT = 0.4;

/** Background passes: the first at the coarse scale only, each later one without the lesions found so far. */
const ITERATIONS = 4;

const BLUSH_RATIO = 0.8;

/** Pixels this much darker (L*) than the current background estimate are left out of the next one; so are highlights. */
const EXCLUDE_DARKER = 4.5;
const EXCLUDE_BRIGHTER = 15;

/** Share of each ring's darkest pixels left out of the first background estimate. */
const INITIAL_DARK_SHARE = 0.3;

/** Blush turns peel red (a* up much more than b* down); bruising mainly loses yellow (b* down). */
function isBlush(a: number, b: number, bgA: number, bgB: number): boolean {
  const redder = a - bgA;
  return redder > REDDER_IS_BLUSH && redder > BLUSH_RATIO * (bgB - b);
}

/** A lesion smaller than this share of the fruit whose mean depth inside the outline is below STEM_DEPTH x diameter is the stem end. */
const STEM_MAX_FRACTION = 0.012;
const STEM_DEPTH = 0.04;

const smooth = (src: Float32Array, w: number, h: number, r: number) => boxSum(boxSum(src, w, h, r), w, h, r);

/** Weighted least-squares fit of a quadratic surface in x, y (the fruit-wide lighting gradient). */
function fitQuadratic(
  v: Float32Array,
  weight: Float32Array,
  w: number,
  h: number,
  cx: number,
  cy: number,
  scale: number,
) {
  const m = 6;
  const ata = new Float64Array(m * m);
  const atb = new Float64Array(m);
  const f = new Float64Array(m);
  for (let y = 0; y < h; y++) {
    const v1 = (y - cy) / scale;
    for (let x = 0; x < w; x++) {
      const i = y * w + x;
      const wt = weight[i];
      if (!wt) continue;
      const u = (x - cx) / scale;
      f[0] = 1;
      f[1] = u;
      f[2] = v1;
      f[3] = u * u;
      f[4] = u * v1;
      f[5] = v1 * v1;
      for (let r = 0; r < m; r++) {
        atb[r] += wt * f[r] * v[i];
        for (let c = r; c < m; c++) ata[r * m + c] += wt * f[r] * f[c];
      }
    }
  }
  for (let r = 0; r < m; r++) for (let c = 0; c < r; c++) ata[r * m + c] = ata[c * m + r];
  // Small ridge keeps the system solvable for thin or tiny fruit.
  for (let r = 0; r < m; r++) ata[r * m + r] += 1e-6 * (ata[0] + 1);
  const coef = solve(ata, atb, m);
  const out = new Float32Array(w * h);
  for (let y = 0; y < h; y++) {
    const v1 = (y - cy) / scale;
    for (let x = 0; x < w; x++) {
      const u = (x - cx) / scale;
      out[y * w + x] = coef[0] + coef[1] * u + coef[2] * v1 + coef[3] * u * u + coef[4] * u * v1 + coef[5] * v1 * v1;
    }
  }
  return out;
}

/** Gaussian elimination with partial pivoting (tiny dense systems). */
function solve(a: Float64Array, b: Float64Array, m: number): Float64Array {
  const A = a.slice();
  const x = b.slice();
  for (let c = 0; c < m; c++) {
    let p = c;
    for (let r = c + 1; r < m; r++) if (Math.abs(A[r * m + c]) > Math.abs(A[p * m + c])) p = r;
    if (p !== c) {
      for (let k = 0; k < m; k++) [A[c * m + k], A[p * m + k]] = [A[p * m + k], A[c * m + k]];
      [x[c], x[p]] = [x[p], x[c]];
    }
    const d = A[c * m + c] || 1e-12;
    for (let r = c + 1; r < m; r++) {
      const f = A[r * m + c] / d;
      if (!f) continue;
      for (let k = c; k < m; k++) A[r * m + k] -= f * A[c * m + k];
      x[r] -= f * x[c];
    }
  }
  for (let c = m - 1; c >= 0; c--) {
    let s = x[c];
    for (let k = c + 1; k < m; k++) s -= A[c * m + k] * x[k];
    x[c] = s / (A[c * m + c] || 1e-12);
  }
  return x;
}

/** Per ring, the L* value below which the given share of its fruit pixels lies (histogram, 0.5 L* bins). */
function ringPercentile(L: Float32Array, fruit: Uint8Array, bin: Uint8Array, share: number): Float32Array {
  const BINS = 220;
  const hist = new Int32Array(PROFILE_BINS * BINS);
  const total = new Int32Array(PROFILE_BINS);
  for (let i = 0; i < L.length; i++) {
    if (!fruit[i]) continue;
    const v = Math.max(0, Math.min(BINS - 1, Math.floor(L[i] * 2)));
    hist[bin[i] * BINS + v]++;
    total[bin[i]]++;
  }
  const cut = new Float32Array(PROFILE_BINS);
  for (let k = 0; k < PROFILE_BINS; k++) {
    const target = total[k] * share;
    let acc = 0;
    let v = 0;
    for (; v < BINS; v++) {
      acc += hist[k * BINS + v];
      if (acc > target) break;
    }
    cut[k] = v / 2;
  }
  return cut;
}

export interface PeelBackground {
  /** squared distance to the fruit outline */
  dist: Float64Array;
  L: Float32Array;
  a: Float32Array;
  b: Float32Array;
}

/**
 * The healthy-peel colour expected at each pixel of one fruit (crop coordinates): a normalised
 * convolution of the peel with the lesion and highlight candidates left out (iterated, so large
 * lesions are bridged from the sound peel around them), plus a profile of the shading toward the
 * outline that a smooth background cannot follow.
 */
export function peelBackground(
  L: Float32Array,
  A: Float32Array,
  B: Float32Array,
  fruit: Uint8Array,
  w: number,
  h: number,
  diameter: number,
): PeelBackground {
  const n = w * h;
  const r = Math.max(1, Math.round(BACKGROUND_RADIUS * diameter));
  const rc = Math.max(r + 1, Math.round(COARSE_RADIUS * diameter));
  const fruitF = new Float32Array(n);
  for (let i = 0; i < n; i++) fruitF[i] = fruit[i];
  const fruitDen = smooth(fruitF, w, h, r);
  const dist = distanceTransformSquared(fruit, w, h, 1);
  // Cells of the shading profile: rings of distance to the outline (square-root spacing puts more
  // rings near the outline, where shading changes fastest) times angular sectors around the centre
  // (light usually comes from one side).
  let cx = 0;
  let cy = 0;
  let area = 0;
  for (let y = 0; y < h; y++)
    for (let x = 0; x < w; x++)
      if (fruit[y * w + x]) {
        cx += x;
        cy += y;
        area++;
      }
  cx /= Math.max(1, area);
  cy /= Math.max(1, area);
  const bin = new Uint8Array(n);
  const half = Math.max(1, diameter / 2);
  for (let y = 0; y < h; y++)
    for (let x = 0; x < w; x++) {
      const i = y * w + x;
      const ring = Math.min(PROFILE_RINGS - 1, Math.floor(Math.sqrt(Math.sqrt(dist[i]) / half) * PROFILE_RINGS));
      const ang = Math.atan2(y - cy, x - cx) / (2 * Math.PI) + 0.5;
      const sector = Math.min(PROFILE_SECTORS - 1, Math.floor(ang * PROFILE_SECTORS));
      bin[i] = ring * PROFILE_SECTORS + sector;
    }
  // Start without the darkest share of every ring: a lesion covering a large part of the fruit
  // would otherwise drag the first background estimate down with it.
  const weight = new Float32Array(n);
  const ringCut = ringPercentile(L, fruit, bin, INITIAL_DARK_SHARE);
  for (let i = 0; i < n; i++) weight[i] = fruit[i] && L[i] >= ringCut[bin[i]] ? 1 : 0;
  const bgL = new Float32Array(n);
  const bgA = new Float32Array(n);
  const bgB = new Float32Array(n);
  const wl = new Float32Array(n);
  const wa = new Float32Array(n);
  const wb = new Float32Array(n);
  for (let iter = 0; iter < ITERATIONS; iter++) {
    const trend = fitQuadratic(L, weight, w, h, cx, cy, half);
    for (let i = 0; i < n; i++) {
      wl[i] = (L[i] - trend[i]) * weight[i];
      wa[i] = A[i] * weight[i];
      wb[i] = B[i] * weight[i];
    }
    const den = smooth(weight, w, h, r);
    const sl = smooth(wl, w, h, r);
    const sa = smooth(wa, w, h, r);
    const sb = smooth(wb, w, h, r);
    const cden = smooth(weight, w, h, rc);
    const csl = smooth(wl, w, h, rc);
    const csa = smooth(wa, w, h, rc);
    const csb = smooth(wb, w, h, rc);
    // Fruit-wide means for pixels whose window holds no healthy peel at all.
    let tw = 0;
    let tl = 0;
    let ta = 0;
    let tb = 0;
    for (let i = 0; i < n; i++) {
      tw += weight[i];
      tl += wl[i];
      ta += wa[i];
      tb += wb[i];
    }
    const mL = tw > 0 ? tl / tw : 0;
    const mA = tw > 0 ? ta / tw : 0;
    const mB = tw > 0 ? tb / tw : 0;
    const minDen = 0.5;
    for (let i = 0; i < n; i++) {
      if (!fruit[i]) continue;
      // Coarse scale first (bridges large lesions), then the fine scale wherever its window
      // holds enough healthy peel (follows shading closely).
      const cd = cden[i];
      let l = mL;
      let a = mA;
      let b = mB;
      if (cd > minDen) {
        l = csl[i] / cd;
        a = csa[i] / cd;
        b = csb[i] / cd;
      }
      const d = den[i];
      const t = Math.min(1, d / (FINE_SUPPORT * Math.max(1e-6, fruitDen[i])));
      if (iter > 0 && d > minDen && t > 0) {
        l += t * (sl[i] / d - l);
        a += t * (sa[i] / d - a);
        b += t * (sb[i] / d - b);
      }
      bgL[i] = l + trend[i];
      bgA[i] = a;
      bgB[i] = b;
    }
    // Edge-shading profile: mean residual of the healthy peel per ring of distance to the outline.
    const sumR = new Float64Array(PROFILE_BINS);
    const cnt = new Float64Array(PROFILE_BINS);
    for (let i = 0; i < n; i++) {
      if (!weight[i]) continue;
      sumR[bin[i]] += L[i] - bgL[i];
      cnt[bin[i]]++;
    }
    const prof = new Float32Array(PROFILE_BINS);
    for (let k = 0; k < PROFILE_BINS; k++) prof[k] = cnt[k] > 0 ? sumR[k] / cnt[k] : 0;
    for (let i = 0; i < n; i++) if (fruit[i]) bgL[i] += prof[bin[i]];
    if (iter === ITERATIONS - 1) break;
    // Leave out what looks like lesion (darker than half the seed threshold) or highlight.
    for (let i = 0; i < n; i++) {
      if (!fruit[i]) continue;
      const e = bgL[i] - L[i];
      // Blush stays in the background even when darker: the background must follow it.
      weight[i] = (e < EXCLUDE_DARKER || isBlush(A[i], B[i], bgA[i], bgB[i])) && e > -EXCLUDE_BRIGHTER ? 1 : 0;
    }
  }
  return { dist, L: bgL, a: bgA, b: bgB };
}

/**
 * Per-pixel bruise evidence (crop coordinates): the L* drop below the healthy peel, set to 0 where
 * the pixel is redder and at least as saturated as the peel around it (blush, not bruise).
 */
export function bruiseEvidence(
  L: Float32Array,
  A: Float32Array,
  B: Float32Array,
  bg: PeelBackground,
  fruit: Uint8Array,
) {
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
  e: Float32Array,
  fruit: Uint8Array,
  w: number,
  h: number,
  fruitArea: number,
  params: ClassicalParams,
  dist: Float64Array,
): Uint8Array {
  const n = w * h;
  // Seeds lie off the outline: a thin dark crescent along the shaded rim is shading, not a lesion.
  const rim = SEED_RIM * 2 * Math.sqrt(fruitArea / Math.PI);
  const rim2 = rim * rim;
  const low = params.darkening * 0.5;
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
    if (e[i] >= Math.max(low, 0.5 * peak[k])) out[i] = 1;
  }
  const minArea = Math.max(2, params.minLesionFraction * fruitArea);
  const lab2 = labelComponents(out, w, h, 8);
  // Small dark regions hugging the outline are the stem end (brown stalk and its scar), not bruise.
  const depth = new Float64Array(lab2.count + 1);
  for (let i = 0; i < n; i++) if (lab2.labels[i]) depth[lab2.labels[i]] += Math.sqrt(dist[i]);
  const diameter = 2 * Math.sqrt(fruitArea / Math.PI);
  const drop = new Uint8Array(lab2.count + 1);
  for (let k = 1; k <= lab2.count; k++) {
    const area = lab2.areas[k];
    const stemLike = area < STEM_MAX_FRACTION * fruitArea && depth[k] / area < STEM_DEPTH * diameter;
    drop[k] = area < minArea || stemLike ? 1 : 0;
  }
  for (let i = 0; i < n; i++) if (lab2.labels[i] && drop[lab2.labels[i]]) out[i] = 0;
  const filled = fillHoles(out, w, h);
  for (let i = 0; i < n; i++) filled[i] &= fruit[i];
  return filled;
}

/**
 * The bruise mask of an image (same size as `image`) given its fruit labels (0 = background,
 * 1..count = fruit). Each fruit is processed in its bounding box with its own peel statistics.
 */
export function classicalBruiseMask(
  image: RasterImage,
  fruitLabels: Int32Array,
  fruitCount: number,
  params: ClassicalParams = DEFAULT_CLASSICAL,
): Uint8Array {
  const { width: W, height: H } = image;
  const out = new Uint8Array(W * H);
  const boxes = labelBoxes(fruitLabels, W, H, fruitCount);
  for (let k = 1; k <= fruitCount; k++) {
    const bx = boxes[k];
    if (!bx || bx.area < 16) continue;
    const { x0, y0, x1, y1 } = bx;
    const w = x1 - x0 + 1;
    const h = y1 - y0 + 1;
    const fruit = new Uint8Array(w * h);
    const rgba = new Uint8ClampedArray(w * h * 4);
    for (let y = 0; y < h; y++) {
      const srcRow = (y + y0) * W + x0;
      rgba.set(image.data.subarray(srcRow * 4, (srcRow + w) * 4), y * w * 4);
      for (let x = 0; x < w; x++) fruit[y * w + x] = fruitLabels[srcRow + x] === k ? 1 : 0;
    }
    const { L, A, B } = rgbaToLabPlanes(rgba, w * h);
    const diameter = 2 * Math.sqrt(bx.area / Math.PI);
    const bg = peelBackground(L, A, B, fruit, w, h, diameter);
    const e = bruiseEvidence(L, A, B, bg, fruit);
    const lesions = lesionsFromEvidence(e, fruit, w, h, bx.area, params, bg.dist);
    for (let y = 0; y < h; y++) {
      const dst = (y + y0) * W + x0;
      for (let x = 0; x < w; x++) if (lesions[y * w + x]) out[dst + x] = 1;
    }
  }
  return out;
}

/** Bounding box and area of every label 1..count in one pass. */
export function labelBoxes(labels: Int32Array, width: number, height: number, count: number) {
  const boxes: ({ x0: number; y0: number; x1: number; y1: number; area: number } | null)[] = new Array(count + 1).fill(
    null,
  );
  for (let y = 0; y < height; y++) {
    for (let x = 0; x < width; x++) {
      const k = labels[y * width + x];
      if (!k) continue;
      const b = boxes[k];
      if (!b) boxes[k] = { x0: x, y0: y, x1: x, y1: y, area: 1 };
      else {
        if (x < b.x0) b.x0 = x;
        if (x > b.x1) b.x1 = x;
        if (y > b.y1) b.y1 = y;
        b.area++;
      }
    }
  }
  return boxes;
}
