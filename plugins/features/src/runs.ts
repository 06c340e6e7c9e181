/**
 * How feature analyses are stored (core/src/runs.ts), under the name /api-py/python/analyze gave
 * them (`analyze`; a batch job asks for `features`): the plugin's options plus `isolate`, which
 * removes the background first. An analysis per fruit (`perFruit`, what `mango measure` runs) is
 * one of these runs too: its `fruits` table joins each fruit's bruise figures and feature values,
 * and what found the fruit (method, model) is what ran.
 */
import { z } from 'zod';
import { defineRuns } from '@mango/core';
import { FeaturesOptions } from './schema.ts';
import { FEATURE_VALUE_NAMES } from './names.ts';
import { featureTableCsv, measureTableCsv } from './tables.ts';
import { FeatureResultItem } from './results.ts';

export const FeaturesRunOptions = FeaturesOptions.extend({
  isolate: z.boolean().optional().describe('remove the background first (the remove-background plugin)'),
}).strict();

export const featuresRuns = defineRuns({
  operation: 'analyze',
  title: 'Feature Analysis',
  jobOperation: 'features',
  options: FeaturesRunOptions,
  steps: ({ isolate, ...options }) => [
    ...(isolate ? [{ plugin: 'remove-background' }] : []),
    { plugin: 'features', options },
  ],
  ranWith: (r) => {
    const masks = (r as FeatureResultItem).fruit_masks;
    return {
      version: typeof r.version === 'string' ? r.version : null,
      ...(masks ? { method: masks.method, model_id: masks.model_id, model_sha256: masks.model_sha256 } : {}),
    };
  },
  // a stored photo's figures: the HTTP item of /api-py/python/analyze
  result: FeatureResultItem,
  nameKey: 'image_name',
  photoThumbnail: false,
  summary: (results, failed) => ({ n: results.length + failed }),
  tables: {
    features: (results) => featureTableCsv(results as unknown as FeatureResultItem[]),
    fruits: (results) => measureTableCsv(results as unknown as FeatureResultItem[]),
  },
  columns: ['Image', ...Object.values(FEATURE_VALUE_NAMES).flat()],
});
