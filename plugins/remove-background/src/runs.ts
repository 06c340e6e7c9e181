/**
 * How background removals are stored (core/src/runs.ts): per photo the fruit found and their
 * pixels, with a thumbnail of the cut-out (on white).
 */
import { defineRuns } from '@mango/core';
import { csvTable, type CsvColumn } from '@mango/core/csv';

const CUTOUT_COLUMNS: CsvColumn<Record<string, unknown>>[] = [
  ['image', (r) => String(r.filename)],
  ['fruits', (r) => r.fruits as number | undefined],
  ['fruit_pixels', (r) => r.fruit_pixels as number | undefined],
  ['error', (r) => r.error as string | undefined],
];
import { removeBackgroundOptions } from './schema.ts';

export const RemoveBackgroundRunOptions = removeBackgroundOptions.strict();

export const removeBackgroundRuns = defineRuns({
  operation: 'remove-background',
  title: 'Remove Background',
  options: RemoveBackgroundRunOptions,
  steps: (options) => [{ plugin: 'remove-background', options }],
  ranWith: () => ({}),
  nameKey: 'filename',
  photoThumbnail: false,
  overlay: 'output',
  summary: (results, failed) => {
    const fruits = results.map((r) => r.fruits).filter((v): v is number => typeof v === 'number');
    return { n: results.length + failed, fruits: fruits.reduce((a, v) => a + v, 0) };
  },
  tables: { cutouts: (results) => csvTable(CUTOUT_COLUMNS, results) },
});
