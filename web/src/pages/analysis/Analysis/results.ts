/**
 * The features plugin's results as this page reads them (the generic run and job client, lib/runs.ts
 * and lib/jobs.ts, knows no plugin): the items of a batch job's stored run, and the photos of an
 * answer that hold an error instead of features.
 */
import { type FeatureResultItem } from '@mango/plugin-features/results';
import type { PhotoFailure } from '#web/lib/failures.ts';
import type { StoredRun } from '#web/lib/runs.ts';

/** The feature analysis items of a job's run (photos that failed are left out). */
export function featureItemsOf(run: StoredRun): FeatureResultItem[] {
  return run.items.flatMap((i) =>
    'features' in i.result ? [{ ...(i.result as FeatureResultItem), run_id: run.id }] : [],
  );
}

/** The feature-analysis items that hold an error instead of features. */
export function featureFailures(items: readonly FeatureResultItem[]): PhotoFailure[] {
  return items.flatMap((i) =>
    typeof i.error === 'string'
      ? [{ filename: i.image_name, error: i.error, ...(i.code ? { code: i.code } : {}) }]
      : [],
  );
}
