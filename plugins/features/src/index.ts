import {
  definePlugin,
  fitSize,
  MangoError,
  runPlugin,
  throwIfAborted,
  type PluginContext,
  type RasterImage,
} from '@mango/core';
import bruise from '@mango/plugin-bruise';
import { computeFeatures } from './computeFeatures.ts';
import { fruitFeatures } from './perFruit.ts';
import { FeaturesOptions, FeaturesResult } from './schema.ts';
import { featuresRuns } from './runs.ts';

export { computeFeatures, foregroundMask, algebraicFeatures, type FeatureValues } from './computeFeatures.ts';
export { FEATURE_VALUE_NAMES, FEATURE_DESCRIPTIONS } from './names.ts';
export { FeaturesOptions, FeaturesResult, DEFAULT_MAX_SIDE } from './schema.ts';
export { fruitFeatures, fruitCrop, labelBoundingBoxes, scaledNames, SCALED_VALUES } from './perFruit.ts';
import { type FruitFeatures } from './results.ts';

/** The options that only mean something with perFruit (they go to the bruise plugin). */
const FRUIT_OPTIONS = ['method', 'pxPerCm', 'referenceMm'] as const;

/**
 * Every fruit of the photo measured on its own (options.perFruit): the bruise plugin runs on the
 * photo and returns its fruit as `fruit-labels`; each fruit gets its bruise figures (the bruise
 * per-fruit table's row) and its feature values at full resolution.
 */
async function perFruit(image: RasterImage, options: FeaturesOptions, ctx: PluginContext) {
  const { method, pxPerCm, referenceMm } = options;
  const b = await runPlugin(
    bruise,
    image,
    { ...(method ? { method } : {}), ...(pxPerCm ? { pxPerCm } : {}), ...(referenceMm ? { referenceMm } : {}) },
    { ...ctx, want: ['fruit-labels'], progress: (f) => ctx.progress(0.5 + 0.1 * f, 'finding the fruit') },
  );
  const labels = b.images['fruit-labels'];
  if (labels?.kind !== 'mask') throw new Error('the bruise plugin returned no fruit-labels');
  const measured = fruitFeatures(image, labels.mask.data, b.fruits.length, options.features, {
    pxPerCm: b.px_per_cm,
    onFruit: (done, count) => ctx.progress(0.6 + (0.4 * done) / count, `fruit ${done} of ${count}`),
    checkAbort: () => throwIfAborted(ctx.signal),
  });
  const fruits: FruitFeatures[] = measured.map((m) => ({
    ...b.fruits[m.fruit - 1],
    fruit: m.fruit,
    features: m.features as Record<string, Record<string, number>>,
    ...(m.scaled ? { scaled: m.scaled } : {}),
  }));
  const fruitMasks = {
    method: b.method,
    model_id: b.model_id ?? null,
    model_sha256: b.model_sha256 ?? null,
    version: b.version,
    width: b.width,
    height: b.height,
    px_per_cm: b.px_per_cm ?? null,
    scale_source: b.scale_source ?? null,
  };
  return { fruits, fruit_masks: fruitMasks };
}

/** Target size when the long side exceeds maxSide (aspect kept, at least 1 px), else null. */
export function downscaledSize(width: number, height: number, maxSide: number) {
  return Math.max(width, height) <= maxSide ? null : fitSize(width, height, maxSide);
}

export default definePlugin({
  id: 'features',
  title: 'Feature Analysis',
  description:
    'Colour, texture, shape and algebraic features of the foreground (13 groups), matching scikit-image 0.19.',
  kind: 'analysis',
  version: '1.0.0',
  runtimes: ['node', 'browser'],
  runs: featuresRuns,
  options: FeaturesOptions,
  result: FeaturesResult,
  async run(image: RasterImage, options, ctx) {
    const stray = FRUIT_OPTIONS.filter((k) => options[k] !== undefined);
    if (!options.perFruit && stray.length)
      throw new MangoError('INVALID_INPUT', `${stray.join(', ')}: only with perFruit (per_fruit, --per-fruit)`);
    const whole = options.perFruit ? 0.5 : 1;
    let input = image;
    const size = downscaledSize(image.width, image.height, options.maxSide);
    if (size) {
      ctx.progress(0, 'downscaling');
      input = await ctx.images.resize(image, size.width, size.height);
    }
    throwIfAborted(ctx.signal);
    const features = computeFeatures(input, options.features, {
      onProgress: (fraction, id) => ctx.progress(fraction * whole, id),
      checkAbort: () => throwIfAborted(ctx.signal),
    });
    return {
      features: features as Record<string, Record<string, number>>,
      downscaled: size !== null,
      ...(options.perFruit ? await perFruit(image, options, ctx) : {}),
    };
  },
});
