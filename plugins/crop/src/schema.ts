import { z } from 'zod';
import type { RasterImage } from '@mango/core';

export const cropOptions = z.object({
  x: z.number().int().min(0).describe('left edge of the rectangle, in pixels of the rotated image'),
  y: z.number().int().min(0).describe('top edge of the rectangle, in pixels of the rotated image'),
  width: z.number().int().min(1).describe('rectangle width in pixels'),
  height: z.number().int().min(1).describe('rectangle height in pixels'),
  rotate: z
    .number()
    .finite()
    .default(0)
    .describe('clockwise rotation in degrees about the image centre, applied before cropping'),
});
export type CropOptions = z.output<typeof cropOptions>;

export const cropResult = z.object({
  image: z.custom<RasterImage>((v) => typeof v === 'object' && v !== null && 'data' in v),
  width: z.number().int(),
  height: z.number().int(),
});
