/** Options and result of the features plugin (every front end builds its forms and calls from these). */
import { FeatureId } from '@mango/core';
import { z } from 'zod';

export const DEFAULT_MAX_SIDE = 1024;

export const FeaturesOptions = z.object({
  /** feature groups to compute (ids of product-spec.md section 3) */
  features: z.array(FeatureId).min(1),
  /** images whose long side exceeds this are downscaled first (the result then says downscaled: true) */
  maxSide: z.number().int().min(16).max(16384).default(DEFAULT_MAX_SIDE),
});
export type FeaturesOptions = z.output<typeof FeaturesOptions>;

export const FeaturesResult = z.object({
  /** feature id -> value name -> value */
  features: z.record(z.string(), z.record(z.string(), z.number())),
  downscaled: z.boolean(),
});
export type FeaturesResult = z.output<typeof FeaturesResult>;
