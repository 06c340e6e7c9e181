import { definePlugin } from '@mango/core';
import { resizeOptions, resizeResult } from './schema.ts';
import { targetSize } from './dimensions.ts';

export { resizeOptions, resizeResult, MAX_SIDE } from './schema.ts';
export type { ResizeOptions } from './schema.ts';
export { targetSize, heightForWidth, widthForHeight } from './dimensions.ts';

export default definePlugin({
  id: 'resize',
  title: 'Resize',
  description: 'Resamples an image to a new width and height (Lanczos in Node, high-quality canvas in the browser).',
  kind: 'transform',
  version: '1.0.0',
  options: resizeOptions,
  result: resizeResult,
  runtimes: ['node', 'browser'],
  async run(image, options, ctx) {
    const size = targetSize(image.width, image.height, options);
    ctx.progress(0, 'resizing');
    const out =
      size.width === image.width && size.height === image.height
        ? image
        : await ctx.images.resize(image, size.width, size.height);
    ctx.progress(1);
    return { image: out, width: out.width, height: out.height };
  },
});
