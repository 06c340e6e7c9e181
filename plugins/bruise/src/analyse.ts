/**
 * The bruise pipeline as pure functions: fruit and bruise masks on a downscaled working copy, then
 * counts at full resolution. Front ends use `bruiseMasks` for `--masks`; the plugin wraps
 * `analyseBruise` + `summariseBruise` + the overlay.
 */
import type { ColourCardDetection, ModelLoader, ModelManifestEntry, RasterImage } from '@mango/core';
import {
  MangoError,
  PATCH_PITCH_MM,
  correctColours,
  detectColourCard,
  paintOverCard,
  deltaE2000,
  downscaleArea,
  fitSize,
  hasTransparency,
  keepLabels,
  labelBoxes,
  labelComponents,
  fillHoles,
  noModels,
  rgb8ToLab,
  segmentFruit,
  resizeMaskNearest,
  sourceSize,
  upsampleWeights,
} from '@mango/core';
import { classicalBruiseMask } from './classical.ts';
import { BRUISE_TASK, modelBruiseMask } from './model.ts';
import { isTwoStage, learnedSegmentation } from './learned.ts';
import { colourDistanceMap } from './probability.ts';
import { findReference, dropLabel, pxPerCmOf, type ReferenceObject } from './reference.ts';
import { BruiseOptions, type BruiseOptionsInput } from './schema.ts';
import { type ColourCardResult, type ScaleStatus } from './results.ts';

export interface BruiseAnalysis {
  /** full-resolution size */
  width: number;
  height: number;
  /** the working copy the masks belong to */
  work: RasterImage;
  /** 0 = background, 1..fruitCount = fruit (working resolution) */
  fruitLabels: Int32Array;
  fruitCount: number;
  fruit: Uint8Array;
  bruise: Uint8Array;
  method: 'classical' | 'model';
  modelId?: string;
  modelSha256?: string;
  /** the reference object when one was asked for (referenceMm): null when none was found */
  reference?: ReferenceObject | null;
  /**
   * The lesion probability of each working pixel (0..255; 0 outside the fruit) when asked for
   * (`AnalyseInput.probability`): the learned model's (sigmoid of its lesion logit), else the colour
   * distance from the fruit's healthy peel (probability.ts, full scale 4 x darkening).
   */
  probability?: Uint8Array;
  /** the colour card when one was looked for (colourCard 'auto'): null when none was found */
  card?: ColourCardDetection | null;
  /** the long side of the raster the card's homography and pitch are in */
  cardRasterWidth?: number;
  /**
   * The photo as taken at the working copy's size, when a colour card corrected the photo (`work` is
   * then the corrected copy): what the camera clipped is judged on it (clearClipped, the exposure checks).
   */
  taken?: RasterImage;
}

export interface AnalyseInput {
  /** a known fruit mask at full resolution (1 = fruit), e.g. for evaluation against truth */
  fruitMask?: Uint8Array;
  models?: ModelLoader;
  /** also the lesion probability map (BruiseAnalysis.probability) */
  probability?: boolean;
}

/**
 * Long side of the copy the fruit outline is first found on; segmentFruit then refines the outline
 * pixel by pixel on the working copy. A 640 px working copy is segmented on a third-size copy
 * (block factor 3): the dev figures are those of a half-size copy (AUC 0.926, composite error
 * median / p90 0.18 / 1.57, fruit IoU min 0.962), the segmentation about 1.5x faster. Photos of up to
 * 240 px (the 224 px senmango set) are segmented at full size.
 */
export const SEGMENT_COARSE_SIZE = 240;

type Params = Pick<BruiseOptions, 'method' | 'detectMaxSide' | 'darkening' | 'minLesionFraction'> &
  Partial<Pick<BruiseOptions, 'modelMaxSide' | 'referenceMm' | 'colourCard' | 'cardKind'>>;

/** Fruit labels at working resolution: alpha when the image is a cut-out, else segmentFruit. */
function fruitOf(image: RasterImage, work: RasterImage, known?: Uint8Array): { labels: Int32Array; count: number } {
  let mask: Uint8Array;
  if (known) {
    const { width, height } = sourceSize(image);
    if (known.length !== width * height) throw new MangoError('INVALID_INPUT', 'fruit mask size mismatch');
    mask = resizeMaskNearest(known, width, height, work.width, work.height);
  } else if (hasTransparency(work)) {
    // A picture from Remove Background: the alpha channel is the fruit mask (as in features.md).
    mask = new Uint8Array(work.width * work.height);
    for (let i = 0; i < mask.length; i++) mask[i] = work.data[i * 4 + 3] >= 128 ? 1 : 0;
    mask = fillHoles(mask, work.width, work.height);
  } else {
    // The outline is found on a half-size copy and refined pixel by pixel on the working copy.
    const seg = segmentFruit(work, { workSize: SEGMENT_COARSE_SIZE });
    return { labels: seg.labels, count: seg.count };
  }
  const c = labelComponents(mask, work.width, work.height, 8);
  return { labels: c.labels, count: c.count };
}

export async function analyseBruise(
  image: RasterImage,
  params: Params,
  input: AnalyseInput = {},
): Promise<BruiseAnalysis> {
  const models = input.models ?? noModels;
  // A colour card: the photo is corrected to it before anything else, and the fruit segmentation sees
  // the surface under it (the card painted over), so it is never fruit. Without a card nothing changes.
  let card: ColourCardDetection | null | undefined;
  const cardRasterWidth = image.width;
  const taken = image;
  if (params.colourCard === 'auto') {
    card = detectColourCard(image, params.cardKind ?? 'classic');
    if (card) image = correctColours(image, card.correction.matrix);
  }
  const hideCard = (r: RasterImage) => (card ? paintOverCard(r, card.homography, { width: cardRasterWidth }) : r);
  const size = fitSize(image.width, image.height, params.detectMaxSide);
  const work = downscaleArea(image, size.width, size.height);
  const seen = hideCard(work);

  let method: 'classical' | 'model' = 'classical';
  let entry: ModelManifestEntry | undefined;
  if (params.method !== 'classical') {
    const available = await models.available(BRUISE_TASK);
    if (available.length > 0) {
      method = 'model';
      entry = available[0];
    } else if (params.method === 'model') {
      throw new MangoError('MODEL_NOT_FOUND', `no ${BRUISE_TASK} model is installed (see models/README.md)`);
    }
  }
  const model = entry ? await models.load(entry.id) : undefined;
  // The model reads each fruit from a copy of up to modelMaxSide (small lesions keep their pixels).
  const modelSource = () => {
    const s = fitSize(image.width, image.height, Math.max(params.modelMaxSide ?? 0, params.detectMaxSide));
    return s.width === work.width ? seen : hideCard(downscaleArea(image, s.width, s.height));
  };

  let labels: Int32Array;
  let count: number;
  let learnedBruise: Uint8Array | undefined;
  let probability: Uint8Array | undefined;
  if (model && isTwoStage(model.entry)) {
    // The learned model finds the fruit (rot included) and its lesions; a known mask or a cut-out's
    // alpha still decides the fruit when there is one.
    const known = input.fruitMask || hasTransparency(work) ? fruitOf(image, seen, input.fruitMask) : undefined;
    ({
      labels,
      count,
      bruise: learnedBruise,
      probability,
    } = await learnedSegmentation(modelSource(), seen, model, known, { probability: input.probability }));
  } else ({ labels, count } = fruitOf(image, seen, input.fruitMask));

  // The reference object is found among the segmented objects and is never counted as fruit.
  let reference: ReferenceObject | null | undefined;
  if (params.referenceMm) {
    if (learnedBruise) {
      // The learned fruit never holds the disc: it is looked for among the colour segmentation's objects.
      const seg = fruitOf(image, seen);
      const found = findReference(image, seen, seg.labels, seg.count);
      reference = found?.reference ?? null;
      if (found) {
        const before = new Int32Array(count + 1);
        for (let i = 0; i < labels.length; i++) {
          before[labels[i]]++;
          if (seg.labels[i] === found.label) {
            labels[i] = 0;
            learnedBruise[i] = 0;
          }
        }
        // A learned piece that was mostly the disc (the model took the coin for a small fruit) goes
        // with it: its rim left outside the colour segmentation's disc is not a fruit.
        ({ labels, count } = dropMostlyRemoved(labels, count, before, learnedBruise));
      }
    } else {
      const found = findReference(image, seen, labels, count);
      reference = found?.reference ?? null;
      if (found) ({ labels, count } = dropLabel(labels, count, found.label));
    }
  }
  const n = work.width * work.height;
  const fruit = new Uint8Array(n);
  for (let i = 0; i < n; i++) fruit[i] = labels[i] ? 1 : 0;

  let bruise: Uint8Array;
  if (learnedBruise) bruise = learnedBruise;
  else if (model) {
    bruise = await modelBruiseMask(modelSource(), seen, labels, count, model);
  } else {
    bruise = classicalBruiseMask(seen, labels, count, {
      darkening: params.darkening,
      minLesionFraction: params.minLesionFraction,
    });
  }
  if (input.probability) {
    probability ??= colourDistanceMap(seen, labels, count, bruise, 4 * params.darkening);
    for (let i = 0; i < n; i++) if (!fruit[i]) probability[i] = 0;
  }
  // A corrected photo's clipped pixels are not lesion (clearClipped), in the mask and in the probability
  // map alike (cleared after the map is made, so the classical map's healthy peel leaves them out as well).
  const takenWork = card ? downscaleArea(taken, work.width, work.height) : undefined;
  if (takenWork) clearClipped(takenWork, bruise, probability);
  const full = sourceSize(image);
  return {
    width: full.width,
    height: full.height,
    work,
    fruitLabels: labels,
    fruitCount: count,
    fruit,
    bruise,
    method,
    modelId: entry?.id,
    modelSha256: entry?.sha256,
    ...(probability ? { probability } : {}),
    ...(reference !== undefined ? { reference } : {}),
    ...(card !== undefined ? { card, cardRasterWidth } : {}),
    ...(takenWork ? { taken: takenWork } : {}),
  };
}

/** An 8-bit level at or above which a channel of the photo as taken is clipped (JPEG and noise spread 255). */
export const CLIPPED_LEVEL = 250;

/** How many of the R, G, B channels of pixel `i` of RGBA `d` are at CLIPPED_LEVEL or above (0-3). */
export function clippedChannels(d: Uint8ClampedArray | Uint8Array, i: number): number {
  return (
    (d[i * 4] >= CLIPPED_LEVEL ? 1 : 0) +
    (d[i * 4 + 1] >= CLIPPED_LEVEL ? 1 : 0) +
    (d[i * 4 + 2] >= CLIPPED_LEVEL ? 1 : 0)
  );
}

/**
 * No lesion where the photo as taken (`taken`, at the working copy's size: each pixel the mean of the
 * photo's pixels it covers, so a working pixel on the rim of a clipped area, half clipped, stays) had a
 * channel at CLIPPED_LEVEL or above; used only when a colour card corrected the photo. A clipped channel
 * holds "brighter than the sensor could tell", not a colour: the card's correction maps it to a flat,
 * dull colour (overexposed orange peel whose red clipped, brought down by the correction, turns flat tan)
 * that the model reads as lesion, where the uncorrected bright peel reads clean. Lesions are darker than
 * the peel around them and do not clip: on the 281 annotated dev photos, clearing every clipped pixel (as
 * if each had a card) changes the bruise % of 15, by at most 0.36 point (README.md, "Clipped pixels under
 * a card"). The exposure checks (quality.ts) count clipped channels at the same level.
 */
export function clearClipped(taken: RasterImage, bruise: Uint8Array, probability: Uint8Array | undefined) {
  if (taken.width * taken.height !== bruise.length)
    throw new Error('clearClipped: the copy and the mask differ in size');
  const d = taken.data;
  for (let i = 0; i < bruise.length; i++)
    if (clippedChannels(d, i) > 0) {
      bruise[i] = 0;
      if (probability) probability[i] = 0;
    }
}

/** Pixels per cm of the full-resolution photo from the card's patch pitch. */
function cardPxPerCm(a: BruiseAnalysis): number | undefined {
  if (!a.card || !a.cardRasterWidth) return undefined;
  const full = (a.card.pitchPx * a.width) / a.cardRasterWidth;
  return full / (PATCH_PITCH_MM[a.card.kind] / 10);
}

/** The result's `colour_card`: present when a card was looked for. */
export function colourCardResult(a: BruiseAnalysis): ColourCardResult | undefined {
  if (a.card === undefined) return undefined;
  if (!a.card) return { found: false, patches: 0, delta_e_before: null, delta_e_after: null, matrix: null };
  const c = a.card.correction;
  const m = c.matrix;
  return {
    found: true,
    patches: c.used.filter(Boolean).length,
    delta_e_before: c.before,
    delta_e_after: c.after,
    matrix: [m.slice(0, 3), m.slice(3, 6), m.slice(6, 9)],
    ...(a.cardRasterWidth ? { outline: cardOutline(a.card.outline, a.width / a.cardRasterWidth) } : {}),
  };
}

/** The card's corners in the photo's full-resolution pixels (`k`: full width / the card raster's), to 0.01 px. */
const cardOutline = (corners: readonly { x: number; y: number }[], k: number) =>
  corners.map((c) => ({ x: Math.round(c.x * k * 100) / 100, y: Math.round(c.y * k * 100) / 100 }));

/**
 * The scale of the result: a typed `pxPerCm` wins ('given'), else the reference object's
 * ('reference'), else the colour card's patch pitch ('colour-card'), else none (null). `reference` is
 * reported whenever one was asked for, `colour_card` whenever a card was looked for.
 * `scale_status` says whether the photo has a scale (core's ScaleStatus): `given`, `found` (from the
 * reference or the card), `not-found` (a reference was asked for and no scale was found: a warning
 * says so) or `none`.
 */
export function scaleOf(a: BruiseAnalysis, options: Pick<BruiseOptions, 'pxPerCm' | 'referenceMm'>) {
  const fromReference =
    a.reference && options.referenceMm ? pxPerCmOf(a.reference.diameter_px, options.referenceMm) : undefined;
  const fromCard = cardPxPerCm(a);
  const measured = fromReference ?? fromCard;
  const pxPerCm = options.pxPerCm ?? (measured ? Math.round(measured * 1e4) / 1e4 : undefined);
  const source = options.pxPerCm
    ? ('given' as const)
    : fromReference
      ? ('reference' as const)
      : fromCard
        ? ('colour-card' as const)
        : null;
  const colourCard = colourCardResult(a);
  const status = scaleStatusOf(source, Boolean(options.referenceMm));
  return {
    pxPerCm,
    status,
    fields: {
      scale_source: source,
      scale_status: status,
      ...(a.reference !== undefined ? { reference: a.reference } : {}),
      ...(colourCard ? { colour_card: colourCard } : {}),
    },
    warnings: status === 'not-found' ? [referenceNotFound(options.referenceMm!)] : [],
  };
}

/** A photo's scale status from where its scale came from (null: none) and whether one was to be measured. */
export function scaleStatusOf(source: string | null, measureAsked: boolean): ScaleStatus {
  if (source === 'given') return 'given';
  if (source) return 'found';
  return measureAsked ? 'not-found' : 'none';
}

/** The warning (and, with requireScale, the error) of a photo whose reference object was not found. */
export const referenceNotFound = (mm: number) =>
  `no ${mm} mm reference object found in the photo: it has no scale, so no cm² figures and no grade that needs them`;

/** Fruit and bruise masks at full resolution (nearest-neighbour upsampling of the working masks). */
export function fullResolutionMasks(a: BruiseAnalysis) {
  const { width: w, height: h } = a.work;
  return {
    width: a.width,
    height: a.height,
    fruit: resizeMaskNearest(a.fruit, w, h, a.width, a.height),
    bruise: resizeMaskNearest(a.bruise, w, h, a.width, a.height),
  };
}

/** The lesion probability (asked for in the analysis) at full resolution, nearest neighbour as the masks. */
export function fullResolutionProbability(a: BruiseAnalysis) {
  if (!a.probability) throw new Error('the analysis was made without its probability map');
  const { width: w, height: h } = a.work;
  return { width: a.width, height: a.height, data: resizeMaskNearest(a.probability, w, h, a.width, a.height) };
}

/**
 * The result's number of each working-resolution fruit label (`fruits[number - 1]`; 0: the label has
 * no pixel and is not reported): the numbering of the `fruit` column of every per-fruit table.
 */
export function fruitNumbers(a: Pick<BruiseAnalysis, 'fruitLabels' | 'fruitCount'>): Int32Array {
  const seen = new Uint8Array(a.fruitCount + 1);
  for (let i = 0; i < a.fruitLabels.length; i++) seen[a.fruitLabels[i]] = 1;
  const numbers = new Int32Array(a.fruitCount + 1);
  let n = 0;
  for (let l = 1; l <= a.fruitCount; l++) if (seen[l]) numbers[l] = ++n;
  return numbers;
}

/** Most fruit a `fruit-labels` image can number (one byte per pixel). */
export const MAX_LABELLED_FRUIT = 255;

/**
 * Each fruit's number (1..fruits.length, as in the result's `fruits`; 0 = not fruit) at full
 * resolution: the same nearest-neighbour upsampling as the fruit mask, so a fruit's pixels there are
 * its `pixels`.
 */
export function fullResolutionLabels(a: BruiseAnalysis) {
  const numbers = fruitNumbers(a);
  const count = numbers.reduce((m, v) => Math.max(m, v), 0);
  if (count > MAX_LABELLED_FRUIT)
    throw new MangoError(
      'INVALID_INPUT',
      `${count} fruit found: the fruit labels number at most ${MAX_LABELLED_FRUIT} fruit per photo`,
    );
  const { width: w, height: h } = a.work;
  const work = new Uint8Array(w * h);
  for (let i = 0; i < work.length; i++) work[i] = numbers[a.fruitLabels[i]];
  return { width: a.width, height: a.height, count, data: resizeMaskNearest(work, w, h, a.width, a.height) };
}

/**
 * Fruit and bruise masks (1 = set) of an image at its own resolution, e.g. for `mango bruise
 * --masks`. Options as the plugin's (defaults filled in); their pixel counts equal the result's.
 */
export async function bruiseMasks(image: RasterImage, options: BruiseOptionsInput = {}, input: AnalyseInput = {}) {
  return fullResolutionMasks(await analyseBruise(image, BruiseOptions.parse(options), input));
}

const round = (v: number, d: number) => Math.round(v * 10 ** d) / 10 ** d;

/** The numbers of the result item (everything but filename, overlay and timing). */
export function summariseBruise(a: BruiseAnalysis, pxPerCm?: number) {
  const { width: w, height: h } = a.work;
  const { colWeight, rowWeight } = upsampleWeights(w, h, a.width, a.height);
  // Full-resolution column/row span of each working column/row (for bounding boxes).
  const colSpan = spans(w, a.width);
  const rowSpan = spans(h, a.height);
  const k = a.fruitCount;
  const pixels = new Float64Array(k + 1);
  const bruised = new Float64Array(k + 1);
  for (let y = 0; y < h; y++) {
    const ry = rowWeight[y];
    for (let x = 0; x < w; x++) {
      const i = y * w + x;
      const l = a.fruitLabels[i];
      if (!l) continue;
      const wt = colWeight[x] * ry;
      pixels[l] += wt;
      if (a.bruise[i]) bruised[l] += wt;
    }
  }
  // Lesions: 8-connected bruise components, each counted for the fruit holding its first pixel.
  const lesions = labelComponents(a.bruise, w, h, 8);
  const lesionCount = new Int32Array(k + 1);
  const seen = new Uint8Array(lesions.count + 1);
  for (let i = 0; i < w * h; i++) {
    const c = lesions.labels[i];
    if (!c || seen[c]) continue;
    seen[c] = 1;
    lesionCount[a.fruitLabels[i]]++;
  }
  const boxes = labelBoxes(a.fruitLabels, w, h, k);
  const cm2 = (px: number) => (pxPerCm ? round(px / (pxPerCm * pxPerCm), 4) : undefined);
  const colour = colourDifferences(a);
  const fruits = [];
  let total = 0;
  let totalBruise = 0;
  // fruitNumbers: the numbering the fruit-labels image shares (labels without a pixel are left out)
  const numbers = fruitNumbers(a);
  for (let l = 1; l <= k; l++) {
    const b = boxes[l];
    if (!b || !numbers[l]) continue;
    total += pixels[l];
    totalBruise += bruised[l];
    const x0 = colSpan.first[b.x0];
    const y0 = rowSpan.first[b.y0];
    fruits.push({
      bbox: { x: x0, y: y0, width: colSpan.last[b.x1] - x0 + 1, height: rowSpan.last[b.y1] - y0 + 1 },
      pixels: pixels[l],
      bruise_pixels: bruised[l],
      bruise_percent: round((100 * bruised[l]) / pixels[l], 4),
      lesion_count: lesionCount[l],
      colour_difference: colour.byLabel[l],
      ...(pxPerCm ? { area_cm2: cm2(pixels[l]), bruise_area_cm2: cm2(bruised[l]) } : {}),
    });
  }
  const bruisePercent = total > 0 ? round((100 * totalBruise) / total, 4) : 0;
  return {
    total_mango_pixels: total,
    bruise_pixels: totalBruise,
    bruise_percent: bruisePercent,
    non_bruise_percent: total > 0 ? round(100 - bruisePercent, 4) : 0,
    fruits,
    colour_difference: colour.overall,
    /** deprecated alias of colour_difference (kept for existing clients) */
    severity: colour.overall,
    method: a.method,
    ...(a.modelId ? { model_id: a.modelId, model_sha256: a.modelSha256 } : {}),
    width: a.width,
    height: a.height,
    ...(pxPerCm ? { px_per_cm: pxPerCm, fruit_area_cm2: cm2(total), bruise_area_cm2: cm2(totalBruise) } : {}),
  };
}

function spans(small: number, full: number) {
  const first = new Int32Array(small).fill(-1);
  const last = new Int32Array(small).fill(-1);
  for (let X = 0; X < full; X++) {
    const x = Math.min(small - 1, Math.floor(((X + 0.5) * small) / full));
    if (first[x] < 0) first[x] = X;
    last[x] = X;
  }
  // Columns no full-resolution pixel maps to (only when upsampling by < 1): borrow a neighbour.
  for (let x = 0; x < small; x++) if (first[x] < 0) first[x] = last[x] = x > 0 ? last[x - 1] : 0;
  return { first, last };
}

/**
 * CIEDE2000 between the mean bruised and the mean healthy peel colour (CIELAB): over all fruit
 * (`overall`) and per fruit label (`byLabel[l]`); null where a fruit has no bruise or no healthy peel.
 */
export function colourDifferences(a: BruiseAnalysis): { overall: number | null; byLabel: (number | null)[] } {
  const n = a.work.width * a.work.height;
  const k = a.fruitCount;
  // Per label l (0 = all fruit): sums of L*, a*, b* and counts, bruised then healthy.
  const sums = new Float64Array((k + 1) * 8);
  const d = a.work.data;
  const lab = new Float64Array(3);
  for (let i = 0; i < n; i++) {
    if (!a.fruit[i]) continue;
    rgb8ToLab(d[i * 4], d[i * 4 + 1], d[i * 4 + 2], lab);
    const o = a.bruise[i] ? 0 : 4;
    for (const l of [0, a.fruitLabels[i]]) {
      if (l > k) continue;
      const b = l * 8 + o;
      sums[b] += lab[0];
      sums[b + 1] += lab[1];
      sums[b + 2] += lab[2];
      sums[b + 3]++;
    }
  }
  const delta = (l: number): number | null => {
    const b = l * 8;
    const nb = sums[b + 3];
    const nh = sums[b + 7];
    if (nb === 0 || nh === 0) return null;
    const mean = (o: number, c: number) => sums[b + o + c] / (o === 0 ? nb : nh);
    return round(deltaE2000(mean(4, 0), mean(4, 1), mean(4, 2), mean(0, 0), mean(0, 1), mean(0, 2)), 3);
  };
  return { overall: delta(0), byLabel: Array.from({ length: k + 1 }, (_, l) => (l === 0 ? null : delta(l))) };
}

/** The colour difference over all fruit (the result's `colour_difference`, formerly `severity`). */
export function severity(a: BruiseAnalysis): number | null {
  return colourDifferences(a).overall;
}

/**
 * Drops the fruit labels that kept less than half of their pixels (`before`, by label) after the
 * reference disc was cut out, clearing their lesion pixels too; the other labels are renumbered in order.
 */
function dropMostlyRemoved(labels: Int32Array, count: number, before: Int32Array, bruise: Uint8Array) {
  const kept = keepLabels(labels, count, (l, pixels) => pixels * 2 >= before[l]);
  if (kept.count < count) for (let i = 0; i < bruise.length; i++) if (!kept.labels[i]) bruise[i] = 0;
  return kept;
}
