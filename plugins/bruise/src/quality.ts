/**
 * Photo-quality checks of the bruise tool (issue 26 item 4), browser-safe: figures measured on the
 * working copy the fruit and bruises were found on, each compared with a threshold. A figure past
 * its threshold is a flag that says why in words and figures; the photo is still scored unless the
 * caller asked for strict quality. Thresholds and how they were chosen: README.md, "Photo quality".
 */
import type { RasterImage } from '@mango/core';
import {
  blackbodyWhite,
  downscaleArea,
  erodeSquare,
  fitSize,
  kthSmallest,
  largestComponent,
  medianOf as median,
  openDisk,
  outlineDistanceSquared,
  resizeMaskNearest,
  srgbToLinear,
} from '@mango/core';
import { clippedChannels, type BruiseAnalysis } from './analyse.ts';
import type { BruiseOptions } from './schema.ts';

/** One failed check: its id, why in words, the measured figure and the threshold it passed. */
export interface QualityFlag {
  id: QualityFlagId;
  message: string;
  value: number;
  threshold: number;
}

export const QUALITY_FLAG_IDS = [
  'blur',
  'overexposed',
  'underexposed',
  'cut-by-edge',
  'fruit-too-small',
  'jpeg-compression',
  'colour-cast',
] as const;
export type QualityFlagId = (typeof QUALITY_FLAG_IDS)[number];

/**
 * The thresholds (README.md, "Photo quality", gives how each was chosen from the dev photos and the
 * photos made to trip it). `blur` and the shares are above-is-bad; `fruitAcross`, `jpegQuality` below.
 */
export const QUALITY_THRESHOLDS = {
  /** width of the fruit's outline (its blur ramp) as a share of the fruit's diameter */
  blur: 0.035,
  /** share of the healthy peel's pixels (lesions left out) with two channels or more at 250 or more */
  overexposed: 0.1,
  /** share of the healthy peel's pixels (lesions left out) with luma at 16 or less */
  underexposed: 0.1,
  /** the longest stretch of a fruit's outline on the frame edge, as a share of its diameter */
  cutByEdge: 0.15,
  /** the smallest fruit's diameter, pixels across in the copy its lesions are found on */
  fruitAcross: 64,
  /** the IJG quality of the JPEG's quantisation table */
  jpegQuality: 40,
  /**
   * the light's shift (mired) from the camera's daylight balance along the blackbody locus, read on the
   * background's near-grey pixels, no colour card in the photo: warmer (yellow, tungsten) by more than
   * colourCastWarm, or cooler (blue, shade) by more than colourCastCool
   */
  colourCastWarm: 50,
  colourCastCool: 20,
} as const;

/** How close to the frame (working pixels) a fruit's outline counts as lying along it. */
const EDGE_MARGIN = 1;
/**
 * Before its stretch along the frame is measured, a fruit is opened by a disk of this share of its
 * diameter (the frame does not erode it) and only its largest piece kept: a strip of leaves or a
 * neighbour's corner that the fruit mask ran into through a neck narrower than the disk is then not the
 * fruit's own outline. A fruit cut by the frame keeps its straight cut (less its two rounded corners).
 */
const EDGE_OPEN_SHARE = 0.1;

/** Long side, in pixels, the fruit is brought to (when larger) before its sharpness is measured. */
export const BLUR_FRUIT_SIDE = 320;

/** The figures the checks compare (null: not measurable on this photo, e.g. no fruit, not a JPEG). */
export interface QualityMeasures {
  blur: number | null;
  overexposed: number | null;
  underexposed: number | null;
  cutByEdge: number | null;
  fruitAcross: number | null;
  jpegQuality: number | null;
  /** the light's signed shift in mired from the 6504 K balance (positive warmer), lightShift */
  colourCast: number | null;
}

/** A photo where nothing could be measured: every figure null (a start for figures set one by one). */
export const UNMEASURED: Readonly<QualityMeasures> = {
  blur: null,
  overexposed: null,
  underexposed: null,
  cutByEdge: null,
  fruitAcross: null,
  jpegQuality: null,
  colourCast: null,
};

const round = (v: number, d = 3) => Math.round(v * 10 ** d) / 10 ** d;
const roundTo = (v: number, step: number) => Math.round(v / step) * step;

/** Every figure of the checks for one analysed photo. */
export function measureQuality(
  a: BruiseAnalysis,
  image: Pick<RasterImage, 'jpegQuality'>,
  options: Pick<BruiseOptions, 'method' | 'detectMaxSide'> & Partial<Pick<BruiseOptions, 'modelMaxSide'>>,
): QualityMeasures {
  const { work } = a;
  const hasFruit = a.fruitCount > 0 && a.fruit.some((v) => v);
  const fruitStats = hasFruit ? perFruit(a) : undefined;
  // No fruit found, or only a fragment under 1 % of the frame (a photo too dark or too bright to
  // segment): the whole frame's clipping.
  const fruitShare = a.fruit.reduce((n, v) => n + v, 0) / a.fruit.length;
  // Clipping is judged on the photo as taken (a card's correction may brighten or darken it).
  const exposure = clipping(
    a.taken ?? work,
    fruitShare >= 0.01 ? healthyPeel(a) : new Uint8Array(a.fruit.length).fill(1),
  );
  // The copy lesions are found on: the working copy, or for the model the larger copy it reads.
  const longWork = Math.max(work.width, work.height);
  const longPhoto = Math.max(a.width, a.height);
  const analysisLong =
    a.method === 'model' ? Math.min(longPhoto, Math.max(options.modelMaxSide ?? 0, options.detectMaxSide)) : longWork;
  const across = fruitStats ? fruitStats.smallestDiameter * (analysisLong / longWork) : null;
  return {
    blur: hasFruit && fruitStats ? blurOnFruit(a, fruitStats.largestDiameter) : null,
    overexposed: round(exposure.over, 4),
    underexposed: round(exposure.under, 4),
    cutByEdge: fruitStats ? round(fruitStats.edge) : null,
    fruitAcross: across === null ? null : round(across, 1),
    jpegQuality: image.jpegQuality ?? null,
    colourCast: lightShift(work, a.fruit),
  };
}

const pct = (v: number) => `${round(100 * v, 1)} %`;

/**
 * The flags of a photo: every figure past its threshold. `colourCard`: the photo's colour card was
 * found (its colours are then corrected to the card's, so a cast is not flagged).
 */
export function qualityFlags(m: QualityMeasures, colourCard = false): QualityFlag[] {
  const t = QUALITY_THRESHOLDS;
  const flags: QualityFlag[] = [];
  if (m.blur !== null && m.blur > t.blur)
    flags.push({
      id: 'blur',
      message: `out of focus: the fruit's outline is blurred over ${pct(m.blur)} of its diameter, more than ${pct(t.blur)}: lesion edges are smeared`,
      value: m.blur,
      threshold: t.blur,
    });
  if (m.overexposed !== null && m.overexposed > t.overexposed)
    flags.push({
      id: 'overexposed',
      message: `over-exposed: ${pct(m.overexposed)} of the fruit's peel (of the photo when no fruit was found) is clipped white (two channels at 250 or more), more than ${pct(t.overexposed)}`,
      value: m.overexposed,
      threshold: t.overexposed,
    });
  if (m.underexposed !== null && m.underexposed > t.underexposed)
    flags.push({
      id: 'underexposed',
      message: `under-exposed: ${pct(m.underexposed)} of the fruit's peel (of the photo when no fruit was found) is clipped black (luma at 16 or less), more than ${pct(t.underexposed)}`,
      value: m.underexposed,
      threshold: t.underexposed,
    });
  if (m.cutByEdge !== null && m.cutByEdge > t.cutByEdge)
    flags.push({
      id: 'cut-by-edge',
      message: `a fruit is cut by the frame edge along ${pct(m.cutByEdge)} of its diameter (more than ${pct(t.cutByEdge)}): part of its peel is not in the photo`,
      value: m.cutByEdge,
      threshold: t.cutByEdge,
    });
  if (m.fruitAcross !== null && m.fruitAcross < t.fruitAcross)
    flags.push({
      id: 'fruit-too-small',
      message: `fruit too small: the smallest fruit is ${m.fruitAcross} px across where its lesions are found, fewer than ${t.fruitAcross} px: a lesion of 5 % of its diameter is under 3 px`,
      value: m.fruitAcross,
      threshold: t.fruitAcross,
    });
  if (m.jpegQuality !== null && m.jpegQuality < t.jpegQuality)
    flags.push({
      id: 'jpeg-compression',
      message: `heavy JPEG compression: the file was saved at quality ${m.jpegQuality} (from its quantisation table), below ${t.jpegQuality}: block artefacts blur small lesions`,
      value: m.jpegQuality,
      threshold: t.jpegQuality,
    });
  const cast = m.colourCast;
  const castLimit = cast === null ? 0 : cast > 0 ? t.colourCastWarm : t.colourCastCool;
  if (!colourCard && cast !== null && Math.abs(cast) > castLimit)
    flags.push({
      id: 'colour-cast',
      message: `colour cast: the near-grey background reads a light of about ${roundTo(kelvinOfShift(cast), 100)} K, ${Math.abs(cast).toFixed(1)} mired ${cast > 0 ? 'warmer (yellower)' : 'cooler (bluer)'} than the camera's daylight balance (6500 K), more than ${castLimit}, and there is no colour card to correct it: peel colours are shifted`,
      value: Math.abs(cast),
      threshold: castLimit,
    });
  return flags;
}

/** Equivalent diameters (working pixels) and the longest border stretch of each fruit. */
function perFruit(a: BruiseAnalysis) {
  const { width: w, height: h } = a.work;
  const k = a.fruitCount;
  const area = new Float64Array(k + 1);
  for (let i = 0; i < w * h; i++) area[a.fruitLabels[i]]++;
  // Pixels of each fruit along each of the four sides of the frame, within EDGE_MARGIN px of it (the
  // learned segmentation may stop a pixel short of the frame): a fruit cut by the frame lies along
  // it; its stretch on the longest side, as a share of its diameter, is the figure.
  const sides = new Float64Array((k + 1) * 4);
  const margin = Math.min(EDGE_MARGIN, w - 1, h - 1);
  const along = (side: number, n: number, at: (along: number, depth: number) => number) => {
    for (let p = 0; p < n; p++) {
      for (let d = 0; d <= margin; d++) {
        const l = a.fruitLabels[at(p, d)];
        if (l) {
          sides[l * 4 + side]++;
          break;
        }
      }
    }
  };
  along(0, w, (x, d) => d * w + x);
  along(1, w, (x, d) => (h - 1 - d) * w + x);
  along(2, h, (y, d) => y * w + d);
  along(3, h, (y, d) => y * w + w - 1 - d);
  let largest = 0;
  for (let l = 1; l <= k; l++) largest = Math.max(largest, Math.sqrt((4 * area[l]) / Math.PI));
  let smallest = Infinity;
  let edge = 0;
  for (let l = 1; l <= k; l++) {
    if (!area[l]) continue;
    const d = Math.sqrt((4 * area[l]) / Math.PI);
    // Pieces under a third of the largest fruit's diameter (a tenth of its area) are fragments of
    // the segmentation, not a fruit the photo was taken of: they decide neither check.
    if (d < largest / Math.sqrt(10)) continue;
    smallest = Math.min(smallest, d);
    const longest = Math.max(sides[l * 4], sides[l * 4 + 1], sides[l * 4 + 2], sides[l * 4 + 3]);
    if (longest / d <= edge) continue;
    edge = Math.max(edge, longestBodyStretch(a.fruitLabels, l, w, h, margin, Math.round(EDGE_OPEN_SHARE * d)) / d);
  }
  return { smallestDiameter: smallest, largestDiameter: largest, edge };
}

/**
 * The longest stretch along one side of the frame (within `margin` px) of fruit `label`'s body: the
 * fruit opened by a disk of radius `r` (the frame does not erode it), its largest piece.
 */
function longestBodyStretch(labels: Int32Array, label: number, w: number, h: number, margin: number, r: number) {
  const mask = new Uint8Array(w * h);
  for (let i = 0; i < mask.length; i++) mask[i] = labels[i] === label ? 1 : 0;
  const body = largestComponent(openDisk(mask, w, h, r, 'ignore'), w, h) ?? mask;
  const on = (x: number, y: number) => body[y * w + x] === 1;
  let longest = 0;
  const side = (n: number, at: (p: number, d: number) => boolean) => {
    let count = 0;
    for (let p = 0; p < n; p++) {
      for (let d = 0; d <= margin; d++)
        if (at(p, d)) {
          count++;
          break;
        }
    }
    longest = Math.max(longest, count);
  };
  side(w, (x, d) => on(x, d));
  side(w, (x, d) => on(x, h - 1 - d));
  side(h, (y, d) => on(d, y));
  side(h, (y, d) => on(w - 1 - d, y));
  return longest;
}

/**
 * The fruit without its lesions: a dark rot or bruise is the finding, not a fault of the exposure.
 * When the lesions cover most of the fruit (a photo so dark that its peel reads as lesion) the
 * whole fruit.
 */
function healthyPeel(a: BruiseAnalysis): Uint8Array {
  const peel = new Uint8Array(a.fruit.length);
  let fruit = 0;
  let healthy = 0;
  for (let i = 0; i < peel.length; i++) {
    if (!a.fruit[i]) continue;
    fruit++;
    if (!a.bruise[i]) {
      peel[i] = 1;
      healthy++;
    }
  }
  return healthy * 2 >= fruit ? peel : a.fruit;
}

/**
 * Shares of fruit pixels clipped white (two channels or more at 250 or more: one channel alone is a
 * saturated colour, a red peel's R, not lost detail) and black (luma at 16 or less: about 0.5 % of
 * full scale in linear light, where a JPEG keeps no detail).
 */
function clipping(work: RasterImage, fruit: Uint8Array) {
  const d = work.data;
  let n = 0;
  let over = 0;
  let under = 0;
  for (let i = 0; i < fruit.length; i++) {
    if (!fruit[i]) continue;
    n++;
    const r = d[i * 4];
    const g = d[i * 4 + 1];
    const b = d[i * 4 + 2];
    if (clippedChannels(d, i) >= 2) over++;
    else if (0.299 * r + 0.587 * g + 0.114 * b <= 16) under++;
  }
  return { over: over / n, under: under / n };
}

/**
 * Sharpness of the fruit itself: how wide its own outline is. A blur of any kind (out of focus,
 * motion) spreads the step from peel to background over a ramp; for a Gaussian blur of sigma s the
 * ramp's contrast over its steepest slope is s·sqrt(2π), about 2.5 s. Measured on a copy where the
 * largest fruit is at most BLUR_FRUIT_SIDE px across: the contrast C is the difference of the median
 * luma of a ring inside the fruit and a ring outside it (8-12 % of the diameter from the outline),
 * the slope G the median over the outline of the steepest luma gradient within 3 px; the figure is
 * C / G as a share of the fruit's diameter (0.01 for a sharp photo). The peel's inner texture was
 * tried first (the blur effect of Crété-Roffet et al. 2007 inside the eroded fruit): on smooth peel
 * the 8-bit steps of a shading read as sharp edges and a strong blur went unseen (README.md). Null
 * when the outline has too little contrast (under 12 levels) or too few pixels to measure.
 */
function blurOnFruit(a: BruiseAnalysis, largestDiameter: number): number | null {
  const { work } = a;
  const scale = Math.min(1, BLUR_FRUIT_SIDE / largestDiameter);
  const size = fitSize(work.width, work.height, Math.round(Math.max(work.width, work.height) * scale));
  const small = downscaleArea(work, size.width, size.height);
  const { width: w, height: h } = small;
  const fruit = resizeMaskNearest(a.fruit, work.width, work.height, w, h);
  const luma = new Float32Array(w * h);
  for (let i = 0; i < w * h; i++) {
    luma[i] = 0.299 * small.data[i * 4] + 0.587 * small.data[i * 4 + 1] + 0.114 * small.data[i * 4 + 2];
  }
  const diameter = largestDiameter * scale;
  const inside = outlineDistanceSquared(fruit, w, h);
  const outside = outlineDistanceSquared(invert(fruit), w, h);
  const near = (0.08 * diameter) ** 2;
  const far = (0.12 * diameter) ** 2;
  const inner: number[] = [];
  const outer: number[] = [];
  const outline: number[] = [];
  for (let y = 4; y < h - 4; y++) {
    for (let x = 4; x < w - 4; x++) {
      const i = y * w + x;
      if (fruit[i] && inside[i] >= near && inside[i] <= far) inner.push(luma[i]);
      else if (!fruit[i] && outside[i] >= near && outside[i] <= far) outer.push(luma[i]);
      if (fruit[i] && (!fruit[i - 1] || !fruit[i + 1] || !fruit[i - w] || !fruit[i + w])) outline.push(i);
    }
  }
  if (inner.length < 20 || outer.length < 20 || outline.length < 20) return null;
  const contrast = Math.abs(median(inner) - median(outer));
  if (contrast < 12) return null;
  // Steepest central-difference gradient within 3 px of each outline pixel.
  const slopes = outline.map((i) => {
    let best = 0;
    for (let dy = -3; dy <= 3; dy++) {
      for (let dx = -3; dx <= 3; dx++) {
        const j = i + dy * w + dx;
        if (j - w - 1 < 0 || j + w + 1 >= w * h) continue;
        const gx = (luma[j + 1] - luma[j - 1]) / 2;
        const gy = (luma[j + w] - luma[j - w]) / 2;
        best = Math.max(best, Math.hypot(gx, gy));
      }
    }
    return best;
  });
  const slope = median(slopes);
  if (slope <= 0) return null;
  return round(contrast / slope / diameter, 4);
}

/**
 * How the colour of the light is read (README.md, "Photo quality", colour-cast): which background
 * pixels can be a grey under some blackbody light, and which share of the brightest of them decides.
 */
export const CAST_READING = {
  /** darkest channel kept, 8-bit: below it the JPEG's noise decides the pixel's chromaticity */
  minChannel: 12,
  /** channels at 250 or more a pixel may have (a warm light clips red first; its ratio then reads short) */
  maxClipped: 1,
  /** largest distance (natural log units) from the blackbody locus along green-magenta: ln(G / sqrt(R B)) */
  greenTolerance: 0.1,
  /** the brightest share of the near-grey pixels whose median reads the light (the white-patch idea) */
  brightest: 0.25,
  /** fewest near-grey pixels, as a share of the frame, for a reading */
  minShare: 0.005,
};

/** Mired (10^6 / K) of the camera's balance the shifts are measured from: daylight, D65 (6504 K). */
const BALANCE_MIRED = 1e6 / 6504;

/**
 * The blackbody locus in the log chromaticity of linear RGB, relative to a camera balanced for 6504 K:
 * for each light from 25000 K to 1667 K (the range of Kim et al.'s fit), the shift in mired from the
 * balance and where a grey photographed under it lands, u = ln(R/B) (blue-yellow, rising with the
 * shift) and v = ln(G / sqrt(R B)) (green-magenta). A cast by a blackbody light multiplies the three
 * channels by gains, so every pixel's (u, v) moves by the same vector: a grey lands on this curve.
 */
const LOCUS = (() => {
  const balance = blackbodyWhite(6504);
  const rows: { shift: number; u: number; v: number }[] = [];
  for (let mired = 40; mired <= 600; mired += 2) {
    const g = blackbodyWhite(1e6 / mired).map((x, c) => x / balance[c]);
    rows.push({ shift: mired - BALANCE_MIRED, u: Math.log(g[0] / g[2]), v: Math.log(g[1] / Math.sqrt(g[0] * g[2])) });
  }
  return rows;
})();

/** The locus point with blue-yellow coordinate `u` (interpolated), or null outside the fitted lights. */
function locusAt(u: number): { shift: number; v: number } | null {
  if (u < LOCUS[0].u || u > LOCUS[LOCUS.length - 1].u) return null;
  let lo = 0;
  let hi = LOCUS.length - 1;
  while (hi - lo > 1) {
    const mid = (lo + hi) >> 1;
    if (LOCUS[mid].u <= u) lo = mid;
    else hi = mid;
  }
  const f = (u - LOCUS[lo].u) / (LOCUS[hi].u - LOCUS[lo].u || 1);
  return {
    shift: LOCUS[lo].shift + f * (LOCUS[hi].shift - LOCUS[lo].shift),
    v: LOCUS[lo].v + f * (LOCUS[hi].v - LOCUS[lo].v),
  };
}

/** The colour temperature (K) of a light `shift` mired from the 6504 K balance (positive: warmer). */
export const kelvinOfShift = (shift: number) => 1e6 / (BALANCE_MIRED + shift);

const LINEAR = Float64Array.from({ length: 256 }, (_, i) => srgbToLinear(i / 255));

/**
 * The colour of the light, read on the background's near-grey pixels, as its shift in mired from the
 * camera's daylight balance along the blackbody (blue-yellow) locus: positive warmer (tungsten),
 * negative cooler (shade, overcast sky). Pixels: outside the fruit grown by 3 px, no channel clipped
 * (250 or more) nor under CAST_READING.minChannel; in linear RGB each one's log chromaticity (u, v),
 * kept when it lies within CAST_READING.greenTolerance of the locus along green-magenta (what a grey
 * under some blackbody light reads: leaves, a teal tray, a red box are left out). The brightest quarter
 * of those (a white or grey surface is brighter than a coloured one under the same light), their
 * median u, read on the locus as mired. Null when fewer than CAST_READING.minShare of the frame's
 * pixels are near-grey background.
 */
export function lightShift(work: RasterImage, fruit: Uint8Array, reading = CAST_READING): number | null {
  const { width: w, height: h, data: d } = work;
  const near = erodeSquare(invert(fruit), w, h, 3);
  const { u: U, v: V, rootRB } = castTables();
  // Two pools of pixel indices in one array: no channel clipped from the front, one clipped from the
  // back (used only when the first is too small).
  const picked = new Int32Array(w * h);
  let clean = 0;
  let withClip = 0;
  for (let i = 0; i < w * h; i++) {
    if (!near[i]) continue;
    const r8 = d[i * 4];
    const g8 = d[i * 4 + 1];
    const b8 = d[i * 4 + 2];
    const clipped = clippedChannels(d, i);
    if (clipped > reading.maxClipped || Math.min(r8, g8, b8) < reading.minChannel) continue;
    const locusV = V[r8 * 256 + b8];
    // outside the fitted lights
    if (Number.isNaN(locusV)) continue;
    // A clipped channel bends v (a warm light clips red first, and the pixel reads green): its u, short
    // of the truth, is kept without the green-magenta test.
    if (!clipped && Math.abs(Math.log(LINEAR[g8] / rootRB[r8 * 256 + b8]) - locusV) > reading.greenTolerance) continue;
    if (clipped) picked[w * h - 1 - withClip++] = i;
    else picked[clean++] = i;
  }
  const enough = reading.minShare * w * h;
  // the clean pixels in pixel order, then (when too few) the clipped ones in pixel order
  const count = clean >= enough ? clean : clean + withClip;
  const lumas = new Float64Array(count);
  const us = new Float64Array(count);
  for (let j = 0; j < count; j++) {
    const i = j < clean ? picked[j] : picked[w * h - 1 - (j - clean)];
    const r8 = d[i * 4];
    const b8 = d[i * 4 + 2];
    lumas[j] = 0.2126 * LINEAR[r8] + 0.7152 * LINEAR[d[i * 4 + 1]] + 0.0722 * LINEAR[b8];
    us[j] = U[r8 * 256 + b8];
  }
  if (us.length < enough) return null;
  // The brightest share, ties at its edge broken by pixel order (as a stable sort of the pixels by luma).
  const k = Math.max(1, Math.round(us.length * reading.brightest));
  const edge = kthSmallest(lumas, lumas.length - k);
  let atEdge = k;
  for (const l of lumas) if (l > edge) atEdge--;
  const chosen: number[] = [];
  for (let j = 0; j < lumas.length; j++) {
    if (lumas[j] > edge || (lumas[j] === edge && atEdge-- > 0)) chosen.push(us[j]);
  }
  return round(locusAt(median(chosen))!.shift, 1);
}

/**
 * Per 8-bit (R, B) pair, built once: u = ln(R / B) in linear light, the locus's v there (NaN outside
 * the fitted lights) and sqrt(R B), so lightShift does one logarithm per pixel.
 */
let CAST_TABLES: { u: Float64Array; v: Float64Array; rootRB: Float64Array } | undefined;
function castTables() {
  if (CAST_TABLES) return CAST_TABLES;
  const u = new Float64Array(65536);
  const v = new Float64Array(65536);
  const rootRB = new Float64Array(65536);
  for (let r8 = 0; r8 < 256; r8++) {
    for (let b8 = 0; b8 < 256; b8++) {
      const k = r8 * 256 + b8;
      u[k] = Math.log(LINEAR[r8] / LINEAR[b8]);
      v[k] = locusAt(u[k])?.v ?? NaN;
      rootRB[k] = Math.sqrt(LINEAR[r8] * LINEAR[b8]);
    }
  }
  return (CAST_TABLES = { u, v, rootRB });
}

function invert(mask: Uint8Array): Uint8Array {
  const out = new Uint8Array(mask.length);
  for (let i = 0; i < mask.length; i++) out[i] = mask[i] ? 0 : 1;
  return out;
}
