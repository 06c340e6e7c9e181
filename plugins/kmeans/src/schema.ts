import { z } from 'zod';

/** product-spec.md section 9. */
export const KMEANS_ITERATIONS = 10;
/** Labels are stored one byte per pixel. */
export const MAX_CLASSES = 255;

export const rgbColor = z
  .tuple([z.number().int().min(0).max(255), z.number().int().min(0).max(255), z.number().int().min(0).max(255)])
  .describe('[r, g, b], 0-255');
export type RgbColor = z.output<typeof rgbColor>;

/** A sample rectangle in image pixels; x and y are rounded down and the rectangle is clipped to the image. */
export const kmeansRegion = z.object({
  x: z.number().finite(),
  y: z.number().finite(),
  width: z.number().finite().positive(),
  height: z.number().finite().positive(),
});
export type KMeansRegion = z.output<typeof kmeansRegion>;

export const kmeansClass = z.object({
  name: z.string().trim().min(1, 'a class needs a name'),
  color: rgbColor,
  regions: z.array(kmeansRegion).describe('rectangles whose pixels are the samples of this class'),
});
export type KMeansClass = z.output<typeof kmeansClass>;

/**
 * The classes file shared by the web page (export/import) and the CLI (--classes):
 * {"classes": [{"name": "healthy", "color": [255, 0, 0], "regions": [{"x": 10, "y": 20, "width": 30, "height": 40}]}]}
 */
export const kmeansClassesFile = z.object({
  classes: z.array(kmeansClass).min(1, 'add at least one class').max(MAX_CLASSES),
});
export type KMeansClassesFile = z.output<typeof kmeansClassesFile>;

export const kmeansOptions = kmeansClassesFile.extend({
  labels: z.boolean().default(true).describe('also return the class index of every pixel (for recolouring)'),
});
export type KMeansOptions = z.output<typeof kmeansOptions>;

/** One row of the 'Class Area %' table; percent is a string with 2 decimals. */
export const kmeansClassArea = z.object({
  name: z.string(),
  color: rgbColor,
  percent: z.string().regex(/^\d+\.\d\d$/),
});
export type KMeansClassArea = z.output<typeof kmeansClassArea>;

/** The result file: [{"name": "healthy", "color": [255, 0, 0], "percent": "61.25"}]. */
export const kmeansResultFile = z.array(kmeansClassArea);

export const kmeansResult = z.object({
  classes: kmeansResultFile,
  labels: z
    .custom<Uint8Array>((v) => v instanceof Uint8Array)
    .optional()
    .describe('class index per pixel, row-major'),
});
export type KMeansResult = z.output<typeof kmeansResult>;
