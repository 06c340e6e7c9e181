/**
 * The bruise plugin's tables (issue 24: a plugin owns its results; core keeps the CSV writer and the
 * metadata columns): the per-fruit and per-image tables of the CLI (`mango bruise --fruits`, `--out`)
 * and of a stored run's export (with the audit columns of corrections), and the web's data.csv.
 * Browser-safe: no Node imports.
 */
import { csvTable, blank, type CsvColumn, type CsvLayout } from '@mango/core/csv';
import { type PhotoMeta } from '@mango/core';
import { formatPercent, withMetaColumns, type ResultsFile } from '@mango/core/results';
import { isBruiseFigures, type BruiseFigures } from './results.ts';

/** The bruise figures of a results file's photos, in order (feature items are left out). */
export function bruiseFiguresOf(file: Pick<ResultsFile, 'photos'>): BruiseFigures[] {
  return file.photos.map((p) => p.result).filter(isBruiseFigures);
}

/** colour_difference, or its deprecated alias on items stored before it existed. */
const colourOf = (r: Pick<BruiseFigures, 'colour_difference' | 'severity'>) =>
  blank(r.colour_difference === undefined ? r.severity : r.colour_difference);

/**
 * Whether a photo's figures have a scale (`scale_status`); an item stored before the field existed
 * gets it from what it holds: a scale typed or measured, a reference asked for and not found, none.
 */
export function scaleStatusOf(r: Pick<BruiseFigures, 'scale_status' | 'scale_source' | 'px_per_cm' | 'reference'>) {
  if (r.scale_status) return r.scale_status;
  if (r.scale_source === 'given') return 'given';
  if (r.px_per_cm !== undefined) return 'found';
  return r.reference === null ? 'not-found' : 'none';
}

/** A row of the per-fruit table: the photo's figures and one of its fruit (1-based index). */
export interface FruitRow {
  image: BruiseFigures;
  index: number;
  fruit: BruiseFigures['fruits'][number];
}

/** The per-fruit table: one row per fruit. */
export const FRUIT_COLUMNS: CsvColumn<FruitRow>[] = [
  ['image', (r) => r.image.filename],
  ['fruit', (r) => r.index],
  ['bbox_x', (r) => r.fruit.bbox.x],
  ['bbox_y', (r) => r.fruit.bbox.y],
  ['bbox_w', (r) => r.fruit.bbox.width],
  ['bbox_h', (r) => r.fruit.bbox.height],
  ['fruit_pixels', (r) => r.fruit.pixels],
  ['bruise_pixels', (r) => r.fruit.bruise_pixels],
  ['bruise_percent', (r) => r.fruit.bruise_percent],
  ['lesion_count', (r) => r.fruit.lesion_count],
  ['fruit_area_cm2', (r) => blank(r.fruit.area_cm2)],
  ['bruise_area_cm2', (r) => blank(r.fruit.bruise_area_cm2)],
  ['colour_difference', (r) => blank(r.fruit.colour_difference)],
  ['grade', (r) => blank(r.fruit.grade)],
  ['size_group', (r) => blank(r.fruit.size_group)],
  ['weight_g', (r) => blank(r.fruit.weight_g)],
  ['size_source', (r) => blank(r.fruit.size_source)],
  ['scale_status', (r) => scaleStatusOf(r.image)],
];

const lesionTotal = (r: BruiseFigures) => r.fruits.reduce((a, f) => a + f.lesion_count, 0);
/** The ids of the photo-quality flags a photo raised, joined by ';' (empty: none, or not checked). */
export const qualityCell = (r: Pick<BruiseFigures, 'quality'>) => (r.quality?.flags ?? []).map((f) => f.id).join(';');

/** A photo that could not be scored: its name and the reason (a stored run's failed item, a CLI failure). */
export interface FailedPhoto {
  filename: string;
  error: string;
  /** the photo's experiment metadata, as a scored photo's */
  meta?: PhotoMeta;
}

/** A row of the per-image table: a scored photo's figures, or a failed photo. */
export type ImageRow = BruiseFigures | FailedPhoto;

const isFailedPhoto = (r: ImageRow): r is FailedPhoto => !('total_mango_pixels' in r);

/** A column of a scored photo's figures: blank on a failed photo's row. */
const scored = ([header, cell]: CsvColumn<BruiseFigures>): CsvColumn<ImageRow> => [
  header,
  (r) => (isFailedPhoto(r) ? '' : cell(r)),
];

/**
 * The per-image table, the one per-photo layout of the CLI (`mango bruise --out results.csv`, or on
 * stdout) and the server (a stored run's `table=images`): one row per photo, a photo that could not
 * be scored included with its `error` (its figures blank). The web's data.csv is the only other one.
 */
export const IMAGE_COLUMNS: CsvColumn<ImageRow>[] = [
  ['image', (r) => r.filename],
  ...(
    [
      ['fruit_count', (r) => r.fruits.length],
      ['fruit_pixels', (r) => r.total_mango_pixels],
      ['bruise_pixels', (r) => r.bruise_pixels],
      ['bruise_percent', (r) => r.bruise_percent],
      ['non_bruise_percent', (r) => r.non_bruise_percent],
      ['lesion_count', lesionTotal],
      ['colour_difference', colourOf],
      ['method', (r) => r.method],
      ['model_id', (r) => blank(r.model_id)],
      ['px_per_cm', (r) => blank(r.px_per_cm)],
      ['fruit_area_cm2', (r) => blank(r.fruit_area_cm2)],
      ['bruise_area_cm2', (r) => blank(r.bruise_area_cm2)],
      ['scale_status', scaleStatusOf],
      ['scale_source', (r) => blank(r.scale_source)],
      ['quality', qualityCell],
    ] satisfies CsvColumn<BruiseFigures>[]
  ).map(scored),
  ['error', (r) => (isFailedPhoto(r) ? r.error : '')],
];

/** The figures data.csv reads (a row restored from the web's local storage has no more). */
export type DataCsvRow = Pick<
  BruiseFigures,
  'filename' | 'total_mango_pixels' | 'bruise_percent' | 'non_bruise_percent'
>;

/** data.csv of area_calculation_results.zip (product-spec.md section 9): exactly these four columns. */
export const DATA_CSV_COLUMNS: CsvColumn<DataCsvRow>[] = [
  ['Filename', (r) => r.filename],
  ['Total Mango Pixels', (r) => r.total_mango_pixels],
  ['Bruise Percentage', (r) => formatPercent(r.bruise_percent)],
  ['Non-Bruise Percentage', (r) => formatPercent(r.non_bruise_percent)],
];

export function fruitRows(items: readonly BruiseFigures[]): FruitRow[] {
  return items.flatMap((image) => image.fruits.map((fruit, i) => ({ image, index: i + 1, fruit })));
}

/**
 * The audit columns of a stored run's tables (issue 28): `corrected` says whether a person's
 * corrected masks give the figures in force; `model_*` are the model's own figures (the same as
 * those in force on a photo nobody corrected; per fruit, those of the model's fruit it overlaps most).
 */
export const FRUIT_CORRECTION_COLUMNS: CsvColumn<FruitRow>[] = [
  ['corrected', (r) => String(r.image.corrected === true)],
  ['model_fruit_pixels', (r) => (r.image.corrected ? blank(r.fruit.model_pixels) : r.fruit.pixels)],
  ['model_bruise_pixels', (r) => (r.image.corrected ? blank(r.fruit.model_bruise_pixels) : r.fruit.bruise_pixels)],
  ['model_bruise_percent', (r) => (r.image.corrected ? blank(r.fruit.model_bruise_percent) : r.fruit.bruise_percent)],
];
export const IMAGE_CORRECTION_COLUMNS: CsvColumn<ImageRow>[] = (
  [
    ['corrected', (r) => String(r.corrected === true)],
    ['model_fruit_pixels', (r) => r.model_fruit_pixels ?? r.total_mango_pixels],
    ['model_bruise_pixels', (r) => r.model_bruise_pixels ?? r.bruise_pixels],
    ['model_bruise_percent', (r) => r.model_bruise_percent ?? r.bruise_percent],
  ] satisfies CsvColumn<BruiseFigures>[]
).map(scored);

/** Tables with the audit columns of corrections (stored runs' exports) or without (the CLI's). */
export interface TableColumns {
  corrections?: boolean;
}

export const fruitTableCsv = (items: readonly BruiseFigures[], layout?: CsvLayout, columns: TableColumns = {}) => {
  const rows = fruitRows(items);
  return csvTable(
    withMetaColumns(
      columns.corrections ? [...FRUIT_COLUMNS, ...FRUIT_CORRECTION_COLUMNS] : FRUIT_COLUMNS,
      rows,
      (r) => r.image.meta,
    ),
    rows,
    layout,
  );
};
export const imageTableCsv = (rows: readonly ImageRow[], layout?: CsvLayout, columns: TableColumns = {}) =>
  csvTable(
    withMetaColumns(
      columns.corrections ? [...IMAGE_COLUMNS, ...IMAGE_CORRECTION_COLUMNS] : IMAGE_COLUMNS,
      rows,
      (r) => r.meta,
    ),
    rows,
    layout,
  );

/**
 * The columns the bruise tables write (per fruit, per image, data.csv): a metadata name may not be
 * one of them (core/src/meta.ts metaSpec).
 */
export const BRUISE_TABLE_COLUMNS: readonly string[] = [
  ...new Set(
    [FRUIT_COLUMNS, IMAGE_COLUMNS, FRUIT_CORRECTION_COLUMNS, IMAGE_CORRECTION_COLUMNS, DATA_CSV_COLUMNS]
      .flat()
      .map(([h]) => h),
  ),
];
export const dataCsv = (rows: readonly DataCsvRow[], layout?: CsvLayout) => csvTable(DATA_CSV_COLUMNS, rows, layout);
