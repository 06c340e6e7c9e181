import { definePlugin, fitSize, throwIfAborted, type RasterImage } from '@mango/core';
import { computeFeatures } from './computeFeatures.ts';
import { FeaturesOptions, FeaturesResult } from './schema.ts';
import { featuresRuns } from './runs.ts';

export { computeFeatures, foregroundMask, algebraicFeatures, type FeatureValues } from './computeFeatures.ts';
export { FEATURE_VALUE_NAMES, FEATURE_DESCRIPTIONS } from './names.ts';
export { FeaturesOptions, FeaturesResult, DEFAULT_MAX_SIDE } from './schema.ts';

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
    let input = image;
    const size = downscaledSize(image.width, image.height, options.maxSide);
    if (size) {
      ctx.progress(0, 'downscaling');
      input = await ctx.images.resize(image, size.width, size.height);
    }
    throwIfAborted(ctx.signal);
    const features = computeFeatures(input, options.features, {
      onProgress: (fraction, id) => ctx.progress(fraction, id),
      checkAbort: () => throwIfAborted(ctx.signal),
    });
    return { features: features as Record<string, Record<string, number>>, downscaled: size !== null };
  },
});
