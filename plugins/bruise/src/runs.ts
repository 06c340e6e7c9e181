/**
 * How bruise runs are stored (core/src/runs.ts): the plugin's options plus `grades` (a preset id or
 * a rules object), applied to each fruit after the analysis; a stored run keeps a thumbnail of the
 * photo and of its overlay; its summary is the mean and the largest bruise % of the scored photos.
 */
import { defineRuns } from '@mango/core';
import { type ResultsFile } from '@mango/core/results';
import { BRUISE_FILE_SUFFIXES, BruiseOptions } from './schema.ts';
import { correctedOverlay, correctedResult } from './corrected.ts';
import { GradesOption, gradeRulesOf } from './grade-option.ts';
import { bruiseAnnotations } from './annotations.ts';
import { BRUISE_TABLE_COLUMNS, fruitTableCsv, imageTableCsv } from './tables.ts';
import { reportWithPlots } from './report.ts';
import { BRUISE_PLOTS } from './plots.ts';
import { bruiseGrading, gradeResult, type FruitWeights } from './grades/index.ts';
import { BruiseFigures, isBruiseFigures } from './results.ts';

/** The options of a bruise run: the plugin's, strict, and the grades. */
export const BruiseRunOptions = BruiseOptions.extend({ grades: GradesOption.optional() }).strict();

/** The results that are bruise figures (a failed photo's item holds its error instead). */
const scored = (results: readonly Record<string, unknown>[]) =>
  results.filter((r) => isBruiseFigures(r as never)) as unknown as Parameters<typeof fruitTableCsv>[0];

const text = (v: unknown) => (typeof v === 'string' ? v : null);

/** Every result as a row of the per-image table: a failed photo is a row with its error. */
const imageRows = (results: readonly Record<string, unknown>[]) =>
  results.map((r) =>
    isBruiseFigures(r as never) ? r : { filename: text(r.filename) ?? '', error: text(r.error) ?? 'not scored' },
  ) as unknown as Parameters<typeof imageTableCsv>[0];

export const bruiseRuns = defineRuns({
  operation: 'bruise',
  title: 'Bruised Area Calculation',
  options: BruiseRunOptions,
  steps: ({ grades: _grades, ...options }) => [{ plugin: 'bruise', options }],
  // The CLI's --weights file (context.weights) sizes the fruit it lists; others are sized from their area.
  finish: (result, { grades }, context) =>
    grades
      ? gradeResult(
          result as Parameters<typeof gradeResult>[0],
          gradeRulesOf(grades),
          context?.weights as FruitWeights | undefined,
        )
      : result,
  method: (options) => options.method,
  ranWith: (r) => ({
    method: text(r.method),
    version: text(r.version),
    model_id: text(r.model_id),
    model_sha256: text(r.model_sha256),
  }),
  // a stored photo's figures: the HTTP item of /api-py/python/bruise without its overlay
  result: BruiseFigures,
  nameKey: 'filename',
  photoThumbnail: true,
  overlay: 'overlay',
  // A complete export: the overlay at the photo's size and the two masks, named as `mango bruise` names them.
  fullExport: [
    { image: 'overlay-full', folder: 'overlays', suffix: BRUISE_FILE_SUFFIXES.overlay },
    { image: 'fruit-mask', folder: 'masks', suffix: BRUISE_FILE_SUFFIXES.fruitMask },
    { image: 'bruise-mask', folder: 'masks', suffix: BRUISE_FILE_SUFFIXES.bruiseMask },
  ],
  // The mask editor: the figures of corrected masks (counted as the plugin counts), the model's beside them.
  correct: (result, masks, photo) =>
    correctedResult(result as unknown as Parameters<typeof correctedResult>[0], masks, photo, photo),
  // A corrected photo's overlay: its truth drawn as the model's overlay, with the same ring and card outline.
  correctedOverlay: (result, masks, photo, options, maxSide) =>
    correctedOverlay(result, masks, photo, options, maxSide),
  truthImages: {
    fruit: 'fruit-mask',
    bruise: 'bruise-mask',
    probability: 'bruise-probability',
    overlay: 'overlay-full',
  },
  // Truth as data: COCO out; COCO, CVAT and Label Studio in.
  annotations: bruiseAnnotations,
  summary: (results) => {
    const percents = results.map((r) => r.bruise_percent).filter((v): v is number => typeof v === 'number');
    return {
      n: percents.length,
      mean_bruise_percent: percents.length ? percents.reduce((a, v) => a + v, 0) / percents.length : null,
      max_bruise_percent: percents.length ? Math.max(...percents) : null,
    };
  },
  tables: {
    // A stored run's tables carry the audit columns of corrections (`corrected`, `model_*`).
    fruits: (results) => fruitTableCsv(scored(results), undefined, { corrections: true }),
    images: (results) => imageTableCsv(imageRows(results), undefined, { corrections: true }),
  },
  columns: BRUISE_TABLE_COLUMNS,
  grading: bruiseGrading,
  plots: BRUISE_PLOTS,
  report: (file, options) => reportWithPlots(file as ResultsFile, options),
});
