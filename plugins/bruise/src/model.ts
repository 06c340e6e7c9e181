/**
 * The `model` method: an ONNX bruise-segmentation model loaded through ctx.models. Pre-processing
 * (resize to the model's input size, normalisation, NCHW) and post-processing (argmax or threshold,
 * resize back, restricted to the fruit) are pure functions so they are tested without a runtime.
 */
import type { LoadedModel, ModelManifestEntry, RasterImage, Tensor } from '@mango/core';
import { MangoError } from '@mango/core';
import { resizeBilinearPlanes, resizeMaskNearest } from './resample.ts';

export const BRUISE_TASK = 'bruise-segmentation';

/** RGB image -> float tensor [1, 3, H, W] at the model's input size, (x / 255 - mean) / std. */
export function preprocessForModel(image: RasterImage, entry: ModelManifestEntry): Tensor {
  const { width, height, mean, std } = entry.input;
  const planes = resizeBilinearPlanes(image, width, height);
  const hw = width * height;
  const data = new Float32Array(3 * hw);
  for (let c = 0; c < 3; c++) {
    const m = mean[c] ?? 0;
    const s = std[c] || 1;
    const p = planes[c];
    for (let i = 0; i < hw; i++) data[c * hw + i] = (p[i] / 255 - m) / s;
  }
  return { data, dims: [1, 3, height, width] };
}

/** Index of the bruise class in the model's output classes (the last class when none is named so). */
export function bruiseClassIndex(entry: ModelManifestEntry): number {
  const k = entry.output.classes.findIndex((c) => c.toLowerCase() === 'bruise');
  return k >= 0 ? k : entry.output.classes.length - 1;
}

/**
 * Model output -> bruise mask at (width, height), restricted to `fruit`. Outputs [1, C, h, w] with
 * C > 1 take the argmax over classes; a single channel ([1, 1, h, w] or [1, h, w]) is a probability
 * (threshold 0.5) or, when it leaves [0, 1], a logit (threshold 0).
 */
export function postprocessModelOutput(
  output: Tensor,
  entry: ModelManifestEntry,
  fruit: Uint8Array,
  width: number,
  height: number,
): Uint8Array {
  const dims = output.dims;
  if (dims.length < 3 || dims.length > 4) {
    throw new MangoError('INVALID_INPUT', `model ${entry.id}: unexpected output shape [${dims.join(', ')}]`);
  }
  const oh = dims[dims.length - 2];
  const ow = dims[dims.length - 1];
  const channels = dims.length === 4 ? dims[1] : 1;
  const hw = oh * ow;
  const d = output.data;
  if (d.length < channels * hw) throw new MangoError('INVALID_INPUT', `model ${entry.id}: output is too short`);
  const small = new Uint8Array(hw);
  if (channels > 1) {
    const target = Math.min(bruiseClassIndex(entry), channels - 1);
    for (let i = 0; i < hw; i++) {
      let best = 0;
      let bestV = d[i];
      for (let c = 1; c < channels; c++) {
        const v = d[c * hw + i];
        if (v > bestV) {
          bestV = v;
          best = c;
        }
      }
      small[i] = best === target ? 1 : 0;
    }
  } else {
    let lo = Infinity;
    let hi = -Infinity;
    for (let i = 0; i < hw; i++) {
      if (d[i] < lo) lo = d[i];
      if (d[i] > hi) hi = d[i];
    }
    const threshold = lo >= 0 && hi <= 1 ? 0.5 : 0;
    for (let i = 0; i < hw; i++) small[i] = d[i] > threshold ? 1 : 0;
  }
  const mask = resizeMaskNearest(small, ow, oh, width, height);
  for (let i = 0; i < mask.length; i++) mask[i] &= fruit[i];
  return mask;
}

export async function modelBruiseMask(image: RasterImage, fruit: Uint8Array, model: LoadedModel): Promise<Uint8Array> {
  const input = preprocessForModel(image, model.entry);
  const output = await model.run(input);
  return postprocessModelOutput(output, model.entry, fruit, image.width, image.height);
}
