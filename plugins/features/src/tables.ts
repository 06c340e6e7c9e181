/**
 * The feature plugin's tables (issue 24: a plugin owns its results; core keeps the CSV writer and
 * the metadata columns): the feature table of the web's download, `mango features --out x.csv` and
 * a stored analysis's export, and the per-fruit measurement table (`mango measure`, a per-fruit
 * run's `fruits` export), which joins each fruit's bruise figures (the bruise plugin's columns).
 * Browser-safe: no Node imports.
 */
import { csvTable, blank, type CsvCell, type CsvColumn, type CsvLayout } from '@mango/core/csv';
import { withMetaColumns } from '@mango/core/results';
import { FRUIT_COLUMNS, type FruitRow } from '@mango/plugin-bruise/tables';
import { type FeatureResultItem, type FruitFeatures } from './results.ts';

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
