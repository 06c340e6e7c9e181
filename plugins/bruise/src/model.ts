/**
 * The `model` method: an ONNX bruise-segmentation model loaded through ctx.models. Pre-processing
 * and post-processing are pure functions, so they are tested without a runtime and run the same in
 * Node (onnxruntime-node) and the browser (onnxruntime-web).
 *
 * Two input layouts, chosen by the manifest entry:
 * - `crop: 'whole'` (default): the whole picture resized to the input size, RGB planes.
 * - `crop: 'fruit-square'`: each fruit alone, cut as the square around its bounding box with
 *   FRUIT_MARGIN on every side (zero outside the picture), resampled to the input size (area average
 *   when shrinking, bilinear when enlarging), RGB planes plus the fruit's mask as a fourth channel
 *   when `fruit_channel` is set. The bruise logit is sampled back (bilinear) at every pixel of that
 *   fruit on the working copy. This is how models/training/mango_train cuts its training squares
 *   (data.fruit_square), so a small lesion keeps its size relative to its fruit whatever the photo.
 */
import type { LoadedModel, ModelManifestEntry, RasterImage, Tensor } from '@mango/core';
import { labelBoxes, MangoError, resizeBilinearPlanes, resizeMaskNearest } from '@mango/core';

export const BRUISE_TASK = 'bruise-segmentation';

/** Margin around a fruit's bounding box, per side, as a share of its long side (= data.FRUIT_MARGIN). */
export const FRUIT_MARGIN = 0.06;

/** RGB image -> float tensor [1, 3, H, W] at the model's input size, (x / 255 - mean) / std. */
export function preprocessForModel(image: RasterImage, entry: ModelManifestEntry): Tensor {
  const { width, height } = entry.input;
  const planes = resizeBilinearPlanes(image, width, height);
  return { data: normalisePlanes(planes, entry, null), dims: [1, 3, height, width] };
}

function normalisePlanes(planes: Float32Array[], entry: ModelManifestEntry, fruit: Float32Array | null) {
  const hw = planes[0].length;
  const data = new Float32Array((fruit ? 4 : 3) * hw);
  for (let c = 0; c < 3; c++) {
    const m = entry.input.mean[c] ?? 0;
    const s = entry.input.std[c] || 1;
    const p = planes[c];
    for (let i = 0; i < hw; i++) data[c * hw + i] = (p[i] / 255 - m) / s;
  }
  if (fruit) data.set(fruit, 3 * hw);
  return data;
}

/** Index of the bruise class in the model's output classes (the last class when none is named so). */
export function bruiseClassIndex(entry: ModelManifestEntry): number {
  const k = entry.output.classes.findIndex((c) => c.toLowerCase() === 'bruise');
  return k >= 0 ? k : entry.output.classes.length - 1;
}

/**
 * Model output -> bruise score per output pixel, where > 0 means bruise: +1 / -1 by argmax over the
 * classes for [1, C, h, w] with C > 1 (ties go to the first class); for one channel the logit itself, or the
 * probability minus 0.5 (`activation` in the manifest; without it, a channel within [0, 1] is read
 * as a probability).
 */
export function bruiseScores(
  output: Tensor,
  entry: ModelManifestEntry,
): { scores: Float32Array; w: number; h: number } {
  const dims = output.dims;
  if (dims.length < 3 || dims.length > 4) {
    throw new MangoError('INVALID_INPUT', `model ${entry.id}: unexpected output shape [${dims.join(', ')}]`);
  }
  const h = dims[dims.length - 2];
  const w = dims[dims.length - 1];
  const channels = dims.length === 4 ? dims[1] : 1;
  const hw = h * w;
  const d = output.data;
  if (d.length < channels * hw) throw new MangoError('INVALID_INPUT', `model ${entry.id}: output is too short`);
  const scores = new Float32Array(hw);
  if (channels > 1) {
    const target = Math.min(bruiseClassIndex(entry), channels - 1);
    for (let i = 0; i < hw; i++) {
      let best = 0;
      for (let c = 1; c < channels; c++) if (d[c * hw + i] > d[best * hw + i]) best = c;
      scores[i] = best === target ? 1 : -1;
    }
    return { scores, w, h };
  }
  let activation = entry.output.activation;
  if (!activation) {
    let lo = Infinity;
    let hi = -Infinity;
    for (let i = 0; i < hw; i++) {
      if (d[i] < lo) lo = d[i];
      if (d[i] > hi) hi = d[i];
    }
    activation = lo >= 0 && hi <= 1 ? 'probability' : 'logit';
  }
  const offset = activation === 'probability' ? 0.5 : 0;
  for (let i = 0; i < hw; i++) scores[i] = d[i] - offset;
  return { scores, w, h };
}

/**
 * Model output over the whole picture -> bruise mask at (width, height), restricted to `fruit`
 * (nearest-neighbour resize of the thresholded scores).
 */
export function postprocessModelOutput(
  output: Tensor,
  entry: ModelManifestEntry,
  fruit: Uint8Array,
  width: number,
  height: number,
): Uint8Array {
  const { scores, w, h } = bruiseScores(output, entry);
  const small = new Uint8Array(w * h);
  for (let i = 0; i < small.length; i++) small[i] = scores[i] > 0 ? 1 : 0;
  const mask = resizeMaskNearest(small, w, h, width, height);
  for (let i = 0; i < mask.length; i++) mask[i] &= fruit[i];
  return mask;
}

/** A fruit's square in source-image pixels: [x0, x0 + side) x [y0, y0 + side). */
export interface FruitSquare {
  x0: number;
  y0: number;
  side: number;
}

/**
 * The square around a bounding box [x0, x1) x [y0, y1) (source pixels, end exclusive), widened by
 * FRUIT_MARGIN per side, rounded as the training code rounds it. With the `frame` (the picture's size)
 * the square of a turned or mirrored picture is the turned or mirrored square (Math.round always goes
 * up, which a mirror turns into down: a one-pixel shift the network sees): the side takes the parity
 * of the box's (x0 + x1) when (y0 + y1) has the same, so both corners fall on whole pixels; a corner
 * still half-way between two goes to the one nearer the square centred in the frame.
 */
export function fruitSquare(
  x0: number,
  y0: number,
  x1: number,
  y1: number,
  frame?: { width: number; height: number },
): FruitSquare {
  let side = Math.max(1, Math.round(Math.max(x1 - x0, y1 - y0) * (1 + 2 * FRUIT_MARGIN)));
  const sumX = x0 + x1;
  const sumY = y0 + y1;
  if (frame && Number.isInteger(sumX) && Number.isInteger(sumY) && (sumX - sumY) % 2 === 0 && (sumX - side) % 2 !== 0) {
    side++;
  }
  const place = (a: number, length: number | undefined) => {
    // (+ 0: no -0 corner)
    if (length === undefined || Math.abs(a - Math.floor(a) - 0.5) > 1e-9) return Math.round(a) + 0;
    return (a < (length - side) / 2 ? Math.ceil(a) : Math.floor(a)) + 0;
  };
  return {
    x0: place((x0 + x1) / 2 - side / 2, frame?.width),
    y0: place((y0 + y1) / 2 - side / 2, frame?.height),
    side,
  };
}

/**
 * The cells of a box reduction of `side` pixels to `size` (side > size): for cell i, the first pixel it
 * touches and each touched pixel's share of [i f, (i + 1) f) over f (the weights sum to 1).
 */
function boxCells(side: number, size: number): { start: number; weights: Float64Array }[] {
  const f = side / size;
  const cells: { start: number; weights: Float64Array }[] = [];
  for (let i = 0; i < size; i++) {
    const a = (i * side) / size;
    const b = ((i + 1) * side) / size;
    const start = Math.floor(a);
    const end = Math.min(side, Math.ceil(b));
    const weights = new Float64Array(end - start);
    for (let j = start; j < end; j++) weights[j - start] = (Math.min(b, j + 1) - Math.max(a, j)) / f;
    cells.push({ start, weights });
  }
  return cells;
}

/**
 * The square `sq` of `image` resampled to size x size RGB planes (0..255; zero outside the picture):
 * when shrinking, each cell the mean over its exact area [i f, (i + 1) f) (f = side / size; a pixel cut
 * by the cell's edge weighs by the part inside, as OpenCV's INTER_AREA: the test compares the two), so the
 * cells of a mirrored square are the mirrored cells; bilinear when enlarging. (The training's PIL BOX
 * filter averages the pixels whose centre lies in the cell: near, not equal; it trains on random scales.)
 */
export function cropSquarePlanes(image: RasterImage, sq: FruitSquare, size: number): Float32Array[] {
  const { width: W, height: H, data } = image;
  const planes = [0, 1, 2].map(() => new Float32Array(size * size));
  const f = sq.side / size;
  if (f > 1) {
    const cells = boxCells(sq.side, size);
    // rows of the square (source rows) reduced along x: side x size x 3
    const rows = new Float32Array(sq.side * size * 3);
    // each output column's source columns inside the photo (those outside add nothing)
    const from = new Int32Array(size);
    const to = new Int32Array(size);
    for (let ox = 0; ox < size; ox++) {
      const first = sq.x0 + cells[ox].start;
      from[ox] = Math.max(0, -first);
      to[ox] = Math.min(cells[ox].weights.length, W - first);
    }
    for (let r = 0; r < sq.side; r++) {
      const y = sq.y0 + r;
      if (y < 0 || y >= H) continue;
      for (let ox = 0; ox < size; ox++) {
        const { start, weights } = cells[ox];
        let red = 0;
        let green = 0;
        let blue = 0;
        let j = (y * W + sq.x0 + start + from[ox]) * 4;
        for (let k = from[ox]; k < to[ox]; k++, j += 4) {
          red += weights[k] * data[j];
          green += weights[k] * data[j + 1];
          blue += weights[k] * data[j + 2];
        }
        const o = (r * size + ox) * 3;
        rows[o] = red;
        rows[o + 1] = green;
        rows[o + 2] = blue;
      }
    }
    for (let oy = 0; oy < size; oy++) {
      const { start, weights } = cells[oy];
      for (let ox = 0; ox < size; ox++) {
        let red = 0;
        let green = 0;
        let blue = 0;
        for (let k = 0; k < weights.length; k++) {
          const o = ((start + k) * size + ox) * 3;
          red += weights[k] * rows[o];
          green += weights[k] * rows[o + 1];
          blue += weights[k] * rows[o + 2];
        }
        const o = oy * size + ox;
        planes[0][o] = red;
        planes[1][o] = green;
        planes[2][o] = blue;
      }
    }
    return planes;
  }
  const px = (x: number, y: number, c: number) => (x < 0 || y < 0 || x >= W || y >= H ? 0 : data[(y * W + x) * 4 + c]);
  for (let oy = 0; oy < size; oy++) {
    const fy = sq.y0 + (oy + 0.5) * f - 0.5;
    const y0 = Math.floor(fy);
    const wy = fy - y0;
    for (let ox = 0; ox < size; ox++) {
      const fx = sq.x0 + (ox + 0.5) * f - 0.5;
      const x0 = Math.floor(fx);
      const wx = fx - x0;
      const o = oy * size + ox;
      for (let c = 0; c < 3; c++) {
        const top = px(x0, y0, c) * (1 - wx) + px(x0 + 1, y0, c) * wx;
        const bottom = px(x0, y0 + 1, c) * (1 - wx) + px(x0 + 1, y0 + 1, c) * wx;
        planes[c][o] = top * (1 - wy) + bottom * wy;
      }
    }
  }
  return planes;
}

/** The input tensor of one fruit: its square of `image`, plus its mask from the working-copy labels. */
export function fruitSquareInput(
  image: RasterImage,
  labels: Int32Array,
  work: { width: number; height: number },
  label: number,
  sq: FruitSquare,
  entry: ModelManifestEntry,
): Tensor {
  const size = entry.input.width;
  const planes = cropSquarePlanes(image, sq, size);
  let fruit: Float32Array | null = null;
  if (entry.input.fruit_channel) {
    fruit = new Float32Array(size * size);
    const sx = work.width / image.width;
    const sy = work.height / image.height;
    const f = sq.side / size;
    for (let oy = 0; oy < size; oy++) {
      const wy = Math.floor((sq.y0 + (oy + 0.5) * f) * sy);
      if (wy < 0 || wy >= work.height) continue;
      for (let ox = 0; ox < size; ox++) {
        const wx = Math.floor((sq.x0 + (ox + 0.5) * f) * sx);
        if (wx >= 0 && wx < work.width && labels[wy * work.width + wx] === label) fruit[oy * size + ox] = 1;
      }
    }
  }
  return { data: normalisePlanes(planes, entry, fruit), dims: [1, fruit ? 4 : 3, size, size] };
}

/** Samples the square's scores back onto the working-copy pixels of fruit `label` (bilinear; > 0 = bruise). */
export function scoresToFruitMask(
  scores: { scores: Float32Array; w: number; h: number },
  labels: Int32Array,
  work: { width: number; height: number },
  image: { width: number; height: number },
  label: number,
  sq: FruitSquare,
  out: Uint8Array,
): void {
  const { scores: s, w, h } = scores;
  const sx = image.width / work.width;
  const sy = image.height / work.height;
  const fx = w / sq.side;
  const fy = h / sq.side;
  for (let y = 0; y < work.height; y++) {
    const v = ((y + 0.5) * sy - sq.y0) * fy - 0.5;
    const v0 = Math.min(Math.max(Math.floor(v), 0), h - 1);
    const v1 = Math.min(v0 + 1, h - 1);
    const wv = Math.min(Math.max(v - v0, 0), 1);
    for (let x = 0; x < work.width; x++) {
      const i = y * work.width + x;
      if (labels[i] !== label) continue;
      const u = ((x + 0.5) * sx - sq.x0) * fx - 0.5;
      const u0 = Math.min(Math.max(Math.floor(u), 0), w - 1);
      const u1 = Math.min(u0 + 1, w - 1);
      const wu = Math.min(Math.max(u - u0, 0), 1);
      const top = s[v0 * w + u0] * (1 - wu) + s[v0 * w + u1] * wu;
      const bottom = s[v1 * w + u0] * (1 - wu) + s[v1 * w + u1] * wu;
      out[i] = top * (1 - wv) + bottom * wv > 0 ? 1 : 0;
    }
  }
}

/**
 * Bruise mask on the working copy. `image` is the picture at the resolution the model reads (at
 * least the working copy's); `labels` are the fruit labels of the working copy `work`.
 */
export async function modelBruiseMask(
  image: RasterImage,
  work: RasterImage,
  labels: Int32Array,
  fruitCount: number,
  model: LoadedModel,
): Promise<Uint8Array> {
  const entry = model.entry;
  const n = work.width * work.height;
  if (entry.input.crop !== 'fruit-square') {
    const fruit = new Uint8Array(n);
    for (let i = 0; i < n; i++) fruit[i] = labels[i] ? 1 : 0;
    const output = await model.run(preprocessForModel(work, entry));
    return postprocessModelOutput(output, entry, fruit, work.width, work.height);
  }
  const mask = new Uint8Array(n);
  const boxes = labelBoxes(labels, work.width, work.height, fruitCount);
  const sx = image.width / work.width;
  const sy = image.height / work.height;
  for (let l = 1; l <= fruitCount; l++) {
    const b = boxes[l];
    if (!b) continue;
    const sq = fruitSquare(b.x0 * sx, b.y0 * sy, (b.x1 + 1) * sx, (b.y1 + 1) * sy);
    const output = await model.run(fruitSquareInput(image, labels, work, l, sq, entry));
    scoresToFruitMask(bruiseScores(output, entry), labels, work, image, l, sq, mask);
  }
  return mask;
}
