/**
 * How feature analyses are stored (core/src/runs.ts), under the name /api-py/python/analyze gave
 * them (`analyze`; a batch job asks for `features`): the plugin's options plus `isolate`, which
 * removes the background first.
 */
import { z } from 'zod';
import { defineRuns, type FeatureResultItem } from '@mango/core';
import { featureTableCsv } from '@mango/core/results';
import { FeaturesOptions } from './schema.ts';
import { FEATURE_VALUE_NAMES } from './names.ts';

export const FeaturesRunOptions = FeaturesOptions.extend({
  isolate: z.boolean().optional().describe('remove the background first (the remove-background plugin)'),
}).strict();

export const featuresRuns = defineRuns({
  operation: 'analyze',
  jobOperation: 'features',
  options: FeaturesRunOptions,
  steps: ({ isolate, ...options }) => [
    ...(isolate ? [{ plugin: 'remove-background' }] : []),
    { plugin: 'features', options },
  ],
  ranWith: (r) => ({ version: typeof r.version === 'string' ? r.version : null }),
  nameKey: 'image_name',
  photoThumbnail: false,
  summary: (results, failed) => ({ n: results.length + failed }),
  tables: { features: (results) => featureTableCsv(results as unknown as FeatureResultItem[]) },
  columns: ['Image', ...Object.values(FEATURE_VALUE_NAMES).flat()],
});
