/**
 * The learned fruit-and-lesion model (`crop: 'two-stage'` in the manifest, output classes `fruit` and
 * `bruise`, one logit each). The fruit is found by the model, not by a colour rule, so rotten, black
 * or mouldy peel is fruit when the model says so (models/training/ANNOTATION.md):
 *
 * 1. the whole picture, zero-padded to a centred square, at the model's input size: the fruit logit,
 *    sampled back (bilinear) onto the working copy, > 0 is fruit; holes filled; 8-connected pieces
 *    under MIN_FRUIT_FRACTION of the picture dropped; each piece is one fruit;
 * 2. each fruit's square (its box plus FRUIT_MARGIN per side, as `fruitSquare`) at the input size: the
 *    fruit logit decides the outline of that fruit (pixels of another fruit are left to it) and the
 *    lesion logit > 0 marks lesion on it, so a lesion belongs to the fruit it lies on;
 * 3. the outlines' union in 8-connected pieces, holes filled, a plain background's colour taken out
 *    (dropBackgroundColour); pieces under MIN_FRUIT_FRACTION dropped, and pieces whose mean fruit logit
 *    stays under MIN_FRUIT_LOGIT (dropUnsure: tray machinery, glare, leaves), except the surest; a piece
 *    that is not convex is cut to the convex body of its sure pixels (dropAttached: tray machinery that
 *    touches the fruit).
 *
 * Every run of step 2 is averaged over the manifest's test-time views (`tta`), each mapped back before
 * averaging, and step 1 over `tta_first` (default: identity only). The shipped model uses the four
 * quarter turns in both: a group, so a photo turned by a quarter is seen through the same views and gives
 * the same fruit squares and the same number up to resampling (models/bruise-unet-320.md, "Test-time views").
 */
import type { LoadedModel, ModelManifestEntry, RasterImage, TtaView } from '@mango/core';
import {
  fillHoles,
  grownHull,
  hullMask,
  keepLabels,
  labelHulls,
  largestComponent,
  pixelHull,
  labelBoxes,
  labelComponents,
  MangoError,
  rgb8ToLab,
} from '@mango/core';
import { cropSquarePlanes, fruitSquare, type FruitSquare } from './model.ts';

/** Fruit pieces smaller than this share of the picture are dropped (specks, a fruit's far edge). */
export const MIN_FRUIT_FRACTION = 0.002;

export const isTwoStage = (entry: ModelManifestEntry) => entry.input.crop === 'two-stage';

/** A square plane seen through `view` (`inverse`: mapped back). Turns are counter-clockwise, as numpy's rot90. */
export function viewPlane(plane: Float32Array, s: number, view: TtaView, inverse = false): Float32Array {
  const map = viewMap(s, view, inverse);
  if (!map) return plane;
  const out = new Float32Array(s * s);
  for (let i = 0; i < out.length; i++) out[i] = plane[map[i]];
  return out;
}

const VIEW_MAPS = new Map<string, Int32Array>();

/** For each pixel of the view, the pixel of the square plane it shows (null for identity); built once per view and size. */
function viewMap(s: number, view: TtaView, inverse: boolean): Int32Array | null {
  if (view === 'identity') return null;
  const key = `${view} ${s} ${inverse}`;
  const known = VIEW_MAPS.get(key);
  if (known) return known;
  // a quarter turn one way is the inverse of a quarter turn the other way; the mirrors and the half turn are their own
  const quarter = view === 'rot90' ? (inverse ? -1 : 1) : view === 'rot270' ? (inverse ? 1 : -1) : 0;
  const out = new Int32Array(s * s);
  for (let y = 0; y < s; y++) {
    for (let x = 0; x < s; x++) {
      let src: number;
      if (view === 'flip-h') src = y * s + (s - 1 - x);
      else if (view === 'flip-v') src = (s - 1 - y) * s + x;
      else if (view === 'rot180') src = (s - 1 - y) * s + (s - 1 - x);
      else if (view === 'transpose') src = x * s + y;
      else if (view === 'anti-transpose') src = (s - 1 - x) * s + (s - 1 - y);
      else if (quarter === 1) src = x * s + (s - 1 - y);
      else src = (s - 1 - x) * s + y;
      out[y * s + x] = src;
    }
  }
  VIEW_MAPS.set(key, out);
  return out;
}

function classIndex(entry: ModelManifestEntry, name: string): number {
  const k = entry.output.classes.findIndex((c) => c.toLowerCase() === name);
  if (k < 0) throw new MangoError('INVALID_INPUT', `model ${entry.id}: no output class named ${name}`);
  return k;
}

/** The fruit and lesion logits (s x s) of one square, averaged over the test-time views. */
export async function squareLogits(
  model: LoadedModel,
  planes: Float32Array[],
  s: number,
  views: readonly TtaView[] = model.entry.tta ?? ['identity'],
): Promise<{ fruit: Float32Array; bruise: Float32Array }> {
  const entry = model.entry;
  const kf = classIndex(entry, 'fruit');
  const kb = classIndex(entry, 'bruise');
  const hw = s * s;
  const fruit = new Float32Array(hw);
  const bruise = new Float32Array(hw);
  // The input normalised once, the views then only reorder it.
  const input = new Float32Array(3 * hw);
  for (let c = 0; c < 3; c++) {
    const m = entry.input.mean[c] ?? 0;
    const sd = entry.input.std[c] || 1;
    const p = planes[c];
    for (let i = 0; i < hw; i++) input[c * hw + i] = (p[i] / 255 - m) / sd;
  }
  const data = views.length === 1 && views[0] === 'identity' ? input : new Float32Array(3 * hw);
  for (const view of views) {
    const map = viewMap(s, view, false);
    const back = viewMap(s, view, true);
    if (data !== input) {
      for (let c = 0; c < 3; c++) {
        const o = c * hw;
        if (map) for (let i = 0; i < hw; i++) data[o + i] = input[o + map[i]];
        else data.set(input.subarray(o, o + hw), o);
      }
    }
    const out = await model.run({ data, dims: [1, 3, s, s] });
    const [, channels, h, w] = out.dims;
    if (out.dims.length !== 4 || h !== s || w !== s || channels <= Math.max(kf, kb)) {
      throw new MangoError('INVALID_INPUT', `model ${entry.id}: unexpected output shape [${out.dims.join(', ')}]`);
    }
    const f = kf * hw;
    const b = kb * hw;
    for (let i = 0; i < hw; i++) {
      const j = back ? back[i] : i;
      fruit[i] += out.data[f + j];
      bruise[i] += out.data[b + j];
    }
  }
  for (let i = 0; i < hw; i++) {
    fruit[i] /= views.length;
    bruise[i] /= views.length;
  }
  return { fruit, bruise };
}

/**
 * The working-copy pixels the square covers (columns xa..xb-1, rows ya..yb-1) and the bilinear sample
 * of each of `planes` (s x s logits) at every one of them, row by row (Float64: the sign of a sample is
 * never rounded away).
 */
function sampleOnWork(
  sq: FruitSquare,
  s: number,
  image: { width: number; height: number },
  work: { width: number; height: number },
  planes: Float32Array[],
): { xa: number; xb: number; ya: number; yb: number; values: Float64Array[] } {
  const sx = image.width / work.width;
  const sy = image.height / work.height;
  const f = s / sq.side;
  const xa = Math.max(0, Math.floor(sq.x0 / sx));
  const xb = Math.min(work.width, Math.ceil((sq.x0 + sq.side) / sx));
  const ya = Math.max(0, Math.floor(sq.y0 / sy));
  const yb = Math.min(work.height, Math.ceil((sq.y0 + sq.side) / sy));
  const cols = Math.max(0, xb - xa);
  const rows = Math.max(0, yb - ya);
  // per column its two sample columns and weight, the same for every row
  const u0s = new Int32Array(cols);
  const u1s = new Int32Array(cols);
  const wus = new Float64Array(cols);
  for (let x = xa; x < xb; x++) {
    const u = ((x + 0.5) * sx - sq.x0) * f - 0.5;
    const u0 = Math.min(Math.max(Math.floor(u), 0), s - 1);
    u0s[x - xa] = u0;
    u1s[x - xa] = Math.min(u0 + 1, s - 1);
    wus[x - xa] = Math.min(Math.max(u - u0, 0), 1);
  }
  const values = planes.map(() => new Float64Array(cols * rows));
  for (let y = ya; y < yb; y++) {
    const v = ((y + 0.5) * sy - sq.y0) * f - 0.5;
    const v0 = Math.min(Math.max(Math.floor(v), 0), s - 1);
    const v1 = Math.min(v0 + 1, s - 1);
    const wv = Math.min(Math.max(v - v0, 0), 1);
    const r0 = v0 * s;
    const r1 = v1 * s;
    const o = (y - ya) * cols;
    for (let k = 0; k < planes.length; k++) {
      const p = planes[k];
      const out = values[k];
      for (let c = 0; c < cols; c++) {
        const u0 = u0s[c];
        const u1 = u1s[c];
        const wu = wus[c];
        out[o + c] =
          (p[r0 + u0] * (1 - wu) + p[r0 + u1] * wu) * (1 - wv) + (p[r1 + u0] * (1 - wu) + p[r1 + u1] * wu) * wv;
      }
    }
  }
  return { xa, xb, ya, yb, values };
}

/** A logit as an 8-bit probability: 255 * sigmoid(logit), rounded. */
export const probabilityByte = (logit: number) => Math.round(255 / (1 + Math.exp(-logit)));

/**
 * Fruit labels and lesion mask on the working copy `work` from the learned model; `image` is the
 * picture at the resolution the model reads (at least the working copy's). With `known` fruit labels
 * (a cut-out's alpha, a truth mask) the first look is skipped and the labels are kept as they are.
 * With `want.probability`, also the lesion probability of every fruit pixel (`probabilityByte` of
 * the lesion logit its fruit's square gives it; 0 outside the fruit): the mask editor's magic wand.
 */
export async function learnedSegmentation(
  image: RasterImage,
  work: RasterImage,
  model: LoadedModel,
  known?: { labels: Int32Array; count: number },
  want: { probability?: boolean } = {},
): Promise<{ labels: Int32Array; count: number; bruise: Uint8Array; probability?: Uint8Array }> {
  const s = model.entry.input.width;
  const n = work.width * work.height;
  let first: { labels: Int32Array; count: number };
  if (known) first = known;
  else {
    const side = Math.max(image.width, image.height);
    const whole = { x0: Math.round((image.width - side) / 2), y0: Math.round((image.height - side) / 2), side };
    // The first look only places the fruit squares (the second decides the outline): its own views.
    const { fruit } = await squareLogits(
      model,
      cropSquarePlanes(image, whole, s),
      s,
      model.entry.tta_first ?? ['identity'],
    );
    let mask: Uint8Array = new Uint8Array(n);
    const at = sampleOnWork(whole, s, image, work, [fruit]);
    const cols = at.xb - at.xa;
    for (let y = at.ya; y < at.yb; y++)
      for (let x = at.xa; x < at.xb; x++)
        mask[y * work.width + x] = at.values[0][(y - at.ya) * cols + x - at.xa] > 0 ? 1 : 0;
    mask = fillHoles(mask, work.width, work.height);
    first = dropSmall(labelComponents(mask, work.width, work.height, 8), n);
  }
  const labels = known ? first.labels : new Int32Array(first.labels);
  const bruise = new Uint8Array(n);
  // each pixel's fruit logit from the square that made it fruit (read where `labels` holds a fruit)
  const fruitLogit = known ? undefined : new Float32Array(n);
  const probability = want.probability ? new Uint8Array(n) : undefined;
  const boxes = labelBoxes(first.labels, work.width, work.height, first.count);
  const sx = image.width / work.width;
  const sy = image.height / work.height;
  for (let l = 1; l <= first.count; l++) {
    const b = boxes[l];
    if (!b) continue;
    const sq = fruitSquare(b.x0 * sx, b.y0 * sy, (b.x1 + 1) * sx, (b.y1 + 1) * sy, image);
    const out = await squareLogits(model, cropSquarePlanes(image, sq, s), s);
    const at = sampleOnWork(sq, s, image, work, [out.fruit, out.bruise]);
    const [fruitAt, bruiseAt] = at.values;
    const cols = at.xb - at.xa;
    for (let y = at.ya; y < at.yb; y++) {
      for (let x = at.xa; x < at.xb; x++) {
        const i = y * work.width + x;
        const k = (y - at.ya) * cols + x - at.xa;
        const was = first.labels[i];
        if (was !== 0 && was !== l) continue; // another fruit's pixel
        if (known) {
          if (was !== l) continue;
          const logit = bruiseAt[k];
          if (logit > 0) bruise[i] = 1;
          if (probability) probability[i] = probabilityByte(logit);
          continue;
        }
        if (was === 0 && labels[i] !== 0 && labels[i] !== l) continue; // claimed by a neighbour's square
        if (fruitAt[k] > 0) {
          const logit = bruiseAt[k];
          labels[i] = l;
          fruitLogit![i] = fruitAt[k];
          bruise[i] = logit > 0 ? 1 : 0;
          if (probability) probability[i] = probabilityByte(logit);
        } else if (labels[i] === l) {
          labels[i] = 0;
          bruise[i] = 0;
          if (probability) probability[i] = 0;
        }
      }
    }
  }
  if (known) return { labels, count: first.count, bruise, probability };
  // The outlines may have moved: each fruit is its own pieces again, holes filled, specks dropped.
  const union = new Uint8Array(n);
  for (let i = 0; i < n; i++) union[i] = labels[i] ? 1 : 0;
  const filled = fillHoles(union, work.width, work.height);
  dropBackgroundColour(work, filled);
  const pieces = dropAttached(
    dropUnsure(dropSmall(labelComponents(filled, work.width, work.height, 8), n), labels, fruitLogit!),
    labels,
    fruitLogit!,
    work.width,
    work.height,
  );
  for (let i = 0; i < n; i++)
    if (!pieces.labels[i]) {
      bruise[i] = 0;
      if (probability) probability[i] = 0;
    }
  return { labels: pieces.labels, count: pieces.count, bruise, probability };
}

/** CIE76 distance from the background's colour under which a fruit pixel is taken for background. */
export const BACKGROUND_DELTA_E = 8;

/**
 * A safety net for a plain background: when most of the picture's border is not fruit and that border
 * is one colour (median absolute deviation of L*, a*, b* each under 4), fruit pixels within
 * BACKGROUND_DELTA_E of its median colour are background the model took for fruit (the gap between
 * two fruit, a bridge between neighbours). Rot, mould and shade stay: they are far from a plain
 * background's colour.
 */
export function dropBackgroundColour(work: RasterImage, fruit: Uint8Array): void {
  const { width: w, height: h, data } = work;
  const border: number[] = [];
  for (let x = 0; x < w; x++) border.push(x, (h - 1) * w + x);
  for (let y = 1; y < h - 1; y++) border.push(y * w, y * w + w - 1);
  const lab = new Float64Array(3);
  const L: number[] = [];
  const A: number[] = [];
  const B: number[] = [];
  for (const i of border) {
    if (fruit[i]) continue;
    rgb8ToLab(data[i * 4], data[i * 4 + 1], data[i * 4 + 2], lab);
    L.push(lab[0]);
    A.push(lab[1]);
    B.push(lab[2]);
  }
  if (L.length < 0.6 * border.length) return;
  const median = (v: number[]) => [...v].sort((a, b) => a - b)[v.length >> 1];
  const mad = (v: number[], m: number) => median(v.map((x) => Math.abs(x - m)));
  const m = [median(L), median(A), median(B)];
  if (mad(L, m[0]) >= 4 || mad(A, m[1]) >= 4 || mad(B, m[2]) >= 4) return;
  const t2 = BACKGROUND_DELTA_E * BACKGROUND_DELTA_E;
  for (let i = 0; i < w * h; i++) {
    if (!fruit[i]) continue;
    rgb8ToLab(data[i * 4], data[i * 4 + 1], data[i * 4 + 2], lab);
    if ((lab[0] - m[0]) ** 2 + (lab[1] - m[1]) ** 2 + (lab[2] - m[2]) ** 2 < t2) fruit[i] = 0;
  }
}

/**
 * Mean fruit logit under which a found piece is not a fruit (dropUnsure): a mean probability of about
 * 0.92. Chosen on fold 0 of the grouped cross-validation and half the AI CUP photos (models/bruise-unet-320.md,
 * "Pieces the model is not sure of").
 */
export const MIN_FRUIT_LOGIT = 2.5;

/**
 * The pieces whose mean fruit logit (over the pixels a square called fruit: `scored` non-zero) is at least
 * MIN_FRUIT_LOGIT, and the surest piece whatever its mean, renumbered: a real fruit is fruit to the
 * model throughout (a mean logit of 3.5 or more on the dev photos), while the tray machinery, glare and
 * leaves it half takes for fruit stay near the threshold (a mean of 1-2).
 */
function dropUnsure(c: { labels: Int32Array; count: number }, scored: Int32Array, logit: Float32Array) {
  const sum = new Float64Array(c.count + 1);
  const counted = new Float64Array(c.count + 1);
  for (let i = 0; i < c.labels.length; i++) {
    const l = c.labels[i];
    if (l && scored[i]) {
      sum[l] += logit[i];
      counted[l]++;
    }
  }
  const mean = (l: number) => (counted[l] > 0 ? sum[l] / counted[l] : -Infinity);
  // the surest piece always stays: a photo of one rotten fruit the model is unsure of keeps its fruit
  let surest = 0;
  for (let l = 1; l <= c.count; l++) if (!surest || mean(l) > mean(surest)) surest = l;
  return keepLabels(c.labels, c.count, (l) => l === surest || mean(l) >= MIN_FRUIT_LOGIT);
}

/** Fruit logit from which a pixel is the sure body of its fruit (dropAttached): a probability of 0.993. */
export const CORE_FRUIT_LOGIT = 5;
/** A piece less solid than this (its pixels over its convex hull's area) may have something attached. */
export const ATTACHED_SOLIDITY = 0.85;
/** The body a piece is cut to must be at least this solid and keep at least BODY_MIN_SHARE of its pixels. */
export const BODY_SOLIDITY = 0.9;
export const BODY_MIN_SHARE = 0.5;
/** The body: the piece's pixels within this share of sqrt(its pixels) of its sure pixels' convex hull. */
export const BODY_HULL_MARGIN = 0.03;

/**
 * Something the model half takes for fruit and that touches a fruit (tray machinery, a roller beside a
 * fruit on a sorting line) makes one piece with it, and that piece is not convex, where a mango is: the
 * largest annotated fruit of each of the 332 annotated dev photos has a solidity of 0.987 (median), 0.868
 * at the least; the tray pieces joined to a fruit on the AI CUP photos 0.65-0.73. A piece under
 * ATTACHED_SOLIDITY is cut to its body, the pixels within BODY_HULL_MARGIN of the convex hull of its sure
 * pixels (fruit logit of CORE_FRUIT_LOGIT or more, as a square scored them: `scored` non-zero), when that
 * body is convex (BODY_SOLIDITY) and holds at least BODY_MIN_SHARE of the piece. Any other piece stays as
 * it is: a neighbour's crescent behind another fruit is not convex, and it is fruit by the rule.
 */
function dropAttached(
  c: { labels: Int32Array; count: number },
  scored: Int32Array,
  logit: Float32Array,
  w: number,
  h: number,
) {
  const hulls = labelHulls(c.labels, c.count, w, h);
  let out: Int32Array | null = null;
  for (let l = 1; l <= c.count; l++) {
    const piece = hulls[l];
    if (piece.pixels >= ATTACHED_SOLIDITY * piece.area) continue;
    const sure = new Uint8Array(w * h);
    for (let i = 0; i < sure.length; i++)
      if (c.labels[i] === l && scored[i] !== 0 && logit[i] >= CORE_FRUIT_LOGIT) sure[i] = 1;
    const largest = largestComponent(sure, w, h, 8);
    if (!largest) continue;
    const core = pixelHull((i) => largest[i] === 1, w, h);
    if (core.area === 0) continue;
    const near = hullMask(grownHull(core, BODY_HULL_MARGIN * Math.sqrt(piece.pixels), h), w, h);
    const body = pixelHull((i) => c.labels[i] === l && near[i] === 1, w, h);
    if (body.pixels < BODY_MIN_SHARE * piece.pixels || body.pixels < BODY_SOLIDITY * body.area) continue;
    out ??= new Int32Array(c.labels);
    for (let i = 0; i < out.length; i++) if (out[i] === l && !near[i]) out[i] = 0;
  }
  return out ? { labels: out, count: c.count } : c;
}

/** The pieces of at least MIN_FRUIT_FRACTION of the picture (n pixels), renumbered. */
const dropSmall = (c: { labels: Int32Array; count: number }, n: number) =>
  keepLabels(c.labels, c.count, (_l, pixels) => pixels >= MIN_FRUIT_FRACTION * n);
