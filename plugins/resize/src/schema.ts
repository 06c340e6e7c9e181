import { z } from 'zod';
import type { RasterImage } from '@mango/core';

/** Largest output side accepted (keeps a mistyped 100000 from allocating gigabytes). */
export const MAX_SIDE = 20000;

export const resizeOptions = z
  .object({
    width: z.number().int().min(1).max(MAX_SIDE).optional().describe('output width in pixels'),
    height: z.number().int().min(1).max(MAX_SIDE).optional().describe('output height in pixels'),
    keepAspect: z
      .boolean()
      .default(false)
      .describe(
        "keep each image's own aspect ratio: the missing dimension follows from it; with both given, the image is fitted within width x height",
      ),
    quality: z.number().int().min(1).max(100).default(92).describe('JPEG quality of the exported file'),
  })
  .refine((o) => o.width !== undefined || o.height !== undefined, { message: 'Please enter both width and height!' })
  .refine((o) => o.keepAspect || (o.width !== undefined && o.height !== undefined), {
    message: 'Please enter both width and height!',
  });
export type ResizeOptions = z.output<typeof resizeOptions>;

export const resizeResult = z.object({
  image: z.custom<RasterImage>((v) => typeof v === 'object' && v !== null && 'data' in v),
  width: z.number().int(),
  height: z.number().int(),
});
