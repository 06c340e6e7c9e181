import { definePlugin, invalidInput, throwIfAborted } from '@mango/core';
import { cropOptions, cropResult } from './schema.ts';
import { cropRect, normalizeDegrees, rotateAndCrop, rotation } from './rotate.ts';

export { cropOptions, cropResult } from './schema.ts';
export type { CropOptions } from './schema.ts';
export { rotation, normalizeDegrees, rotateAndCrop, cropRect } from './rotate.ts';
export type { Rotation } from './rotate.ts';

export default definePlugin({
  id: 'crop',
  title: 'Crop',
  description:
    'Rotates an image about its centre (canvas grown to hold it, bilinear, transparent outside) and cuts out a rectangle.',
  kind: 'transform',
  version: '1.0.0',
  options: cropOptions,
  result: cropResult,
  runtimes: ['node', 'browser'],
  async run(image, options, ctx) {
    const rot = rotation(image.width, image.height, options.rotate);
    const { x, y, width, height } = options;
    if (x + width > rot.width || y + height > rot.height) {
      const turned = normalizeDegrees(options.rotate) === 0 ? '' : ` after rotating by ${options.rotate} degrees`;
      throw invalidInput(
        `the crop rectangle (x ${x}, y ${y}, ${width}x${height}) leaves the image, which is ${rot.width}x${rot.height}${turned}`,
      );
    }
    throwIfAborted(ctx.signal);
    ctx.progress(0, 'cropping');
    const out = rot.cos === 1 ? cropRect(image, x, y, width, height) : rotateAndCrop(image, rot, x, y, width, height);
    ctx.progress(1);
    return { image: out, width: out.width, height: out.height };
  },
});
