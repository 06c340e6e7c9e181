import { z } from 'zod';
import type { RasterImage } from '@mango/core';

export const removeBackgroundOptions = z.object({
  feather: z
    .number()
    .int()
    .min(0)
    .max(4)
    .default(1)
    .describe('soft edge radius in pixels (0 = hard edge; 1 gives a tight 2 px ramp)'),
  minFruitFraction: z
    .number()
    .min(0)
    .max(0.5)
    .default(0.002)
    .describe('regions smaller than this fraction of the image are dropped as specks'),
  workSize: z
    .number()
    .int()
    .min(128)
    .max(2048)
    .default(320)
    .describe('long side of the working copy in pixels; the outline is refined at full resolution'),
});
export type RemoveBackgroundOptions = z.output<typeof removeBackgroundOptions>;

export const removeBackgroundResult = z.object({
  image: z.custom<RasterImage>((v) => typeof v === 'object' && v !== null && 'data' in v),
  fruits: z.number().int().min(0).describe('number of fruits found'),
  fruit_pixels: z.number().int().min(0).describe('pixels inside the fruit mask (holes filled)'),
});
export type RemoveBackgroundResult = z.output<typeof removeBackgroundResult>;
