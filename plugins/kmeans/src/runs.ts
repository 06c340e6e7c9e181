/**
 * How K-Means runs are stored (core/src/runs.ts): the classes and the area percent of each, per
 * photo, with a thumbnail of the photo. The per-pixel labels are never stored (`labels` is off).
 */
import { defineRuns } from '@mango/core';
import { csvTable, type CsvColumn } from '@mango/core/csv';
import { kmeansOptions, type KMeansClassArea } from './schema.ts';

interface ClassRow {
  image: string;
  error?: string;
  area?: KMeansClassArea;
}

/** The classes table: one row per photo and class (a failed photo: one row with its error). */
const CLASS_COLUMNS: CsvColumn<ClassRow>[] = [
  ['image', (r) => r.image],
  ['class', (r) => r.area?.name],
  ['red', (r) => r.area?.color[0]],
  ['green', (r) => r.area?.color[1]],
  ['blue', (r) => r.area?.color[2]],
  ['percent', (r) => r.area?.percent],
  ['error', (r) => r.error],
];

const classRows = (results: readonly Record<string, unknown>[]): ClassRow[] =>
  results.flatMap((r): ClassRow[] => {
    const image = String(r.filename);
    if (typeof r.error === 'string') return [{ image, error: r.error }];
    return (r.classes as KMeansClassArea[]).map((area) => ({ image, area }));
  });

export const KMeansRunOptions = kmeansOptions.strict();

export const kmeansRuns = defineRuns({
  operation: 'kmeans',
  title: 'K-Means Clustering',
  options: KMeansRunOptions,
  steps: (options) => [{ plugin: 'kmeans', options: { ...options, labels: false } }],
  ranWith: () => ({}),
  nameKey: 'filename',
  photoThumbnail: true,
  summary: (results, failed) => ({
    n: results.length + failed,
    classes: results[0] ? (results[0].classes as unknown[]).length : null,
  }),
  tables: { classes: (results) => csvTable(CLASS_COLUMNS, classRows(results)) },
});
