/**
 * Colour correction to a card's reference values: white balance on the neutral patches, then a 3x3
 * matrix fitted by least squares, both in linear RGB; patches that the fit cannot explain (a shadow
 * or glare over a patch, a clipped patch) are left out, one at a time, worst first.
 */
import {
  deltaE2000,
  labD50ToLinearRgb,
  linearLuminance,
  linearRgbToLabD50,
  linearToSrgb,
  srgbToLinear,
} from '../color.ts';
import type { RasterImage } from '../image.ts';
import { seededRandom } from '../random.ts';
import { dampedStep, solveLinear } from './geometry.ts';
import { CARD_LAB_D50, type ColourCardKind } from './reference.ts';

/** The grey patches the white balance is measured on: neutral 8, 6.5, 5 and 3.5 (white may clip, black is noise). */
const WHITE_BALANCE_PATCHES = [19, 20, 21, 22];
/** At most this many patches are left out as unexplained (16 of 24 always remain). */
const MAX_LEFT_OUT = 8;
/**
 * A patch is left out when its CIEDE2000 after the fit exceeds both OUTLIER_FLOOR and OUTLIER_FACTOR
 * times the median of the patches kept (a shadow of 20 % over a patch: about 6; glare more).
 */
const OUTLIER_FLOOR = 3;
const OUTLIER_FACTOR = 2.5;
/**
 * Least median of squares start: fits on this many random subsets of the usable patches (each with two
 * of the neutral ones and SUBSET_SIZE in all) and keeps the fit with the smallest median CIEDE2000 over
 * every usable patch. A shadow over a third of the card then cannot pull the first fit (a plain least
 * squares over all patches splits the difference, and its median rises with it). With a shadow over two
 * columns and a glare spot (9 of 24 patches off, one of them neutral) a subset is clean with a chance of
 * about 0.5 %: 500 subsets find one with a chance of about 92 % (60, until 2026-11-27: 26 %), about 11 ms
 * more per fit.
 */
const SUBSETS = 500;
const SUBSET_SIZE = 9;
/** 8-bit level at or above which a channel is taken as clipped */
const CLIPPED = 254;

export interface DeltaEStats {
  median: number;
  max: number;
}

export interface ColourCorrection {
  /** linear RGB: corrected = matrix x measured (row-major 3x3), white balance included */
  matrix: number[];
  /** per patch (card order): used in the fit */
  used: boolean[];
  /** CIEDE2000 against the reference, per patch (null: not read) */
  deltaEBefore: (number | null)[];
  deltaEAfter: (number | null)[];
  /** over the patches used in the fit */
  before: DeltaEStats;
  after: DeltaEStats;
}

const median = (v: number[]) => {
  const s = [...v].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2;
};
const summary = (v: number[]): DeltaEStats => ({
  median: Math.round(median(v) * 100) / 100,
  max: Math.round(Math.max(...v) * 100) / 100,
});

/** The reference colours of a card kind in linear sRGB (D65; Bradford-adapted from D50). */
export function referenceLinearRgb(kind: ColourCardKind): number[][] {
  return CARD_LAB_D50[kind].map(([L, a, b]) => labD50ToLinearRgb(L, a, b, [0, 0, 0]) as number[]);
}

function deltaEOf(lin: number[], lab: readonly number[]): number {
  const m = linearRgbToLabD50(lin[0], lin[1], lin[2], [0, 0, 0]);
  return deltaE2000(lab[0], lab[1], lab[2], m[0], m[1], m[2]);
}

const apply = (m: number[], v: number[]) => [
  m[0] * v[0] + m[1] * v[1] + m[2] * v[2],
  m[3] * v[0] + m[4] * v[1] + m[5] * v[2],
  m[6] * v[0] + m[7] * v[1] + m[8] * v[2],
];

function fitMatrix(measured: number[][], reference: number[][], use: boolean[]): number[] | null {
  // White balance: per-channel gain that best maps the measured greys onto the reference greys.
  const gain = [0, 1, 2].map((c) => {
    let num = 0;
    let den = 0;
    for (const k of WHITE_BALANCE_PATCHES) {
      if (!use[k]) continue;
      num += reference[k][c] * measured[k][c];
      den += measured[k][c] * measured[k][c];
    }
    return den > 0 ? num / den : NaN;
  });
  if (gain.some((g) => !Number.isFinite(g) || g <= 0)) return null;
  // Then the 3x3 on the balanced values, one output channel at a time (normal equations).
  const ata = [
    [0, 0, 0],
    [0, 0, 0],
    [0, 0, 0],
  ];
  const atb = [
    [0, 0, 0],
    [0, 0, 0],
    [0, 0, 0],
  ];
  for (let k = 0; k < measured.length; k++) {
    if (!use[k]) continue;
    const v = measured[k].map((x, c) => x * gain[c]);
    // Relative errors: an error of 0.01 in linear light is small on white and large on black.
    const r = reference[k];
    const y = linearLuminance(r[0], r[1], r[2]);
    const wt = 1 / (y + 0.02) ** 2;
    for (let i = 0; i < 3; i++) {
      for (let j = 0; j < 3; j++) ata[i][j] += wt * v[i] * v[j];
      for (let c = 0; c < 3; c++) atb[c][i] += wt * v[i] * r[c];
    }
  }
  const rows = [0, 1, 2].map((c) => solveLinear(ata, atb[c]));
  if (rows.some((r) => !r)) return null;
  const m: number[] = [];
  for (let c = 0; c < 3; c++) for (let i = 0; i < 3; i++) m.push(rows[c]![i] * gain[i]);
  return m;
}

/** Levenberg-Marquardt iterations of the CIEDE2000 refinement (it converges in 3-8 on the bench). */
const REFINE_ITERATIONS = 20;

/**
 * Refines a matrix so that it minimises the sum of squared CIEDE2000 over the patches used (damped
 * Gauss-Newton, Levenberg-Marquardt, forward-difference Jacobian over the 9 entries), starting from the
 * least-squares fit. The least squares minimises relative errors in linear RGB, which is not the
 * metric the card is judged by: where a channel is dark (blue under a warm light) a small linear error
 * is a large CIEDE2000, and the fit spends its freedom elsewhere. Returns the start when no step helps.
 */
export function refineToDeltaE(
  start: number[],
  linear: number[][],
  lab: readonly (readonly number[])[],
  use: boolean[],
): number[] {
  const ks = use.flatMap((u, k) => (u ? [k] : []));
  const residuals = (m: number[]) => ks.map((k) => deltaEOf(apply(m, linear[k]), lab[k]));
  const cost = (r: number[]) => r.reduce((s, v) => s + v * v, 0);
  let m = [...start];
  let r = residuals(m);
  let c = cost(r);
  let lambda = 1e-3;
  for (let it = 0; it < REFINE_ITERATIONS; it++) {
    // Jacobian by forward differences (step relative to the entry, at least 1e-6)
    const J = m.map((v, p) => {
      const h = Math.max(1e-6, Math.abs(v) * 1e-6);
      const mp = [...m];
      mp[p] += h;
      return residuals(mp).map((x, i) => (x - r[i]) / h);
    });
    const jtj = J.map((a) => J.map((b) => a.reduce((s, v, i) => s + v * b[i], 0)));
    const jtr = J.map((a) => a.reduce((s, v, i) => s + v * r[i], 0));
    let improved = false;
    for (let tries = 0; tries < 8 && !improved; tries++) {
      const step = dampedStep(jtj, jtr, lambda, 1e-12);
      if (!step) break;
      const next = m.map((v, p) => v + step[p]);
      const nr = residuals(next);
      const nc = cost(nr);
      if (nc < c) {
        const converged = c - nc <= 1e-6 * c;
        m = next;
        r = nr;
        c = nc;
        if (converged) return m;
        lambda = Math.max(1e-7, lambda / 10);
        improved = true;
      } else lambda *= 10;
    }
    if (!improved) break;
  }
  return m;
}

/**
 * Fits the correction from the measured patch colours (8-bit sRGB medians in card order, null where a
 * patch could not be read) to the card's reference values. Null when too few patches were read or the
 * neutral patches are missing.
 */
export function fitColourCorrection(
  measured: (readonly number[] | null)[],
  kind: ColourCardKind,
): ColourCorrection | null {
  const lab = CARD_LAB_D50[kind];
  const reference = referenceLinearRgb(kind);
  const linear = measured.map((m) => (m ? m.map((v) => srgbToLinear(v / 255)) : [0, 0, 0]));
  const use = measured.map((m) => !!m && m.every((v) => v < CLIPPED) && m.some((v) => v > 2));
  if (use.filter(Boolean).length < 12) return null;
  const errorsOf = (m: number[]) => linear.map((v, k) => (use[k] ? deltaEOf(apply(m, v), lab[k]) : -1));
  // Least median of squares: the subset fit that explains most patches best decides the outliers.
  const usable = use.flatMap((u, k) => (u ? [k] : []));
  const neutrals = usable.filter((k) => WHITE_BALANCE_PATCHES.includes(k));
  const others = usable.filter((k) => !WHITE_BALANCE_PATCHES.includes(k));
  if (neutrals.length >= 2) {
    const rand = seededRandom(26);
    const pick = (from: number[], n: number) => {
      const a = [...from];
      for (let i = 0; i < n; i++) {
        const j = i + Math.floor(rand() * (a.length - i));
        [a[i], a[j]] = [a[j], a[i]];
      }
      return a.slice(0, n);
    };
    let best: { median: number; errors: number[] } | null = null;
    for (let t = 0; t < SUBSETS; t++) {
      const subset = new Array<boolean>(use.length).fill(false);
      for (const k of [...pick(neutrals, 2), ...pick(others, SUBSET_SIZE - 2)]) subset[k] = true;
      const m = fitMatrix(linear, reference, subset);
      if (!m) continue;
      const errors = errorsOf(m);
      const med = median(errors.filter((e) => e >= 0));
      if (!best || med < best.median) best = { median: med, errors };
    }
    if (best) {
      // The patches it cannot explain are left out, worst first, at most MAX_LEFT_OUT.
      const limit = Math.max(OUTLIER_FLOOR, OUTLIER_FACTOR * best.median);
      const outliers = usable.filter((k) => best.errors[k] > limit).sort((a, b) => best.errors[b] - best.errors[a]);
      for (const k of outliers.slice(0, MAX_LEFT_OUT)) use[k] = false;
    }
  }
  let matrix: number[] | null = null;
  const leftOut = () => usable.length - use.filter(Boolean).length;
  for (let round = 0; round <= MAX_LEFT_OUT; round++) {
    matrix = fitMatrix(linear, reference, use);
    if (!matrix) return null;
    const errors = errorsOf(matrix);
    const kept = errors.filter((e) => e >= 0);
    const worst = errors.indexOf(Math.max(...errors));
    if (errors[worst] <= Math.max(OUTLIER_FLOOR, OUTLIER_FACTOR * median(kept)) || leftOut() >= MAX_LEFT_OUT) break;
    use[worst] = false;
  }
  const m = refineToDeltaE(matrix!, linear, lab, use);
  const deltaEBefore = measured.map((v, k) => (v ? deltaEOf(linear[k], lab[k]) : null));
  const deltaEAfter = measured.map((v, k) => (v ? deltaEOf(apply(m, linear[k]), lab[k]) : null));
  const usedValues = (d: (number | null)[]) => d.filter((_, k) => use[k]) as number[];
  return {
    matrix: m.map((v) => Math.round(v * 1e5) / 1e5),
    used: use,
    deltaEBefore,
    deltaEAfter,
    before: summary(usedValues(deltaEBefore)),
    after: summary(usedValues(deltaEAfter)),
  };
}

let linear8: Float32Array | null = null;
const ENCODE_STEPS = 16384;
let encode: Uint8Array | null = null;

/** 8-bit level at or above which a pixel's channel is taken as clipped by the camera (JPEG rings below 255). */
const CLIPPED_PIXEL = 240;
/** A channel between these levels (and its partner unclipped, above REF_MIN_PARTNER) teaches the ratio. */
const REF_LOW = 120;
const REF_MIN_PARTNER = 20;
/** Blocks (pixels) the channel ratios are gathered in. */
const RATIO_BLOCK = 16;

/** Smoothing sweeps over the blocks without a reference of their own (see channelRatios). */
const RATIO_SMOOTH_SWEEPS = 60;

/**
 * Channel ratios for highlight reconstruction: for each ordered pair (c, d) of channels and each
 * RATIO_BLOCK block, sum c and sum d (linear) over pixels with c bright but unclipped and d unclipped;
 * blocks with none take the nearest block's (grown ring by ring over the block grid), then the mean of
 * their four neighbours, RATIO_SMOOTH_SWEEPS times (the blocks with a reference held), so a clipped
 * area's ratio runs smoothly between its borders instead of in steps. Null when no pixel of the photo
 * has a clipped channel. `ratioAt` reads them bilinearly between block centres.
 */
function channelRatios(image: RasterImage, lin: Float32Array) {
  const { width: w, height: h, data } = image;
  const bw = Math.ceil(w / RATIO_BLOCK);
  const bh = Math.ceil(h / RATIO_BLOCK);
  const nb = bw * bh;
  let anyClipped = false;
  // pair index c * 3 + d (c != d)
  const sumC = new Float64Array(9 * nb);
  const sumD = new Float64Array(9 * nb);
  for (let y = 0; y < h; y++) {
    const by = Math.floor(y / RATIO_BLOCK) * bw;
    for (let x = 0; x < w; x++) {
      const p = 4 * (y * w + x);
      const b = by + Math.floor(x / RATIO_BLOCK);
      for (let c = 0; c < 3; c++) {
        const vc = data[p + c];
        if (vc >= CLIPPED_PIXEL) {
          anyClipped = true;
          continue;
        }
        if (vc < REF_LOW) continue;
        for (let d = 0; d < 3; d++) {
          if (d === c) continue;
          const vd = data[p + d];
          if (vd >= CLIPPED_PIXEL || vd < REF_MIN_PARTNER) continue;
          sumC[(c * 3 + d) * nb + b] += lin[vc];
          sumD[(c * 3 + d) * nb + b] += lin[vd];
        }
      }
    }
  }
  if (!anyClipped) return null;
  const ratio = new Float32Array(9 * nb).fill(NaN);
  for (let k = 0; k < 9; k++) {
    const off = k * nb;
    let frontier: number[] = [];
    // the blocks given a ratio by their neighbours, in the order they were reached
    const filled: number[] = [];
    for (let b = 0; b < nb; b++)
      if (sumD[off + b] > 0) {
        ratio[off + b] = sumC[off + b] / sumD[off + b];
        frontier.push(b);
      }
    // blocks without a reference take their neighbour's ratio, ring by ring
    while (frontier.length) {
      const next: number[] = [];
      for (const b of frontier) {
        const bx = b % bw;
        const byy = (b - bx) / bw;
        for (const [nx, ny] of [
          [bx - 1, byy],
          [bx + 1, byy],
          [bx, byy - 1],
          [bx, byy + 1],
        ]) {
          if (nx < 0 || ny < 0 || nx >= bw || ny >= bh) continue;
          const n = ny * bw + nx;
          if (Number.isNaN(ratio[off + n])) {
            ratio[off + n] = ratio[off + b];
            next.push(n);
            filled.push(n);
          }
        }
      }
      frontier = next;
    }
    if (!filled.length) continue;
    for (let sweep = 0; sweep < RATIO_SMOOTH_SWEEPS; sweep++)
      for (const b of filled) {
        const bx = b % bw;
        const byy = (b - bx) / bw;
        let sum = 0;
        let n = 0;
        if (bx > 0) {
          sum += ratio[off + b - 1];
          n++;
        }
        if (bx < bw - 1) {
          sum += ratio[off + b + 1];
          n++;
        }
        if (byy > 0) {
          sum += ratio[off + b - bw];
          n++;
        }
        if (byy < bh - 1) {
          sum += ratio[off + b + bw];
          n++;
        }
        ratio[off + b] = sum / n;
      }
  }
  return { ratio, bw, bh, nb };
}

/** A channel ratio of `channelRatios` at pixel (x, y), bilinear between the four nearest block centres. */
function ratioAt(r: { ratio: Float32Array; bw: number; bh: number; nb: number }, pair: number, x: number, y: number) {
  const fx = Math.min(Math.max((x + 0.5) / RATIO_BLOCK - 0.5, 0), r.bw - 1);
  const fy = Math.min(Math.max((y + 0.5) / RATIO_BLOCK - 0.5, 0), r.bh - 1);
  const x0 = Math.floor(fx);
  const y0 = Math.floor(fy);
  const x1 = Math.min(x0 + 1, r.bw - 1);
  const y1 = Math.min(y0 + 1, r.bh - 1);
  const tx = fx - x0;
  const ty = fy - y0;
  const at = (bx: number, by: number) => r.ratio[pair * r.nb + by * r.bw + bx];
  return (1 - ty) * ((1 - tx) * at(x0, y0) + tx * at(x1, y0)) + ty * ((1 - tx) * at(x0, y1) + tx * at(x1, y1));
}

/**
 * The image with its colours corrected by `matrix` (linear RGB, row-major 3x3); alpha and `source` kept.
 * A channel the camera clipped (>= CLIPPED_PIXEL, 240) while another channel of the pixel was not is first
 * reconstructed from that other channel (the brightest unclipped one) times their ratio among the bright
 * unclipped pixels of its neighbourhood (highlight reconstruction by colour ratio, as raw developers
 * do): under a warm light the red of an orange fruit clips, and the correction, which scales red down,
 * would otherwise turn the clipped peel darker and greener than it was. `reconstruct: false` skips it.
 */
export function correctColours(
  image: RasterImage,
  matrix: number[],
  options: { reconstruct?: boolean } = {},
): RasterImage {
  if (!linear8) {
    linear8 = new Float32Array(256);
    for (let i = 0; i < 256; i++) linear8[i] = srgbToLinear(i / 255);
    encode = new Uint8Array(ENCODE_STEPS + 1);
    for (let i = 0; i <= ENCODE_STEPS; i++) encode[i] = Math.round(255 * linearToSrgb(i / ENCODE_STEPS));
  }
  const lin = linear8;
  const enc = encode!;
  const [a, b, c, d, e, f, g, h, i] = matrix;
  const src = image.data;
  const out = new Uint8ClampedArray(src.length);
  const q = (v: number) => enc[v <= 0 ? 0 : v >= 1 ? ENCODE_STEPS : Math.round(v * ENCODE_STEPS)];
  const ratios = options.reconstruct === false ? null : channelRatios(image, lin);
  const w = image.width;
  const v = [0, 0, 0];
  for (let p = 0; p < src.length; p += 4) {
    v[0] = lin[src[p]];
    v[1] = lin[src[p + 1]];
    v[2] = lin[src[p + 2]];
    if (ratios && (src[p] >= CLIPPED_PIXEL || src[p + 1] >= CLIPPED_PIXEL || src[p + 2] >= CLIPPED_PIXEL)) {
      // the brightest unclipped channel is the partner; none unclipped: white stays white
      let partner = -1;
      for (let k = 0; k < 3; k++)
        if (src[p + k] < CLIPPED_PIXEL && (partner < 0 || src[p + k] > src[p + partner])) partner = k;
      if (partner >= 0 && src[p + partner] >= REF_MIN_PARTNER) {
        const px = (p >> 2) % w;
        const py = ((p >> 2) - px) / w;
        for (let k = 0; k < 3; k++) {
          if (src[p + k] < CLIPPED_PIXEL) continue;
          const r = ratioAt(ratios, k * 3 + partner, px, py);
          if (r > 0) v[k] = Math.max(v[k], r * v[partner]);
        }
      }
    }
    out[p] = q(a * v[0] + b * v[1] + c * v[2]);
    out[p + 1] = q(d * v[0] + e * v[1] + f * v[2]);
    out[p + 2] = q(g * v[0] + h * v[1] + i * v[2]);
    out[p + 3] = src[p + 3];
  }
  return { width: image.width, height: image.height, data: out, ...(image.source ? { source: image.source } : {}) };
}
