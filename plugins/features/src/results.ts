/**
 * The features plugin's results as the HTTP API answers them (product-spec.md section 7,
 * `/api-py/python/analyze`): a photo's feature values and, asked per fruit, each fruit's. Field
 * names are contracts: keep them exactly. The plugin owns them (issue 24): core knows a result only
 * by the schema a plugin declares with its runs (`result`). Browser-safe: no Node imports.
 */
import { z } from 'zod';
import { PhotoMeta } from '@mango/core';
import { BruiseFruit } from '@mango/plugin-bruise/results';

/**
 * One fruit of a feature analysis asked per fruit (`per_fruit`): the bruise plugin's fruit (its
 * `fruit-labels`; `fruit` numbers them as the bruise per-fruit table does, with that fruit's bruise
 * figures), its feature values on its own crop (`bbox`) and mask at full resolution, and the lengths
 * and areas in cm / cm² when the photo has a scale.
 */
export const FruitFeatures = BruiseFruit.extend({
  fruit: z.number().int(),
  features: z.record(z.string(), z.record(z.string(), z.number())),
  /** area_cm2, perimeter_cm, ... of the feature values in pixels, when the photo has a scale */
  scaled: z.record(z.string(), z.number()).optional(),
});
export type FruitFeatures = z.infer<typeof FruitFeatures>;

/** Where the fruit of a per-fruit feature analysis came from: the bruise plugin's run on the photo. */
export const FruitMasksSource = z.object({
  method: z.enum(['classical', 'model']),
  model_id: z.string().nullable(),
  model_sha256: z.string().nullable(),
  version: z.string(),
  width: z.number().int(),
  height: z.number().int(),
  px_per_cm: z.number().nullable(),
  scale_source: z.string().nullable(),
});

/** Feature analysis result item: { image_name, features: { id: { value_name: number } } } or error. */
export const FeatureResultItem = z.object({
  image_name: z.string(),
  features: z.record(z.string(), z.record(z.string(), z.number())).optional(),
  error: z.string().optional(),
  /** with `error`: the error's code (EMPTY_FILE, UNSUPPORTED_IMAGE, CORRUPT_IMAGE, ...; INTERNAL for a failure of the server's) */
  code: z.string().optional(),
  downscaled: z.boolean().optional(),
  /** the photo's experiment metadata (fields meta / meta_csv), when they were given */
  meta: PhotoMeta.optional(),
  /** why the photo's metadata are empty (its name did not match the pattern, the CSV has no row for it) */
  warnings: z.array(z.string()).optional(),
  /** with `per_fruit`: one entry per fruit, in the bruise per-fruit table's order */
  fruits: z.array(FruitFeatures).optional(),
  /** with `per_fruit`: what found the fruit and the scale */
  fruit_masks: FruitMasksSource.optional(),
  /** the stored run of the call (GET /api-node/runs/{id}); null when it is not stored */
  run_id: z.string().nullable().optional(),
});
export type FeatureResultItem = z.infer<typeof FeatureResultItem>;
