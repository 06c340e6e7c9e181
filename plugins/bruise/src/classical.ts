/**
 * Classical bruise detection: inside each fruit, bruised tissue is peel that is clearly darker than
 * that fruit's own healthy peel around it and has lost chroma (olive / brown rather than the
 * green-yellow-red of sound peel). See README.md for the method and the choice of every default.
 */
import type { RasterImage } from '@mango/core';
import { fillHolesInPlace, labelComponents, outlineDistanceSquared, rgb8ToLab } from '@mango/core';

export interface ClassicalParams {
  /** L* drop below the local healthy peel that starts a lesion (its seed threshold). */
  darkening: number;
  /** Smallest lesion kept, as a fraction of its fruit's area. */
  minLesionFraction: number;
}

export const DEFAULT_CLASSICAL: ClassicalParams = { darkening: 12, minLesionFraction: 0.002 };

/** Half-width of each of the two box passes of the peel background, as a fraction of the fruit diameter. */
const BACKGROUND_RADIUS = 0.06;
/** Rings of distance to the outline of the edge-shading profile. */
const PROFILE_RINGS = 16;
/** The background grid's cell size is chosen so that the fine window spans about this many cells either side. */
const GRID_CELLS_PER_RADIUS = 3;

/**
 * Box smoothing of 4 interleaved channels on a w x h grid: two (2r+1)^2 running-sum windows in a
 * row (a triangle-like kernel), clipped at the borders; O(n) for any r. `tmp` and `out` are
 * caller-owned buffers of src.length.
 */
function smooth4(src: Float32Array, w: number, h: number, r: number, tmp: Float32Array, out: Float32Array): void {
  box4(src, tmp, w, h, r);
  box4(tmp, out, w, h, r);
}

/** One separable (2r+1)^2 box sum of 4 interleaved channels: rows into `out`, then its columns in place. */
function box4(src: Float32Array, out: Float32Array, w: number, h: number, r: number): void {
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

/**
 * Weighted least-squares fit of a quadratic surface c0 + c1·u + c2·v + c3·u² + c4·u·v + c5·v² (the
 * fruit-wide lighting gradient) to the points (u[k], v[k]) with values sum[k] / count[k], weighted by
 * count[k] (points with count 0 are left out); returns the 6 coefficients.
 */
function fitQuadratic(u: Float32Array, v: Float32Array, count: Float32Array, sum: Float32Array): Float64Array {
  const m = 6;
  const ata = new Float64Array(m * m);
  const atb = new Float64Array(m);
  const f = new Float64Array(m);
  for (let k = 0; k < count.length; k++) {
    const wt = count[k];
    if (!wt) continue;
    const val = sum[k] / wt;
    f[0] = 1;
    f[1] = u[k];
    f[2] = v[k];
    f[3] = u[k] * u[k];
    f[4] = u[k] * v[k];
    f[5] = v[k] * v[k];
    for (let r = 0; r < m; r++) {
      atb[r] += wt * f[r] * val;
      for (let c = r; c < m; c++) ata[r * m + c] += wt * f[r] * f[c];
    }
  }
  for (let r = 0; r < m; r++) for (let c = 0; c < r; c++) ata[r * m + c] = ata[c * m + r];
  // Small ridge keeps the system solvable for thin or tiny fruit.
  for (let r = 0; r < m; r++) ata[r * m + r] += 1e-6 * (ata[0] + 1);
  return solve(ata, atb, m);
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
  const hist = new Int32Array(PROFILE_RINGS * BINS);
  const total = new Int32Array(PROFILE_RINGS);
  for (let i = 0; i < L.length; i++) {
    if (!fruit[i]) continue;
    const v = Math.max(0, Math.min(BINS - 1, Math.floor(L[i] * 2)));
    hist[bin[i] * BINS + v]++;
    total[bin[i]]++;
  }
  const cut = new Float32Array(PROFILE_RINGS);
  for (let k = 0; k < PROFILE_RINGS; k++) {
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
  dist: Float32Array;
  L: Float32Array;
  a: Float32Array;
  b: Float32Array;
}

/**
 * The healthy-peel colour expected at each pixel of one fruit (crop coordinates): a normalised
 * convolution of the peel with the lesion and highlight candidates left out (iterated, so large
 * lesions are bridged from the sound peel around them) on top of a quadratic lighting trend, plus a
 * profile of the shading toward the outline that a smooth background cannot follow. Trend and
 * convolution run on a grid of g x g pixel cells (sums of the full-resolution healthy pixels) and
 * are upsampled bilinearly: the background is smooth at the scale of its window (the fine window
 * spans about GRID_CELLS_PER_RADIUS cells either side), so the reduced grid loses nothing that
 * matters and costs a few full-resolution passes per iteration.
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
  const rFull = Math.max(1, Math.round(BACKGROUND_RADIUS * diameter));
  const g = Math.max(1, Math.floor(rFull / GRID_CELLS_PER_RADIUS));
  const gw = Math.ceil(w / g);
  const gh = Math.ceil(h / g);
  const gn = gw * gh;
  const r = Math.max(1, Math.round(rFull / g));
  const rc = Math.max(r + 1, Math.round((COARSE_RADIUS * diameter) / g));
  const cellX = new Int32Array(w);
  for (let x = 0; x < w; x++) cellX[x] = Math.floor(x / g);

  const dist = outlineDistanceSquared(fruit, w, h);
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
  const half = Math.max(1, diameter / 2);
  // Cell centres (the middle of the cell's pixels, clipped to the crop) in trend coordinates.
  const cu = new Float32Array(gn);
  const cv = new Float32Array(gn);
  for (let j = 0; j < gh; j++)
    for (let i = 0; i < gw; i++) {
      cu[j * gw + i] = ((i * g + Math.min(w, (i + 1) * g) - 1) / 2 - cx) / half;
      cv[j * gw + i] = ((j * g + Math.min(h, (j + 1) * g) - 1) / 2 - cy) / half;
    }
  // Bilinear taps from the grid back to the pixels.
  const taps = (len: number, cells: number) => {
    const t0 = new Int32Array(len);
    const t1 = new Int32Array(len);
    const fr = new Float32Array(len);
    for (let p = 0; p < len; p++) {
      const q = Math.min(cells - 1, Math.max(0, (p - (g - 1) / 2) / g));
      t0[p] = Math.floor(q);
      t1[p] = Math.min(cells - 1, t0[p] + 1);
      fr[p] = q - t0[p];
    }
    return { t0, t1, fr };
  };
  const tx = taps(w, gw);
  const ty = taps(h, gh);

  const tmp = new Float32Array(gn * 4);
  const fine = new Float32Array(gn * 4);
  const coarse = new Float32Array(gn * 4);
  const sums = new Float32Array(gn * 4);
  const fruitDen = new Float32Array(gn * 4);
  for (let y = 0; y < h; y++) {
    const cr = Math.floor(y / g) * gw;
    for (let x = 0; x < w; x++) if (fruit[y * w + x]) sums[(cr + cellX[x]) * 4]++;
  }
  smooth4(sums, gw, gh, r, tmp, fruitDen);

  // Rings of distance to the outline for the shading profile (square-root spacing puts more rings
  // near the outline, where shading changes fastest).
  const bin = new Uint8Array(n);
  for (let i = 0; i < n; i++)
    if (fruit[i])
      bin[i] = Math.min(PROFILE_RINGS - 1, Math.floor(Math.sqrt(Math.sqrt(dist[i]) / half) * PROFILE_RINGS));
  // Start without the darkest share of every ring: a lesion covering a large part of the fruit
  // would otherwise drag the first background estimate down with it.
  const weight = new Uint8Array(n);
  const ringCut = ringPercentile(L, fruit, bin, INITIAL_DARK_SHARE);
  for (let i = 0; i < n; i++) weight[i] = fruit[i] && L[i] >= ringCut[bin[i]] ? 1 : 0;
  /** Cell sums of the healthy pixels (count, L*, a*, b*); the last pass of each iteration adds to them. */
  const addToCells = (i: number, cell: number) => {
    const c = cell * 4;
    sums[c]++;
    sums[c + 1] += L[i];
    sums[c + 2] += A[i];
    sums[c + 3] += B[i];
  };
  sums.fill(0);
  for (let y = 0; y < h; y++) {
    const cr = Math.floor(y / g) * gw;
    for (let x = 0, i = y * w; x < w; x++, i++) if (weight[i]) addToCells(i, cr + cellX[x]);
  }
  const bgL = new Float32Array(n);
  const bgA = new Float32Array(n);
  const bgB = new Float32Array(n);
  const count = new Float32Array(gn);
  const sumL = new Float32Array(gn);
  const gridL = new Float32Array(gn);
  const gridA = new Float32Array(gn);
  const gridB = new Float32Array(gn);
  const prof = new Float64Array(PROFILE_RINGS);
  const profN = new Float64Array(PROFILE_RINGS);
  const minDen = 0.5;
  /** Bilinear value of a grid plane at pixel (x, y). */
  const up = (plane: Float32Array, x: number, y: number) => {
    const fx = tx.fr[x];
    const fy = ty.fr[y];
    const r0 = ty.t0[y] * gw;
    const r1 = ty.t1[y] * gw;
    const a0 = plane[r0 + tx.t0[x]];
    const a1 = plane[r0 + tx.t1[x]];
    const b0 = plane[r1 + tx.t0[x]];
    const b1 = plane[r1 + tx.t1[x]];
    return (a0 + fx * (a1 - a0)) * (1 - fy) + (b0 + fx * (b1 - b0)) * fy;
  };
  for (let iter = 0; iter < ITERATIONS; iter++) {
    // (sums holds the cell sums of the healthy pixels: count, L*, a*, b*.)
    let tw = 0;
    let ta = 0;
    let tb = 0;
    for (let k = 0; k < gn; k++) {
      count[k] = sums[k * 4];
      sumL[k] = sums[k * 4 + 1];
      tw += sums[k * 4];
      ta += sums[k * 4 + 2];
      tb += sums[k * 4 + 3];
    }
    // Lighting trend; the convolution smooths the L* residual around it.
    const q = fitQuadratic(cu, cv, count, sumL);
    let tl = 0;
    for (let k = 0; k < gn; k++) {
      const u = cu[k];
      const v = cv[k];
      const trend = q[0] + q[1] * u + q[2] * v + q[3] * u * u + q[4] * u * v + q[5] * v * v;
      gridL[k] = trend;
      sums[k * 4 + 1] -= count[k] * trend;
      tl += sums[k * 4 + 1];
    }
    // Fruit-wide means for cells whose window holds no healthy peel at all.
    const mL = tw > 0 ? tl / tw : 0;
    const mA = tw > 0 ? ta / tw : 0;
    const mB = tw > 0 ? tb / tw : 0;
    smooth4(sums, gw, gh, rc, tmp, coarse);
    if (iter > 0) smooth4(sums, gw, gh, r, tmp, fine);
    for (let k = 0; k < gn; k++) {
      // Coarse scale first (bridges large lesions), then the fine scale wherever its window
      // holds enough healthy peel (follows shading closely).
      const c = k * 4;
      const cd = coarse[c];
      let l = mL;
      let a = mA;
      let b = mB;
      if (cd > minDen) {
        l = coarse[c + 1] / cd;
        a = coarse[c + 2] / cd;
        b = coarse[c + 3] / cd;
      }
      if (iter > 0) {
        const d = fine[c];
        const t = Math.min(1, d / (FINE_SUPPORT * Math.max(1e-6, fruitDen[c])));
        if (d > minDen && t > 0) {
          l += t * (fine[c + 1] / d - l);
          a += t * (fine[c + 2] / d - a);
          b += t * (fine[c + 3] / d - b);
        }
      }
      gridL[k] += l;
      gridA[k] = a;
      gridB[k] = b;
    }
    // Back to the pixels; edge-shading profile = mean residual of the healthy peel per ring.
    prof.fill(0);
    profN.fill(0);
    for (let y = 0; y < h; y++)
      for (let x = 0, i = y * w; x < w; x++, i++) {
        if (!fruit[i]) continue;
        bgL[i] = up(gridL, x, y);
        if (weight[i]) {
          prof[bin[i]] += L[i] - bgL[i];
          profN[bin[i]]++;
        }
      }
    for (let k = 0; k < PROFILE_RINGS; k++) prof[k] = profN[k] > 0 ? prof[k] / profN[k] : 0;
    const last = iter === ITERATIONS - 1;
    if (!last) sums.fill(0);
    for (let y = 0; y < h; y++) {
      const cr = Math.floor(y / g) * gw;
      for (let x = 0, i = y * w; x < w; x++, i++) {
        if (!fruit[i]) continue;
        bgL[i] += prof[bin[i]];
        const e = bgL[i] - L[i];
        // a*, b* of the background are needed for the blush test of darker pixels, and at the end.
        if (last || e >= EXCLUDE_DARKER) {
          bgA[i] = up(gridA, x, y);
          bgB[i] = up(gridB, x, y);
        }
        if (last) continue;
        // Leave out what looks like lesion (darker than the current estimate) or highlight; blush
        // stays in the background even when darker: the background must follow it.
        const keep = (e < EXCLUDE_DARKER || isBlush(A[i], B[i], bgA[i], bgB[i])) && e > -EXCLUDE_BRIGHTER;
        weight[i] = keep ? 1 : 0;
        if (keep) addToCells(i, cr + cellX[x]);
      }
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
  dist: Float32Array,
  colour?: { L: Float32Array; A: Float32Array; B: Float32Array; bg: PeelBackground },
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
  if (colour) dropNaturalPeel(colour, fruit, lab2.labels, lab2.areas, lab2.count, w, h, diameter, drop);
  for (let i = 0; i < n; i++) if (lab2.labels[i] && drop[lab2.labels[i]]) out[i] = 0;
  fillHolesInPlace(out, w, h);
  for (let i = 0; i < n; i++) out[i] &= fruit[i];
  return out;
}

/** Lesions whose ring of peel just outside is still at least this share as dark as the lesion are soft-edged: shading or colour patches. */
const EDGE_CONTRAST_MIN = 0.7;
/**
 * ...unless the lesion has lost more than this much b* against pure shading of its peel: a bruise
 * or rot that fades out gently is still tissue damage. 6: the smallest value that keeps pure
 * shading dropped in the synthetic tests (4 marked a broad one-sided shadow) and still finds a brown
 * bruise fading out over 16 px (8 did not); dev sets: senmango AUC 0.927 -> 0.926, Stem end Rot
 * median 6.2 % -> 7.0 %.
 */
const EDGE_RULE_YELLOW_LOSS = 6;
/** Width of that ring, as a fraction of the fruit diameter. */
const RING_WIDTH = 0.03;
/** a* drop below the peel (with a* < 0) that makes a region greener than its peel: unripe green, not bruise. */
const GREENER = 5;
/** A lesion keeping this much more b* than pure shading of its peel would leave is natural pigment. */
const SATURATION_SLACK = 4;

/**
 * Marks in `drop` the lesions that are natural peel rather than tissue damage, from the colour of the
 * lesion against its peel background (means over the lesion):
 * - soft edge: the ring of RING_WIDTH x diameter just outside is on average darker than the
 *   background by more than (1 - EDGE_CONTRAST_MIN) of the lesion's own mean darkening (a shaded side
 *   or a darker colour patch fades out; a lesion has an edge), unless it has lost more than
 *   EDGE_RULE_YELLOW_LOSS b* against pure shading (a bruise that fades out gently);
 * - greener: mean a* < 0 and more than GREENER below the background a* (unripe green patch);
 * - as saturated as shading: pure shading scales L*+16, a*, b* by one factor, so the b* shading would
 *   leave is bgB x (L + 16) / (bgL + 16); a darker region with more than SATURATION_SLACK more b* than
 *   that has kept (or deepened) its pigment: a colour patch. Bruised and rotten tissue loses yellow.
 */
function dropNaturalPeel(
  colour: { L: Float32Array; A: Float32Array; B: Float32Array; bg: PeelBackground },
  fruit: Uint8Array,
  labels: Int32Array,
  areas: number[],
  count: number,
  w: number,
  h: number,
  diameter: number,
  drop: Uint8Array,
): void {
  const { L, A, B, bg } = colour;
  const n = w * h;
  const K = count + 1;
  const core = new Float64Array(K);
  const ringE = new Float64Array(K);
  const ringN = new Float64Array(K);
  const sa = new Float64Array(K);
  const sda = new Float64Array(K);
  const sb = new Float64Array(K);
  const sbgb = new Float64Array(K);
  const sL = new Float64Array(K);
  const sbgL = new Float64Array(K);
  const own = new Int32Array(n);
  const queue = new Int32Array(n);
  let qe = 0;
  for (let i = 0; i < n; i++) {
    const k = labels[i];
    if (!k) continue;
    own[i] = k;
    queue[qe++] = i;
    core[k] += bg.L[i] - L[i];
    sa[k] += A[i];
    sda[k] += A[i] - bg.a[i];
    sb[k] += B[i];
    sbgb[k] += bg.b[i];
    sL[k] += L[i];
    sbgL[k] += bg.L[i];
  }
  // The ring: breadth-first from all lesions at once (each ring pixel belongs to the nearest lesion).
  const steps = Math.max(2, Math.round(RING_WIDTH * diameter));
  let qs = 0;
  for (let st = 1; st <= steps; st++) {
    const end = qe;
    for (; qs < end; qs++) {
      const i = queue[qs];
      const x = i % w;
      const k = own[i];
      for (let t = 0; t < 4; t++) {
        const j = t === 0 ? (x > 0 ? i - 1 : -1) : t === 1 ? (x < w - 1 ? i + 1 : -1) : t === 2 ? i - w : i + w;
        if (j < 0 || j >= n || own[j] || !fruit[j]) continue;
        own[j] = k;
        queue[qe++] = j;
        ringE[k] += bg.L[j] - L[j];
        ringN[k]++;
      }
    }
  }
  for (let k = 1; k <= count; k++) {
    if (drop[k]) continue;
    const a = areas[k];
    const contrast = 1 - (ringN[k] ? ringE[k] / ringN[k] : 0) / Math.max(1e-6, core[k] / a);
    const greener = sa[k] / a < 0 && sda[k] / a < -GREENER;
    const shadingB = ((sbgb[k] / a) * (sL[k] / a + 16)) / (sbgL[k] / a + 16);
    const pigment = sb[k] / a - shadingB > SATURATION_SLACK;
    const losesYellow = shadingB - sb[k] / a > EDGE_RULE_YELLOW_LOSS;
    if ((contrast < EDGE_CONTRAST_MIN && !losesYellow) || greener || pigment) drop[k] = 1;
  }
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
    // CIELAB of the fruit's pixels only (the rest of the box is never read).
    const fruit = new Uint8Array(w * h);
    const L = new Float32Array(w * h);
    const A = new Float32Array(w * h);
    const B = new Float32Array(w * h);
    const lab = new Float64Array(3);
    const data = image.data;
    for (let y = 0; y < h; y++) {
      const srcRow = (y + y0) * W + x0;
      for (let x = 0; x < w; x++) {
        if (fruitLabels[srcRow + x] !== k) continue;
        const i = y * w + x;
        const j = (srcRow + x) * 4;
        fruit[i] = 1;
        rgb8ToLab(data[j], data[j + 1], data[j + 2], lab);
        L[i] = lab[0];
        A[i] = lab[1];
        B[i] = lab[2];
      }
    }
    const diameter = 2 * Math.sqrt(bx.area / Math.PI);
    const bg = peelBackground(L, A, B, fruit, w, h, diameter);
    const e = bruiseEvidence(L, A, B, bg, fruit);
    const lesions = lesionsFromEvidence(e, fruit, w, h, bx.area, params, bg.dist, { L, A, B, bg });
    const spots = darkSpots(L, A, B, fruit, w, h, diameter, bg.dist, params.darkening);
    for (let i = 0; i < w * h; i++) lesions[i] |= spots[i];
    for (let y = 0; y < h; y++) {
      const dst = (y + y0) * W + x0;
      for (let x = 0; x < w; x++) if (lesions[y * w + x]) out[dst + x] = 1;
    }
  }
  return out;
}

/** Half-width of the spot detector's surround window, as a fraction of the fruit diameter. */
const SPOT_RADIUS = 0.04;
/** b* loss beyond pure darkening of the surround that a spot pixel needs (dark spots are brown/black: they lose yellow). */
const SPOT_YELLOW_LOSS = 3;
/** Smallest spot kept, in working-copy pixels. */
const SPOT_MIN_PIXELS = 4;

/**
 * Small dark spots (anthracnose / alternaria dots, below minLesionFraction or too small for the
 * large-scale background): pixels at least darkening/2 darker than the mean peel in a box of
 * half-width SPOT_RADIUS x diameter around them (a centre-surround response), with at least
 * SPOT_YELLOW_LOSS less b* than a pure darkening of the surround would leave (surround b* x (L* + 16)
 * / (surround L* + 16): a shadow or pit keeps its hue, rotten tissue loses yellow), neither blush nor greener than the surround; 8-connected groups of them
 * holding a seed (darkening or more, SEED_RIM inside the outline) and at least SPOT_MIN_PIXELS pixels.
 */
export function darkSpots(
  L: Float32Array,
  A: Float32Array,
  B: Float32Array,
  fruit: Uint8Array,
  w: number,
  h: number,
  diameter: number,
  dist: Float32Array,
  darkening: number,
): Uint8Array {
  const n = w * h;
  const rs = Math.max(2, Math.round(SPOT_RADIUS * diameter));
  const src = new Float32Array(n * 4);
  for (let i = 0; i < n; i++) {
    if (!fruit[i]) continue;
    src[i * 4] = 1;
    src[i * 4 + 1] = L[i];
    src[i * 4 + 2] = A[i];
    src[i * 4 + 3] = B[i];
  }
  const mean = new Float32Array(n * 4);
  box4(src, mean, w, h, rs);
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
    const shadingB = (mB * (L[i] + 16)) / (mL + 16);
    if (sL < darkening / 2 || shadingB - B[i] < SPOT_YELLOW_LOSS) continue;
    if (isBlush(A[i], B[i], mA, mB) || (A[i] < 0 && A[i] - mA < -GREENER)) continue;
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
