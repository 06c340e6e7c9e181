import { definePlugin, MangoError, throwIfAborted } from '@mango/core';
import { removeBackgroundOptions, removeBackgroundResult } from './schema.ts';
import { removeBackground } from './cutout.ts';
import { removeBackgroundRuns } from './runs.ts';

export { removeBackgroundOptions, removeBackgroundResult } from './schema.ts';
export type { RemoveBackgroundOptions, RemoveBackgroundResult } from './schema.ts';
export { applyAlpha, removeBackground, evaluateFruitIoU, evaluateImage } from './cutout.ts';
export type { CutOut, IoUReport } from './cutout.ts';

export default definePlugin({
  id: 'remove-background',
  title: 'Remove Background',
  description:
    'Finds the fruit on a plain background (any colour, shadows tolerated) and makes everything else transparent, with a tight soft edge.',
  kind: 'transform',
  version: '1.0.0',
  options: removeBackgroundOptions,
  result: removeBackgroundResult,
  runtimes: ['node', 'browser'],
  runs: removeBackgroundRuns,
  async run(image, options, ctx) {
    throwIfAborted(ctx.signal);
    ctx.progress(0, 'segmenting the fruit');
    const cut = removeBackground(
      image,
      { feather: options.feather, minFruitFraction: options.minFruitFraction, workSize: options.workSize },
      ctx.ownsImage === true,
    );
    if (cut.segmentation.count === 0) {
      throw new MangoError(
        'NO_FOREGROUND',
        'no fruit found: the picture shows no object that stands out of its background',
      );
    }
    ctx.progress(1);
    ctx.logger.debug('remove-background', { fruits: cut.segmentation.count, fruit_pixels: cut.fruitPixels });
    return { image: cut.image, fruits: cut.segmentation.count, fruit_pixels: cut.fruitPixels };
  },
});
