/**
 * The card's geometry refined against the photo itself: the card drawn as a model (each chip a
 * rectangle of its own level on the black frame, blurred) is fitted to the linear luminance of the
 * pixels over the card, by Levenberg-Marquardt over the 8 entries of the map pixels -> card, the
 * blur and the chips' width, the 25 levels solved by least squares at each step. Every chip edge then counts from both of
 * its sides with its real neighbour, so neither the blur nor JPEG's colour blocks move the pitch.
 */
import { linearLuminance, linearTable } from '../color.ts';
import type { RasterImage } from '../image.ts';
import { dampedStep, invert3, localScale, project, solveLinear, type Homography } from './geometry.ts';
import { CARD_COLUMNS, CARD_ROWS, CHIP_FRACTION } from './reference.ts';

/** At most this many pixels (a regular subsample of the card) enter the fit. */
const MAX_PIXELS = 8000;
const ITERATIONS = 8;
/** The card's part that is fitted (card units): inside the black frame, away from its outer edge. */
const AREA = { u0: -0.55, u1: CARD_COLUMNS - 0.45, v0: -0.7, v1: CARD_ROWS - 0.3 };
const CHIPS = CARD_COLUMNS * CARD_ROWS;
/** Logistic approximation of the normal CDF: a blurred edge. */
const K = 1.702;

/** The card's pixels (a regular subsample of AREA) and their linear luminance. */
function samples(image: RasterImage, h: Homography) {
  const lin = linearTable();
  const corners = [
    project(h, AREA.u0, AREA.v0),
    project(h, AREA.u1, AREA.v0),
    project(h, AREA.u1, AREA.v1),
    project(h, AREA.u0, AREA.v1),
  ];
  const x0 = Math.max(0, Math.floor(Math.min(...corners.map((p) => p.x))));
  const y0 = Math.max(0, Math.floor(Math.min(...corners.map((p) => p.y))));
  const x1 = Math.min(image.width - 1, Math.ceil(Math.max(...corners.map((p) => p.x))));
  const y1 = Math.min(image.height - 1, Math.ceil(Math.max(...corners.map((p) => p.y))));
  const stride = Math.max(1, Math.ceil(Math.sqrt(((x1 - x0 + 1) * (y1 - y0 + 1)) / MAX_PIXELS)));
  const inv = invert3(h)!;
  const xs: number[] = [];
  const ys: number[] = [];
  const values: number[] = [];
  const d = image.data;
  for (let y = y0; y <= y1; y += stride)
    for (let x = x0; x <= x1; x += stride) {
      const q = project(inv, x, y);
      if (q.x < AREA.u0 || q.x > AREA.u1 || q.y < AREA.v0 || q.y > AREA.v1) continue;
      const o = (y * image.width + x) * 4;
      xs.push(x);
      ys.push(y);
      values.push(linearLuminance(lin[d[o]], lin[d[o + 1]], lin[d[o + 2]]));
    }
  return { xs, ys, values, n: xs.length };
}

type Pixels = ReturnType<typeof samples>;

const sig = (x: number) => 1 / (1 + Math.exp(-K * x));

/**
 * A chip's blurred extent along one axis at offset d from its centre (card units): the weight
 * sig((half - d) / s) - sig((-half - d) / s) and its derivatives by d, by the blur s and by half.
 */
function span(d: number, half: number, s: number): { w: number; dd: number; ds: number; dhalf: number } {
  const a = sig((half - d) / s);
  const b = sig((-half - d) / s);
  // d sig(z) / dz = K sig (1 - sig); z = (±half - d) / s
  const da = K * a * (1 - a);
  const db = K * b * (1 - b);
  return {
    w: a - b,
    dd: (-da + db) / s,
    ds: (-da * (half - d) + db * (-half - d)) / (s * s),
    dhalf: (da + db) / s,
  };
}

/** Chips a pixel can see (the nearest and its neighbours). */
const SLOTS = 9;
/** Parameters: the map pixels -> card (8), the blur and the chip's half-width (card units). */
const P = 10;

/**
 * For the parameters g (the map pixels -> card, 8 entries with g33 = 1; the blur; the chip's
 * half-width, both in card units): each pixel's chip weights (the blurred rectangle of each chip near
 * it) and, when `grad`, their derivatives by the P parameters.
 */
function weigh(px: Pixels, g: number[], grad: boolean) {
  const s = g[8];
  const half = g[9];
  const chip = new Int16Array(px.n * SLOTS).fill(-1);
  const w = new Float64Array(px.n * SLOTS);
  const dw = grad ? new Float64Array(px.n * SLOTS * P) : null;
  for (let i = 0; i < px.n; i++) {
    const x = px.xs[i];
    const y = px.ys[i];
    const den = g[6] * x + g[7] * y + 1;
    const u = (g[0] * x + g[1] * y + g[2]) / den;
    const v = (g[3] * x + g[4] * y + g[5]) / den;
    let slot = 0;
    const c0 = Math.round(u);
    const r0 = Math.round(v);
    for (let r = r0 - 1; r <= r0 + 1; r++) {
      if (r < 0 || r >= CARD_ROWS) continue;
      const ev = span(v - r, half, s);
      if (ev.w < 1e-6) continue;
      for (let c = c0 - 1; c <= c0 + 1; c++) {
        if (c < 0 || c >= CARD_COLUMNS) continue;
        const eu = span(u - c, half, s);
        if (eu.w * ev.w < 1e-6) continue;
        const k = i * SLOTS + slot++;
        chip[k] = r * CARD_COLUMNS + c;
        w[k] = eu.w * ev.w;
        if (!dw) continue;
        const dW_du = eu.dd * ev.w;
        const dW_dv = eu.w * ev.dd;
        const o = k * P;
        dw[o] = (dW_du * x) / den;
        dw[o + 1] = (dW_du * y) / den;
        dw[o + 2] = dW_du / den;
        dw[o + 3] = (dW_dv * x) / den;
        dw[o + 4] = (dW_dv * y) / den;
        dw[o + 5] = dW_dv / den;
        dw[o + 6] = (-(dW_du * u + dW_dv * v) * x) / den;
        dw[o + 7] = (-(dW_du * u + dW_dv * v) * y) / den;
        dw[o + 8] = eu.ds * ev.w + eu.w * ev.ds;
        dw[o + 9] = eu.dhalf * ev.w + eu.w * ev.dhalf;
      }
    }
  }
  return { chip, w, dw };
}

/** The chips' and the frame's levels by least squares (value = frame + sum_k (level_k - frame) w_k). */
function levelsOf(px: Pixels, wt: ReturnType<typeof weigh>, use: Uint8Array): number[] | null {
  const m = CHIPS + 1;
  const ata = Array.from({ length: m }, () => new Array<number>(m).fill(0));
  const atb = new Array<number>(m).fill(0);
  const idx: number[] = [];
  const val: number[] = [];
  for (let i = 0; i < px.n; i++) {
    if (!use[i]) continue;
    idx.length = 0;
    val.length = 0;
    let rest = 1;
    for (let k = i * SLOTS; k < (i + 1) * SLOTS && wt.chip[k] >= 0; k++) {
      idx.push(wt.chip[k]);
      val.push(wt.w[k]);
      rest -= wt.w[k];
    }
    idx.push(CHIPS);
    val.push(rest);
    for (let a = 0; a < idx.length; a++) {
      atb[idx[a]] += val[a] * px.values[i];
      for (let b = 0; b < idx.length; b++) ata[idx[a]][idx[b]] += val[a] * val[b];
    }
  }
  for (let k = 0; k < m; k++) ata[k][k] += 1e-9;
  return solveLinear(ata, atb);
}

function residualsOf(px: Pixels, wt: ReturnType<typeof weigh>, levels: number[]): Float64Array {
  const r = new Float64Array(px.n);
  const frame = levels[CHIPS];
  for (let i = 0; i < px.n; i++) {
    let v = frame;
    for (let k = i * SLOTS; k < (i + 1) * SLOTS && wt.chip[k] >= 0; k++) v += (levels[wt.chip[k]] - frame) * wt.w[k];
    r[i] = px.values[i] - v;
  }
  return r;
}

/**
 * The homography (card -> pixels of `image`) refined so that the blurred card model fits the photo's
 * luminance over the card; `start` when the fit fails or moves a corner patch by more than a quarter
 * pitch.
 */
export function refineCardGeometry(image: RasterImage, start: Homography): Homography {
  const px = samples(image, start);
  if (px.n < 200) return start;
  const inv = invert3(start);
  if (!inv) return start;
  const pitch = localScale(start, (CARD_COLUMNS - 1) / 2, (CARD_ROWS - 1) / 2);
  // parameters: the map pixels -> card (g33 = 1), the blur in card units (1 px to start) and the chip's
  // half-width (a Classic's to start: a photo cannot tell it from a Passport, whose chips are a little
  // narrower; the geometry must not depend on which the user says it is)
  let theta = [...inv.slice(0, 8).map((v) => v / inv[8]), 1 / pitch, CHIP_FRACTION.classic / 2];
  const use = new Uint8Array(px.n).fill(1);
  let lambda = 1e-3;
  const cost = (r: Float64Array) => {
    let s = 0;
    for (let i = 0; i < r.length; i++) if (use[i]) s += r[i] * r[i];
    return s;
  };
  for (let it = 0; it < ITERATIONS; it++) {
    const wt = weigh(px, theta, true);
    const levels = levelsOf(px, wt, use);
    if (!levels) return start;
    const r = residualsOf(px, wt, levels);
    // pixels off by more than 3 x the median absolute residual (glare, a shadow's edge) are left out
    const abs = Array.from(r, Math.abs).sort((a, b) => a - b);
    const limit = Math.max(3 * abs[abs.length >> 1], 1e-6);
    for (let i = 0; i < px.n; i++) use[i] = Math.abs(r[i]) <= limit ? 1 : 0;
    const c0 = cost(r);
    // residual = value - model: d(residual)/dθ = -sum_k (level_k - frame) dw_k/dθ
    const jtj = Array.from({ length: P }, () => new Array<number>(P).fill(0));
    const jtr = new Array<number>(P).fill(0);
    const row = new Float64Array(P);
    const frame = levels[CHIPS];
    for (let i = 0; i < px.n; i++) {
      if (!use[i]) continue;
      row.fill(0);
      for (let k = i * SLOTS; k < (i + 1) * SLOTS && wt.chip[k] >= 0; k++) {
        const a = levels[wt.chip[k]] - frame;
        for (let p = 0; p < P; p++) row[p] -= a * wt.dw![k * P + p];
      }
      for (let a = 0; a < P; a++) {
        jtr[a] += row[a] * r[i];
        for (let b = 0; b < P; b++) jtj[a][b] += row[a] * row[b];
      }
    }
    let improved = false;
    for (let tries = 0; tries < 6 && !improved; tries++) {
      const d = dampedStep(jtj, jtr, lambda, 1e-30);
      if (!d) break;
      const next = theta.map((v, p) => v + d[p]);
      if (!(next[8] > 0) || !(next[9] > 0.25 && next[9] < 0.5)) {
        lambda *= 10;
        continue;
      }
      const nc = cost(residualsOf(px, weigh(px, next, false), levels));
      if (nc < c0) {
        theta = next;
        lambda = Math.max(1e-7, lambda / 10);
        improved = true;
        if (c0 - nc < 1e-6 * c0) it = ITERATIONS;
      } else lambda *= 10;
    }
    if (!improved) break;
  }
  const h = invert3([...theta.slice(0, 8), 1]);
  if (!h) return start;
  for (const [u, v] of [
    [0, 0],
    [CARD_COLUMNS - 1, 0],
    [0, CARD_ROWS - 1],
    [CARD_COLUMNS - 1, CARD_ROWS - 1],
  ]) {
    const a = project(h, u, v);
    const b = project(start, u, v);
    if (!Number.isFinite(a.x) || Math.hypot(a.x - b.x, a.y - b.y) > pitch / 4) return start;
  }
  return h.map((v) => v / h[8]);
}
