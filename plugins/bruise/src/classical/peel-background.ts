/**
 * The healthy-peel colour expected at each pixel of one fruit: the lighting trend, a normalised
 * convolution of the peel without its lesions, and the shading toward the outline.
 */
import { boxSum4, maskCentroid, outlineDistanceSquared } from '@mango/core';
import type { FruitCrop } from './crop.ts';
import { isBlush } from './rules.ts';

/** Half-width of each of the two box passes of the peel background, as a fraction of the fruit diameter. */
const BACKGROUND_RADIUS = 0.06;
/** Rings of distance to the outline of the edge-shading profile. */
const PROFILE_RINGS = 16;
/** The background grid's cell size is chosen so that the fine window spans about this many cells either side. */
const GRID_CELLS_PER_RADIUS = 3;
/** Coarse scale (fraction of the diameter) used where the fine window is mostly lesion: it bridges large lesions. */
const COARSE_RADIUS = 0.2;
/** Healthy share of the fine window (against the fruit in it) at which the fine scale is fully trusted. */
const FINE_SUPPORT = 0.4;
/** Background passes: the first at the coarse scale only, each later one without the lesions found so far. */
const ITERATIONS = 4;
/** Pixels this much darker (L*) than the current background estimate are left out of the next one (lesion candidates). */
const EXCLUDE_DARKER = 4.5;
/** Pixels this much brighter (L*) than the current estimate are left out too (specular highlights). */
const EXCLUDE_BRIGHTER = 15;
/** Share of each ring's darkest pixels left out of the first background estimate (a large lesion must not drag it down). */
const INITIAL_DARK_SHARE = 0.3;
/** Smallest window weight (healthy pixels) whose mean is used; below it the fruit-wide mean stands in. */
const MIN_WINDOW_WEIGHT = 0.5;
/** Histogram bins of the ring percentiles: 0.5 L* each over L* 0..110 (L* tops out at 100). */
const RING_HISTOGRAM_BINS = 220;
/** Ridge (relative to the total weight) that keeps the trend fit solvable for thin or tiny fruit. */
const FIT_RIDGE = 1e-6;

/**
 * Box smoothing of 4 interleaved channels on a w x h grid: two (2r+1)^2 running-sum windows in a
 * row (a triangle-like kernel), clipped at the borders; O(n) for any r. `tmp` and `out` are
 * caller-owned buffers of src.length.
 */
function smooth4(src: Float32Array, w: number, h: number, r: number, tmp: Float32Array, out: Float32Array): void {
  boxSum4(src, tmp, w, h, r);
  boxSum4(tmp, out, w, h, r);
}

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
  for (let r = 0; r < m; r++) ata[r * m + r] += FIT_RIDGE * (ata[0] + 1);
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
  const hist = new Int32Array(PROFILE_RINGS * RING_HISTOGRAM_BINS);
  const total = new Int32Array(PROFILE_RINGS);
  for (let i = 0; i < L.length; i++) {
    if (!fruit[i]) continue;
    const v = Math.max(0, Math.min(RING_HISTOGRAM_BINS - 1, Math.floor(L[i] * 2)));
    hist[bin[i] * RING_HISTOGRAM_BINS + v]++;
    total[bin[i]]++;
  }
  const cut = new Float32Array(PROFILE_RINGS);
  for (let k = 0; k < PROFILE_RINGS; k++) {
    const target = total[k] * share;
    let acc = 0;
    let v = 0;
    for (; v < RING_HISTOGRAM_BINS; v++) {
      acc += hist[k * RING_HISTOGRAM_BINS + v];
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
export function peelBackground(crop: FruitCrop): PeelBackground {
  const { width: w, height: h, fruit, L, A, B, diameter } = crop;
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
  const { x: cx, y: cy } = maskCentroid(fruit, w, h);
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
  /**
   * Bilinear upsampling of a grid plane, in two steps: `across` interpolates every grid row along x
   * at each pixel column (gh x w values), `up` then interpolates two of those rows along y. The same
   * arithmetic as interpolating the four taps at each pixel (held in doubles), with fewer reads.
   */
  const rowsL = new Float64Array(gh * w);
  const rowsA = new Float64Array(gh * w);
  const rowsB = new Float64Array(gh * w);
  const across = (plane: Float32Array, rows: Float64Array) => {
    for (let j = 0; j < gh; j++)
      for (let x = 0; x < w; x++) {
        const a0 = plane[j * gw + tx.t0[x]];
        rows[j * w + x] = a0 + tx.fr[x] * (plane[j * gw + tx.t1[x]] - a0);
      }
  };
  // Each row's fruit pixels lie within [spanX0[y], spanX1[y]): the loops below skip the rest.
  const spanX0 = new Int32Array(h);
  const spanX1 = new Int32Array(h);
  for (let y = 0; y < h; y++) {
    let x0 = 0;
    let x1 = w;
    while (x0 < w && !fruit[y * w + x0]) x0++;
    while (x1 > x0 && !fruit[y * w + x1 - 1]) x1--;
    spanX0[y] = x0;
    spanX1[y] = x1;
  }
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
      if (cd > MIN_WINDOW_WEIGHT) {
        l = coarse[c + 1] / cd;
        a = coarse[c + 2] / cd;
        b = coarse[c + 3] / cd;
      }
      if (iter > 0) {
        const d = fine[c];
        const t = Math.min(1, d / (FINE_SUPPORT * Math.max(1e-6, fruitDen[c])));
        if (d > MIN_WINDOW_WEIGHT && t > 0) {
          l += t * (fine[c + 1] / d - l);
          a += t * (fine[c + 2] / d - a);
          b += t * (fine[c + 3] / d - b);
        }
      }
      gridL[k] += l;
      gridA[k] = a;
      gridB[k] = b;
    }
    across(gridL, rowsL);
    across(gridA, rowsA);
    across(gridB, rowsB);
    // Back to the pixels; edge-shading profile = mean residual of the healthy peel per ring.
    prof.fill(0);
    profN.fill(0);
    // (The bilinear value of a plane at (x, y) is rows[r0 + x] * (1 - fy) + rows[r1 + x] * fy, with
    // the rows `across` filled; written out in the loops, which run over every fruit pixel.)
    for (let y = 0; y < h; y++) {
      const fy = ty.fr[y];
      const gy = 1 - fy;
      const r0 = ty.t0[y] * w;
      const r1 = ty.t1[y] * w;
      for (let x = spanX0[y], i = y * w + x, end = spanX1[y]; x < end; x++, i++) {
        if (!fruit[i]) continue;
        bgL[i] = rowsL[r0 + x] * gy + rowsL[r1 + x] * fy;
        if (weight[i]) {
          prof[bin[i]] += L[i] - bgL[i];
          profN[bin[i]]++;
        }
      }
    }
    for (let k = 0; k < PROFILE_RINGS; k++) prof[k] = profN[k] > 0 ? prof[k] / profN[k] : 0;
    const last = iter === ITERATIONS - 1;
    if (!last) sums.fill(0);
    for (let y = 0; y < h; y++) {
      const cr = Math.floor(y / g) * gw;
      const fy = ty.fr[y];
      const gy = 1 - fy;
      const r0 = ty.t0[y] * w;
      const r1 = ty.t1[y] * w;
      for (let x = spanX0[y], i = y * w + x, end = spanX1[y]; x < end; x++, i++) {
        if (!fruit[i]) continue;
        bgL[i] += prof[bin[i]];
        const e = bgL[i] - L[i];
        // a*, b* of the background are needed for the blush test of darker pixels, and at the end.
        if (last || e >= EXCLUDE_DARKER) {
          bgA[i] = rowsA[r0 + x] * gy + rowsA[r1 + x] * fy;
          bgB[i] = rowsB[r0 + x] * gy + rowsB[r1 + x] * fy;
        }
        if (last) continue;
        // Leave out what looks like lesion (darker than the current estimate) or highlight; blush
        // stays in the background even when darker: the background must follow it.
        const keep = (e < EXCLUDE_DARKER || isBlush(A[i], B[i], bgA[i], bgB[i])) && e > -EXCLUDE_BRIGHTER;
        weight[i] = keep ? 1 : 0;
        if (keep) {
          const c = (cr + cellX[x]) * 4;
          sums[c]++;
          sums[c + 1] += L[i];
          sums[c + 2] += A[i];
          sums[c + 3] += B[i];
        }
      }
    }
  }
  return { dist, L: bgL, a: bgA, b: bgB };
}
