/** Options and result of the features plugin (every front end builds its forms and calls from these). */
import { BruiseOptions } from '@mango/plugin-bruise/schema';
import { z } from 'zod';
import { FeatureResultItem } from './results.ts';
import { FeatureId } from './names.ts';

export const DEFAULT_MAX_SIDE = 1024;

export const FeaturesOptions = z.object({
  /** feature groups to compute (ids of product-spec.md section 3) */
  features: z.array(FeatureId).min(1),
  /** images whose long side exceeds this are downscaled first (the result then says downscaled: true) */
  maxSide: z.number().int().min(16).max(16384).default(DEFAULT_MAX_SIDE),
  /**
   * Also measure every fruit on its own at full resolution (result `fruits`): the fruit are the bruise
   * plugin's (its `fruit-labels`), numbered as in its per-fruit table. The image's own values stay as they are.
   */
  perFruit: z
    .boolean()
    .optional()
    .describe(
      "also measure each fruit on its own, at full resolution (the bruise plugin's fruit, numbered as in its per-fruit table)",
    ),
  // The bruise options that find the fruit and the scale (perFruit only): the bruise schema's own fields.
  method: BruiseOptions.shape.method
    .unwrap()
    .optional()
    .describe('perFruit: how the bruise plugin finds the fruit (auto, classical or model; default auto)'),
  pxPerCm: BruiseOptions.shape.pxPerCm.describe(
    'perFruit: pixels per centimetre, to give lengths in cm and areas in cm² per fruit',
  ),
  referenceMm: BruiseOptions.shape.referenceMm.describe(
    'perFruit: diameter in mm of a round reference object in the photo, which sets the scale',
  ),
});
export type FeaturesOptions = z.output<typeof FeaturesOptions>;

export const FeaturesResult = z.object({
  /** feature id -> value name -> value */
  features: z.record(z.string(), z.record(z.string(), z.number())),
  downscaled: z.boolean(),
  fruits: FeatureResultItem.shape.fruits,
  fruit_masks: FeatureResultItem.shape.fruit_masks,
});
export type FeaturesResult = z.output<typeof FeaturesResult>;
