/**
 * Results a lab can keep, written once for every front end (server exports, CLI, web, report):
 * the tidy tables (per fruit, per image (the CLI's results.csv too), the web's data.csv), the results
 * file (`mango bruise --out results.json` and a stored run's `export?format=json` share it), its
 * provenance, and the summary statistics and histogram bins of the run page and the report.
 * Browser-safe: no Node imports.
 */
import { z } from 'zod';
import { csvTable, type CsvCell, type CsvColumn, type CsvLayout } from './csv.ts';
import { BruiseResultItem, FeatureResultItem, type FruitFeatures } from './schemas/index.ts';
import type { RanWith } from './runs.ts';
import { quantile } from './statistics.ts';
import { MetaProvenance, metaColumnNames, PhotoMeta } from './meta.ts';

/** A bruise item's figures: the HTTP item without its overlay (and without run_id). */
export const BruiseFigures = BruiseResultItem.omit({ overlay_img: true, run_id: true });
export type BruiseFigures = z.infer<typeof BruiseFigures>;

/** The longest side of the overlay thumbnail kept per photo (stored runs, results files, the report). */
export const THUMBNAIL_MAX_SIDE = 256;

export const RESULTS_SCHEMA = 'mango-bruise-tracker/results/1';

/** Where a number came from: software, method, model, settings, time and every input's sha256. */
export const Provenance = z.object({
  app: z.literal('mango-bruise-tracker'),
  app_version: z.string(),
  /** 'api' (a stored run) or 'cli' */
  source: z.enum(['api', 'cli']),
  run_id: z.string().nullable(),
  /** the kind of run, as its plugin declares it (core/src/runs.ts): `bruise`, `analyze`, ... */
  operation: z.string(),
  /** the method asked for ('auto', 'classical', 'model'; null for analyze) */
  method: z.string().nullable(),
  /** the method that ran ('classical' or 'model'; null for analyze) */
  method_used: z.string().nullable(),
  plugin_version: z.string().nullable(),
  model_id: z.string().nullable(),
  model_sha256: z.string().nullable(),
  options: z.record(z.string(), z.unknown()),
  created_at: z.string(),
  /** every input in order; one that could not be scored has its `error` (its sha256 is empty when it could not be read) */
  inputs: z.array(z.object({ filename: z.string(), sha256: z.string(), error: z.string().optional() })),
  /** where the photos' experiment metadata came from (the pattern, the CSV's sha256, the names); absent: none */
  meta: MetaProvenance.nullable().optional(),
});
export type Provenance = z.infer<typeof Provenance>;

export type { RanWith };

/** The provenance of a call or a batch: what was asked (`asked`) and what ran (`ran`, e.g. the first item). */
export function makeProvenance(
  asked: Pick<
    Provenance,
    'app_version' | 'source' | 'run_id' | 'operation' | 'method' | 'options' | 'created_at' | 'inputs'
  > &
    Pick<Partial<Provenance>, 'meta'>,
  ran: RanWith = {},
): Provenance {
  const { meta, ...rest } = asked;
  return {
    app: 'mango-bruise-tracker',
    ...rest,
    ...(meta ? { meta } : {}),
    method_used: ran.method ?? null,
    plugin_version: ran.version ?? null,
    model_id: ran.model_id ?? null,
    model_sha256: ran.model_sha256 ?? null,
  };
}

/** One photo of a results file: what was read (name, sha256, size), what came out, a small overlay. */
export const ResultsPhoto = z.object({
  filename: z.string(),
  sha256: z.string(),
  width: z.number().int().nullable(),
  height: z.number().int().nullable(),
  /** the bruise figures, the feature analysis item (operation analyze), or another plugin's declared result */
  result: z.union([BruiseFigures, FeatureResultItem, z.record(z.string(), z.unknown())]),
  /** data:image/jpeg;base64 overlay, long side at most THUMBNAIL_MAX_SIDE; null when none */
  overlay_thumbnail: z.string().nullable(),
  /** the same for the photo itself (shown beside its overlay); absent in older files */
  photo_thumbnail: z.string().nullable().optional(),
  /** the photo's experiment metadata (name -> value; --meta, --meta-csv, fields meta / meta_csv); absent: none */
  meta: PhotoMeta.optional(),
});
export type ResultsPhoto = z.infer<typeof ResultsPhoto>;

/** The results file: `mango bruise --out results.json` and `GET /api-node/runs/{id}/export?format=json`. */
export const ResultsFile = z.object({
  schema: z.literal(RESULTS_SCHEMA),
  provenance: Provenance,
  photos: z.array(ResultsPhoto),
});
export type ResultsFile = z.infer<typeof ResultsFile>;

// ---- stored runs (GET /api-node/runs, /runs/{id}) ----------------------------------------------
// One schema each: the server's answers are typed from them, the OpenAPI document describes them
// and the web client infers its types from them. Each carries its id (zod metadata): where one is
// part of another, the document refers to it by that name.

/** A stored run as the run list shows it: its provenance, owner, photo count and summary figures. */
export const RunListItem = Provenance.pick({
  operation: true,
  method: true,
  method_used: true,
  plugin_version: true,
  model_id: true,
  model_sha256: true,
  options: true,
  app_version: true,
  created_at: true,
  meta: true,
})
  .extend({
    id: z.string(),
    username: z.string(),
    organization: z.string(),
    item_count: z.number().int(),
    /** the figures its plugin's declaration makes of the run's items (core/src/runs.ts `summary`) */
    summary: z.record(z.string(), z.number().nullable()),
  })
  .meta({ id: 'Run' });
export type RunListItem = z.infer<typeof RunListItem>;

/** One version of a stored photo's truth: who saved it and when, from which model's masks. */
export const PhotoTruth = z
  .object({
    version: z.number().int(),
    width: z.number().int(),
    height: z.number().int(),
    created_by: z.string(),
    created_at: z.string(),
    /** the model whose masks the person started from (null: the classical method) */
    model_id: z.string().nullable(),
    /** `editor`, or the format it was imported from (`coco`, `cvat-mask`, `label-studio`) */
    source: z.string(),
  })
  .meta({ id: 'PhotoTruth' });
export type PhotoTruth = z.infer<typeof PhotoTruth>;

/** One photo of a stored run: what was read, its result (as its plugin declares it) and thumbnails. */
export const StoredRunItem = ResultsPhoto.extend({
  id: z.number().int(),
  position: z.number().int(),
  result: z.record(z.string(), z.unknown()).meta({
    description:
      "The figures the run's plugin returned for the photo (a JSON object: core/src/runs.ts), or the photo's name and `error` when it could not be scored",
  }),
  full_overlay: z.boolean().meta({
    description:
      'The full-size overlay is kept (a job sent with keep_overlays): GET /api-node/runs/{id}/items/{position}/overlay',
  }),
  photo_kept: z.boolean().meta({
    description:
      'The uploaded photo is kept with the run (KEEP_RUN_PHOTOS; a scored photo of a run made since): GET /api-node/runs/{id}/items/{position}/photo, and the full-resolution export (export?format=zip&resolution=full). False for a run made before photos were kept, with the setting off, or a photo that could not be scored',
  }),
  truth: PhotoTruth.nullable().optional().meta({
    description:
      "The latest truth of the photo (its masks corrected in the mask editor, or imported): GET /api-node/runs/{id}/items/{position}/truth; `result` then holds the corrected figures and `model_result` the model's. Null: not corrected",
  }),
  model_result: z.record(z.string(), z.unknown()).optional().meta({
    description: "A corrected photo's figures as the model gave them (kept for audit)",
  }),
}).meta({ id: 'RunItem' });
export type StoredRunItem = z.infer<typeof StoredRunItem>;

/** A stored run with its items, in order. */
export const StoredRun = RunListItem.extend({ items: z.array(StoredRunItem) }).meta({ id: 'StoredRun' });
export type StoredRun = z.infer<typeof StoredRun>;

/** One page of the run list, newest first; `next_cursor` is null on the last page. */
export const RunPage = z
  .object({ runs: z.array(RunListItem), next_cursor: z.string().nullable() })
  .meta({ id: 'RunPage' });
export type RunPage = z.infer<typeof RunPage>;

export const isBruiseFigures = (r: ResultsPhoto['result']): r is BruiseFigures => 'total_mango_pixels' in r;

/** The bruise figures of a results file's photos, in order (feature items are left out). */
export function bruiseFiguresOf(file: Pick<ResultsFile, 'photos'>): BruiseFigures[] {
  return file.photos.map((p) => p.result).filter(isBruiseFigures);
}

/** The name of a file's provenance sidecar: `fruits.csv` -> `fruits.csv.provenance.json`. */
export const provenanceSidecarName = (file: string) => `${file}.provenance.json`;

// ---- tables ----------------------------------------------------------------------------------

const blank = (v: number | string | null | undefined): CsvCell => v ?? '';
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

/** Percentages of data.csv and of the screens: 2 decimals (product-spec.md section 9). */
export function formatPercent(value: number | null | undefined): string {
  return typeof value === 'number' && Number.isFinite(value) ? value.toFixed(2) : '-';
}

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
 * A table's columns followed by one column per metadata name its rows carry (issue 27: metadata
 * are columns of every table, after the table's own; a photo's repeat on each of its fruit rows).
 */
export function withMetaColumns<T>(
  columns: readonly CsvColumn<T>[],
  rows: readonly T[],
  metaOf: (row: T) => PhotoMeta | null | undefined,
): CsvColumn<T>[] {
  const names = metaColumnNames(rows.map(metaOf));
  return [...columns, ...names.map((name): CsvColumn<T> => [name, (row) => blank(metaOf(row)?.[name])])];
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

/** A column of the feature table after Image: a feature id and one of its value names. */
export interface FeatureColumn {
  feature: string;
  valueName: string;
}

/**
 * The feature table's columns after Image: each feature (`features` in the order given, else in
 * the order the items first give them) with its value names in the order the items give them;
 * `known` supplies names for a feature no item returned (every item failed).
 */
export function featureColumns(
  items: readonly FeatureResultItem[],
  features?: readonly string[],
  known: Partial<Record<string, readonly string[]>> = {},
): FeatureColumn[] {
  const order = [...(features ?? new Set(items.flatMap((i) => Object.keys(i.features ?? {}))))];
  return order.flatMap((feature) => {
    const names: string[] = [];
    for (const item of items)
      for (const name of Object.keys(item.features?.[feature] ?? {})) if (!names.includes(name)) names.push(name);
    if (names.length === 0) names.push(...(known[feature] ?? []));
    return names.map((valueName) => ({ feature, valueName }));
  });
}

/**
 * The feature table (feature_analysis_results.csv's layout), written once for the web's download,
 * the CLI's `features --out x.csv` and a stored run's export: Image, then the value names at full
 * precision, then the photos' metadata (core/src/meta.ts); when a photo failed, an `error` column with its reason (its values are blank).
 */
export function featureTableCsv(
  items: readonly FeatureResultItem[],
  options: { columns?: readonly FeatureColumn[]; layout?: CsvLayout } = {},
): string {
  const columns = options.columns ?? featureColumns(items);
  const hasError = items.some((i) => i.error);
  const table: CsvColumn<FeatureResultItem>[] = [
    ...withMetaColumns(
      [
        ['Image', (i) => i.image_name],
        ...columns.map(({ feature, valueName }): CsvColumn<FeatureResultItem> => [
          valueName,
          (i) => blank(i.features?.[feature]?.[valueName]),
        ]),
      ],
      items,
      (i) => i.meta,
    ),
    ...(hasError ? [['error', (i: FeatureResultItem) => blank(i.error)] as CsvColumn<FeatureResultItem>] : []),
  ];
  return csvTable(table, items, options.layout);
}

/** A row of the per-fruit measurement table: a photo's item and one of its fruit (none: a failed photo or one without fruit). */
export interface MeasureRow {
  item: FeatureResultItem;
  fruit: FruitFeatures | null;
}

/** The bruise figures of each fruit in the measurement table: the per-fruit table's columns after `image, fruit`. */
const MEASURE_BRUISE_COLUMNS = [
  'bbox_x',
  'bbox_y',
  'bbox_w',
  'bbox_h',
  'fruit_pixels',
  'bruise_pixels',
  'bruise_percent',
  'lesion_count',
  'fruit_area_cm2',
  'bruise_area_cm2',
  'colour_difference',
];

/** The grade columns of the per-fruit table, which the measurement table has when its fruit were graded (`--grades`). */
const MEASURE_GRADE_COLUMNS = ['grade', 'size_group', 'weight_g', 'size_source'];

/** The rows of the measurement table: one per fruit, in the photo's order; one bare row for a photo without any. */
export const measureRows = (items: readonly FeatureResultItem[]): MeasureRow[] =>
  items.flatMap((item): MeasureRow[] =>
    item.fruits?.length ? item.fruits.map((fruit) => ({ item, fruit })) : [{ item, fruit: null }],
  );

export interface MeasureTableOptions {
  /** the feature groups, in order (default: as the fruit give them) */
  features?: readonly string[];
  /** value names of a feature no fruit returned (every photo failed) */
  known?: Partial<Record<string, readonly string[]>>;
  /** the cm / cm² columns (default: those the fruit give) */
  scaled?: readonly string[];
  /**
   * Columns a front end adds after `image, fruit` (the experiment's metadata, for instance): the
   * table keeps one writer, so every front end's measurement table gets them the same way.
   */
  extra?: readonly CsvColumn<MeasureRow>[];
  layout?: CsvLayout;
}

/**
 * The per-fruit measurement table (`mango measure --out table.csv`, a per-fruit feature run's
 * `fruits` export): `image, fruit` (numbered as in the bruise per-fruit table), that fruit's bruise
 * figures, the scale, every feature value of the fruit at full resolution, its lengths and areas in
 * cm / cm² when the photo has a scale; the grade columns when the fruit were graded; the photos'
 * metadata (core/src/meta.ts, repeated on each fruit row); an `error` column when a photo failed (its row has no fruit).
 */
export function measureTableCsv(items: readonly FeatureResultItem[], options: MeasureTableOptions = {}): string {
  const rows = measureRows(items);
  const fruits = rows.flatMap((r) => (r.fruit ? [r.fruit] : []));
  const perFruit = fruits.map((f) => ({ image_name: '', features: f.features }));
  const columns = featureColumns(perFruit, options.features, options.known);
  const scaled = options.scaled ?? [...new Set(fruits.flatMap((f) => Object.keys(f.scaled ?? {})))];
  const bruise = new Map(FRUIT_COLUMNS.map(([name, field]) => [name, field]));
  const asFruitRow = (r: MeasureRow & { fruit: FruitFeatures }) =>
    ({ image: { filename: r.item.image_name }, index: r.fruit.fruit, fruit: r.fruit }) as unknown as FruitRow;
  const ofFruit =
    (field: (r: MeasureRow & { fruit: FruitFeatures }) => CsvCell) =>
    (r: MeasureRow): CsvCell =>
      r.fruit ? field(r as MeasureRow & { fruit: FruitFeatures }) : '';
  const graded = fruits.some((f) => 'grade' in f);
  const ofBruise = (name: string): CsvColumn<MeasureRow> => [name, ofFruit((r) => bruise.get(name)!(asFruitRow(r)))];
  const own: CsvColumn<MeasureRow>[] = [
    ['image', (r) => r.item.image_name],
    ['fruit', ofFruit((r) => r.fruit.fruit)],
    ...(options.extra ?? []),
    ...MEASURE_BRUISE_COLUMNS.map(ofBruise),
    ...(graded ? MEASURE_GRADE_COLUMNS.map(ofBruise) : []),
    ['px_per_cm', (r) => blank(r.item.fruit_masks?.px_per_cm)],
    ['scale_source', (r) => blank(r.item.fruit_masks?.scale_source)],
    ...columns.map(({ feature, valueName }): CsvColumn<MeasureRow> => [
      valueName,
      ofFruit((r) => blank(r.fruit.features[feature]?.[valueName])),
    ]),
    ...scaled.map((name): CsvColumn<MeasureRow> => [name, ofFruit((r) => blank(r.fruit.scaled?.[name]))]),
  ];
  const table: CsvColumn<MeasureRow>[] = [
    ...withMetaColumns(own, rows, (r) => r.item.meta),
    ...(items.some((i) => i.error) ? [['error', (r: MeasureRow) => blank(r.item.error)] as CsvColumn<MeasureRow>] : []),
  ];
  return csvTable(table, rows, options.layout);
}

// ---- statistics ------------------------------------------------------------------------------

export interface SummaryStats {
  n: number;
  mean: number | null;
  median: number | null;
  p90: number | null;
  /** the threshold the share is over (bruise %) */
  threshold: number;
  /** photos with bruise % strictly over the threshold, as a fraction of n (null when n = 0) */
  share_over: number | null;
}

export function summaryStats(values: readonly number[], threshold: number): SummaryStats {
  const sorted = [...values].filter(Number.isFinite).sort((a, b) => a - b);
  const n = sorted.length;
  return {
    n,
    mean: n ? sorted.reduce((a, v) => a + v, 0) / n : null,
    median: quantile(sorted, 0.5),
    p90: quantile(sorted, 0.9),
    threshold,
    share_over: n ? sorted.filter((v) => v > threshold).length / n : null,
  };
}

export interface HistogramBin {
  /** [from, to): the last bin includes its upper edge */
  from: number;
  to: number;
  count: number;
  label: string;
}

const BIN_WIDTHS = [0.5, 1, 2, 5, 10, 20, 25];

/** Bins of bruise % from 0, of a round width giving at most 12 bins (at least one bin). */
export function histogramBins(values: readonly number[]): HistogramBin[] {
  const finite = values.filter(Number.isFinite);
  const max = Math.max(0, ...finite);
  const width = BIN_WIDTHS.find((w) => Math.ceil(max / w) <= 12) ?? 25;
  const count = Math.max(1, Math.ceil(max / width));
  const bins: HistogramBin[] = Array.from({ length: count }, (_, i) => ({
    from: i * width,
    to: (i + 1) * width,
    count: 0,
    label: `${i * width}–${(i + 1) * width}`,
  }));
  for (const v of finite) bins[Math.min(count - 1, Math.max(0, Math.floor(v / width)))].count++;
  return bins;
}
