/**
 * The plots of a run (issue 27): a photo's figure by a metadata column (box plot with every photo's
 * point, n per group, the mean with its 95 % interval), the figure over time (per fruit_id, or per
 * group) when a `day` or `date` column exists, and one area of each object against another. One place
 * makes their data and their Vega-Lite specs: the run page, the compare page and the HTML report draw
 * the same specs (the web app in the browser, the report to SVG through `plots-render.ts`). The
 * statistics are `statistics.ts`'s. Browser-safe, and no chart library at run time here (only its types).
 *
 * Which result fields are plotted, and the charts' words, are the plugin's (issue 24): it declares
 * them as `PlotFields` with its runs (`RunDeclaration.plots`, core/src/runs.ts); this file names none.
 */
import type { TopLevelSpec } from 'vega-lite';
import { describeGroup, type Bounds, type GroupSummary } from './statistics.ts';
import type { Catalogue } from './i18n.ts';
import { csvTable, withMetaColumns, type CsvColumn, type CsvLayout } from './csv.ts';

/** The group of photos without a value in the grouping column. */
export const NO_GROUP = '(none)';
/** The metadata column that names the physical fruit followed over photos and runs. */
export const FRUIT_ID = 'fruit_id';
/** The column names (any case) that place a photo in time, in the order one is chosen. */
export const TIME_COLUMNS = ['day', 'date'] as const;

/** One area of each plotted object (an axis of the scatter): in pixels, or in cm² when the photos had a scale. */
export interface PlotArea {
  /** its field name in the chart's data (and so in the chart's accessible descriptions) */
  name: string;
  /** the object's key of the area in pixels */
  px: string;
  /** the object's key of the area in cm² */
  cm2: string;
  /** the axis title in pixels and in cm² (English; the reader's language through `PlotText`) */
  title: { px: string; cm2: string };
}

/**
 * The charts' words (English, `{{name}}` for values; the reader's language through `PlotText`, so a
 * web app translates each by its English text). What a value and its mean are called is the plugin's.
 */
export interface PlotTexts {
  /** the box plot's title by a column: `{{column}}` */
  byColumn: string;
  /** the box plot's title of all photos as one group */
  allPhotos: string;
  /** the value axis */
  axis: string;
  /** the box plot's description: `{{n}}` photos, `{{groups}}`, `{{column}}` */
  boxDescription: string;
  /** one group of one photo: `{{group}}`, `{{n}}`, `{{mean}}` */
  groupOne: string;
  /** one group with its interval: `{{group}}`, `{{n}}`, `{{mean}}`, `{{low}}`, `{{high}}` */
  groupInterval: string;
  /** a photo's value in a tooltip */
  value: string;
  /** a mean of values in a tooltip */
  mean: string;
  /** the time chart's title per object (fruit_id): `{{time}}` */
  timePerObject: string;
  /** the time chart's title per group: `{{time}}` */
  timePerGroup: string;
  /** the time chart's description: `{{time}}`, `{{lines}}`, `{{by}}`, `{{points}}` */
  timeDescription: string;
  /** the scatter's title */
  scatter: string;
  /** the scatter's description: `{{n}}` objects, `{{x}}`, `{{y}}` (the axis titles) */
  scatterDescription: string;
  /** an object's number in a tooltip */
  object: string;
}

/**
 * What a plugin's results are plotted by (RunDeclaration.plots): the per-photo figure, the list of
 * objects in a result and the two areas of each that the scatter draws, and the charts' words.
 */
export interface PlotFields {
  /** the result's key of the per-photo figure (box plot and time series; also its field name in the charts' data) */
  value: string;
  /** keys a result must also have to be plotted (a result of another kind may share `value`) */
  requires?: readonly string[];
  /** the result's key of its list of objects (one scatter point each, numbered from 1) */
  objects: string;
  /** the scatter's x axis (an object's area) */
  x: PlotArea;
  /** the scatter's y axis (a part of that area) */
  y: PlotArea;
  /** the range the per-photo figure cannot leave (a percentage: [0, 100]): each 95 % interval of a mean is clipped to it (statistics.ts meanInterval) */
  bounds?: Bounds;
  text: PlotTexts;
  /**
   * The plugin's words (the charts' `text`, its report's) in the reports' other languages: English
   * text → translation, the web app's catalogue format (i18n.ts); the web spreads them too.
   */
  translations?: { th?: Catalogue };
}

/** What the plots read of a stored run's item or a results file's photo. */
export interface PlotSource {
  filename: string;
  result: Record<string, unknown>;
  meta?: Record<string, string | null> | null;
}

export interface PlotPhoto {
  image: string;
  /** the declared per-photo figure (`PlotFields.value`) */
  value: number;
  meta: Record<string, string | null>;
}

export interface PlotFruit {
  image: string;
  /** the object's number within its photo, from 1 */
  fruit: number;
  /** its `PlotFields.x` area */
  x: number;
  /** its `PlotFields.y` area */
  y: number;
  meta: Record<string, string | null>;
}

/** cm² when every object has its areas in cm² (the photos had a scale), else pixels. */
export type AreaUnit = 'cm²' | 'px';

export interface PlotData {
  /** what was plotted, and the charts' words */
  fields: PlotFields;
  photos: PlotPhoto[];
  fruits: PlotFruit[];
  unit: AreaUnit;
  /** the metadata columns, in the order the photos first give them */
  columns: string[];
  /** the column that places photos in time (`day`, else `date`), or null */
  time: string | null;
}

const isNumber = (v: unknown): v is number => typeof v === 'number' && Number.isFinite(v);
const isMeta = (v: unknown): v is Record<string, string | null> =>
  Boolean(v) &&
  typeof v === 'object' &&
  !Array.isArray(v) &&
  Object.values(v as object).every((x) => x === null || typeof x === 'string');

/** A stored item's metadata (a copy): on the item, or in its result (where the run store keeps them). */
const sourceMeta = (s: PlotSource): Record<string, string | null> => ({
  ...(s.meta ?? (isMeta(s.result.meta) ? s.result.meta : {})),
});

/**
 * The plots' data of scored photos by the plugin's `fields`; photos without its figures (failed,
 * another kind) are left out.
 */
export function plotData(sources: readonly PlotSource[], fields: PlotFields): PlotData {
  const photos: PlotPhoto[] = [];
  const fruits: (PlotFruit & { cm2: [number, number] | null })[] = [];
  const columns: string[] = [];
  const { x, y } = fields;
  for (const s of sources) {
    const r = s.result;
    const value = r[fields.value];
    if (!isNumber(value) || !(fields.requires ?? []).every((k) => k in r)) continue;
    const meta = sourceMeta(s);
    for (const k of Object.keys(meta)) if (!columns.includes(k)) columns.push(k);
    photos.push({ image: s.filename, value, meta });
    const list = Array.isArray(r[fields.objects]) ? (r[fields.objects] as Record<string, unknown>[]) : [];
    list.forEach((f, i) => {
      const [px, py, cx, cy] = [f[x.px], f[y.px], f[x.cm2], f[y.cm2]];
      if (!isNumber(px) || !isNumber(py)) return;
      const cm2: [number, number] | null = isNumber(cx) && isNumber(cy) ? [cx, cy] : null;
      fruits.push({ image: s.filename, fruit: i + 1, x: px, y: py, meta, cm2 });
    });
  }
  const unit: AreaUnit = fruits.length > 0 && fruits.every((f) => f.cm2) ? 'cm²' : 'px';
  const lower = columns.map((c) => c.toLowerCase());
  const timeAt = TIME_COLUMNS.map((t) => lower.indexOf(t)).find((i) => i >= 0);
  return {
    fields,
    photos,
    fruits: fruits.map(({ cm2, ...f }) => (unit === 'cm²' && cm2 ? { ...f, x: cm2[0], y: cm2[1] } : f)),
    unit,
    columns,
    time: timeAt === undefined ? null : columns[timeAt],
  };
}

/** A photo's group in `column`: its value, or NO_GROUP when it has none (missing, null or blank). */
export function groupOf(meta: Record<string, string | null>, column: string | null): string {
  if (!column) return NO_GROUP;
  const v = meta[column];
  return v === null || v === undefined || v.trim() === '' ? NO_GROUP : v;
}

/** Groups in natural order ("2" before "10", "fruit9" before "fruit10"); NO_GROUP last. */
export function compareGroups(a: string, b: string): number {
  if (a === b) return 0;
  if (a === NO_GROUP) return 1;
  if (b === NO_GROUP) return -1;
  return a.localeCompare(b, 'en', { numeric: true });
}

export interface GroupStats extends GroupSummary {
  group: string;
}

/**
 * Each group's values described (n, mean and its 95 % interval, quartiles), in natural order; the
 * interval clipped to `bounds` (pass the plotted figure's, `PlotFields.bounds`).
 */
export function groupStats(
  photos: readonly PlotPhoto[],
  column: string | null,
  bounds: Bounds | null = null,
): GroupStats[] {
  const groups = new Map<string, number[]>();
  for (const p of photos) {
    const g = groupOf(p.meta, column);
    groups.set(g, [...(groups.get(g) ?? []), p.value]);
  }
  return [...groups.keys()]
    .sort(compareGroups)
    .map((group) => ({ group, ...describeGroup(groups.get(group)!, bounds) }));
}

/** How a time column's values order: numbers (day 0, 3, 7), dates, or only as written. */
export type TimeKind = 'quantitative' | 'temporal' | 'ordinal';

export function timeKind(photos: readonly PlotPhoto[], column: string): TimeKind {
  const values = photos.map((p) => p.meta[column]).filter((v): v is string => Boolean(v && v.trim()));
  if (values.length === 0) return 'ordinal';
  if (values.every((v) => /^[+-]?\d+(\.\d+)?$/.test(v.trim()))) return 'quantitative';
  if (values.every((v) => /^\d{4}-\d{2}-\d{2}/.test(v.trim()) && !Number.isNaN(Date.parse(v)))) return 'temporal';
  return 'ordinal';
}

export interface SeriesPoint {
  /** the line: a fruit_id, or a group of `column` */
  series: string;
  /** the group of `column` the line is in (for a fruit: its first photo's that has a value, so one colour per line) */
  group: string;
  /** the time value as written */
  time: string;
  /** its number (day) or its date's milliseconds, for ordering; null for ordinal times */
  order: number | null;
  mean: number;
  n: number;
  ci_low: number | null;
  ci_high: number | null;
}

/**
 * The value over time: with a `fruit_id` column one line per fruit (the mean of its photos at each
 * time), else one line per group of `column` (all photos as one line without one) with each time's
 * mean and 95 % interval. Photos with no time value are left out.
 */
export function timeSeries(data: PlotData, column: string | null): { by: 'fruit_id' | 'group'; points: SeriesPoint[] } {
  const time = data.time;
  if (!time) return { by: 'group', points: [] };
  const fruitId = data.columns.find((c) => c.toLowerCase() === FRUIT_ID) ?? null;
  const kind = timeKind(data.photos, time);
  const cells = new Map<string, { series: string; group: string; time: string; values: number[] }>();
  const byColumn = column === time ? null : column;
  for (const p of data.photos) {
    const t = p.meta[time];
    if (!t || !t.trim()) continue;
    const group = groupOf(p.meta, byColumn);
    const series = fruitId ? groupOf(p.meta, fruitId) : group;
    if (fruitId && series === NO_GROUP) continue;
    const key = JSON.stringify([series, t]);
    const cell = cells.get(key) ?? { series, group, time: t, values: [] };
    cell.values.push(p.value);
    cells.set(key, cell);
  }
  const orderOf = (t: string) => (kind === 'quantitative' ? Number(t) : kind === 'temporal' ? Date.parse(t) : null);
  const points = [...cells.values()].map((c): SeriesPoint => {
    const d = describeGroup(c.values, data.fields.bounds ?? null);
    return {
      series: c.series,
      group: c.group,
      time: c.time,
      order: orderOf(c.time),
      mean: d.mean!,
      n: d.n,
      ci_low: d.ci_low,
      ci_high: d.ci_high,
    };
  });
  points.sort(
    (a, b) =>
      compareGroups(a.series, b.series) ||
      (a.order !== null && b.order !== null ? a.order - b.order : compareGroups(a.time, b.time)),
  );
  if (fruitId) {
    // a fruit's line is in one group (one colour): its first photo's that has a value
    const lineGroup = new Map<string, string>();
    for (const p of points)
      if (!lineGroup.has(p.series) || lineGroup.get(p.series) === NO_GROUP) lineGroup.set(p.series, p.group);
    for (const p of points) p.group = lineGroup.get(p.series)!;
  }
  return { by: fruitId ? 'fruit_id' : 'group', points };
}

// ---- one series over runs ----------------------------------------------------------------------

/** The column of stacked runs' rows that names each row's run (its id). */
export const RUN_COLUMN = 'run';
/** The column of stacked runs' rows that holds each row's run date (`created_at`, ISO 8601). */
export const RUN_DATE_COLUMN = 'run_date';
/** The time of stacked rows when only some have a day (or date): that value, else the run's date. */
export const SERIES_TIME_COLUMN = 'time';

/** A stored run as the series over runs reads it. */
export interface SeriesRun {
  id: string;
  /** when the run was made (ISO 8601): the time of its rows that have no day or date */
  created_at: string;
  items: readonly PlotSource[];
}

const isBlank = (v: string | null | undefined) => v === null || v === undefined || v.trim() === '';

/**
 * Several runs' photos as one table (issue 27: a fruit_id followed over runs, a shelf-life trial's day
 * 0 in one run and day 3 in another): every row gets the columns `run` (the run's id) and `run_date`
 * (its `created_at`) before its own metadata (a metadata column of the same name gives way). The time
 * is the `day` (else `date`) column when every plotted row has a value in it; the run's date when none
 * has; otherwise a column `time` holding each row's value, or its run's date where it has none.
 * `timeSeries` and `timeChart` then draw one line per fruit_id through the runs.
 */
export function stackRuns(runs: readonly SeriesRun[], fields: PlotFields): PlotData {
  const sources = runs.flatMap((run) =>
    run.items.map((s): PlotSource => {
      const own = Object.entries(sourceMeta(s)).filter(([k]) => k !== RUN_COLUMN && k !== RUN_DATE_COLUMN);
      const meta = { [RUN_COLUMN]: run.id, [RUN_DATE_COLUMN]: run.created_at, ...Object.fromEntries(own) };
      return { filename: s.filename, result: s.result, meta };
    }),
  );
  const data = plotData(sources, fields);
  const time = data.time;
  const missing = time ? data.photos.filter((p) => isBlank(p.meta[time])).length : data.photos.length;
  if (time && missing === 0) return data;
  if (!time || missing === data.photos.length) return { ...data, time: RUN_DATE_COLUMN };
  // some rows have a day, some not: each row's own, else its run's date (read as written: an ordinal axis)
  const filled = new Map<Record<string, string | null>, Record<string, string | null>>();
  const fill = (meta: Record<string, string | null>) => {
    const known = filled.get(meta);
    if (known) return known;
    const made = { ...meta, [SERIES_TIME_COLUMN]: isBlank(meta[time]) ? meta[RUN_DATE_COLUMN] : meta[time] };
    filled.set(meta, made);
    return made;
  };
  return {
    ...data,
    photos: data.photos.map((p) => ({ ...p, meta: fill(p.meta) })),
    fruits: data.fruits.map((f) => ({ ...f, meta: fill(f.meta) })),
    columns: [...data.columns.filter((c) => c !== SERIES_TIME_COLUMN), SERIES_TIME_COLUMN],
    time: SERIES_TIME_COLUMN,
  };
}

/**
 * The stacked rows (`stackRuns`) as CSV, with core's writer and the run tables' metadata columns:
 * `run`, `run_date`, `image`, the plotted figure (`PlotFields.value`), then every metadata column.
 */
export function seriesCsv(data: PlotData, layout?: CsvLayout): string {
  const own = (p: PlotPhoto) =>
    Object.fromEntries(Object.entries(p.meta).filter(([k]) => k !== RUN_COLUMN && k !== RUN_DATE_COLUMN));
  const columns: CsvColumn<PlotPhoto>[] = [
    [RUN_COLUMN, (p) => p.meta[RUN_COLUMN]],
    [RUN_DATE_COLUMN, (p) => p.meta[RUN_DATE_COLUMN]],
    ['image', (p) => p.image],
    [data.fields.value, (p) => p.value],
  ];
  return csvTable(withMetaColumns(columns, data.photos, own), data.photos, layout);
}

// ---- chart specs -------------------------------------------------------------------------------

/** A text of the charts in the reader's language: the English text and its values ({{name}}). */
export type PlotText = (english: string, values?: Record<string, string | number>) => string;

/** English, with the values put in. */
export const englishText: PlotText = (english, values = {}) =>
  english.replace(/\{\{(\w+)\}\}/g, (_, k: string) => String(values[k] ?? ''));

/** What the charts and tables say of their intervals when the figure has bounds (its Thai: report-th.ts). */
export const INTERVAL_NOTE =
  'Each 95 % interval of a mean is Student’s t, clipped to the figure’s range ({{low}} to {{high}}).';

/** The sentence on the intervals' clipping of a figure with bounds (`PlotFields.bounds`), in the reader's language; '' without. */
export const intervalNote = (fields: PlotFields, text: PlotText = englishText) =>
  fields.bounds ? text(INTERVAL_NOTE, { low: fields.bounds[0], high: fields.bounds[1] }) : '';

export interface ChartOptions {
  text?: PlotText;
  /** the plot area's width in pixels (the report and a narrow column of the compare page differ) */
  width?: number;
  height?: number;
  /** a title line before the chart's own (the compare page's run) */
  subtitle?: string;
  /** the top of the value axis (the compare page gives every run the same); else from the data */
  yMax?: number;
}

/** A chart: its Vega-Lite spec, its title and the description screen readers get. */
export interface Chart {
  id: 'groups' | 'time' | 'scatter';
  title: string;
  description: string;
  spec: TopLevelSpec;
}

const SCHEMA = 'https://vega.github.io/schema/vega-lite/v6.json';
const ORANGE = '#e0892b';
const CONFIG = {
  font: 'system-ui, -apple-system, "Segoe UI", Roboto, "Noto Sans Thai", Sarabun, sans-serif',
  axis: { labelFontSize: 11, titleFontSize: 12, titleFontWeight: 600 },
  title: { fontSize: 14, anchor: 'start' },
  legend: { labelFontSize: 11, titleFontSize: 12 },
} as const;

const fix = (v: number | null, d = 2) => (v === null ? '–' : v.toFixed(d));

const areaTitle = (text: PlotText, area: PlotArea, unit: AreaUnit) =>
  text(unit === 'cm²' ? area.title.cm2 : area.title.px);

/** What every chart's spec starts with: its title (and subtitle), description, size (the options' or the chart's own) and the look. */
function specHead(title: string, description: string, options: ChartOptions, size: { width: number; height: number }) {
  return {
    $schema: SCHEMA,
    title: options.subtitle ? { text: title, subtitle: options.subtitle } : title,
    description,
    width: options.width ?? size.width,
    height: options.height ?? size.height,
    config: CONFIG,
  };
}

/**
 * The value by `column` (every photo in one group without a column): a box per group (quartiles,
 * whiskers to 1.5 IQR), every photo as a point, each group's mean with its 95 % interval, and each
 * group's n under its name.
 */
export function groupChart(data: PlotData, column: string | null, options: ChartOptions = {}): Chart {
  const text = options.text ?? englishText;
  const words = data.fields.text;
  const field = data.fields.value;
  const stats = groupStats(data.photos, column, data.fields.bounds ?? null);
  const name = (g: GroupStats) => (!column ? text('all photos') : g.group === NO_GROUP ? text(NO_GROUP) : g.group);
  const label = (g: GroupStats) => `${name(g)} (n = ${g.n})`;
  const labelOf = new Map(stats.map((g) => [g.group, label(g)]));
  const order = stats.map(label);
  const values = data.photos.map((p, i) => ({
    group: labelOf.get(groupOf(p.meta, column))!,
    [field]: p.value,
    image: p.image,
    // a fixed spread of the points across the box (not random: the same chart every time)
    jitter: ((i * 0.618034) % 1) - 0.5,
  }));
  const means = stats.map((g) => ({
    group: label(g),
    mean: g.mean,
    ci_low: g.ci_low ?? g.mean,
    ci_high: g.ci_high ?? g.mean,
    n: g.n,
  }));
  const title = column ? text(words.byColumn, { column }) : text(words.allPhotos);
  const yTitle = text(words.axis);
  const xTitle = column ?? text('all photos');
  const description =
    text(words.boxDescription, {
      n: data.photos.length,
      groups: stats.length,
      column: xTitle,
    }) +
    ' ' +
    stats
      .map((g) =>
        g.ci_low === null
          ? text(words.groupOne, {
              group: name(g),
              n: g.n,
              mean: fix(g.mean),
            })
          : text(words.groupInterval, {
              group: name(g),
              n: g.n,
              mean: fix(g.mean),
              low: fix(g.ci_low),
              high: fix(g.ci_high),
            }),
      )
      .join(' ');
  const x = {
    field: 'group',
    type: 'nominal',
    sort: order,
    title: xTitle,
    axis: { labelAngle: order.length > 4 ? -30 : 0 },
  } as const;
  const width = options.width ?? Math.max(320, Math.min(900, 130 * stats.length));
  const spec = {
    ...specHead(title, description, options, { width, height: 280 }),
    layer: [
      {
        data: { values },
        mark: { type: 'boxplot', extent: 1.5, outliers: false, size: 36, opacity: 0.45, color: ORANGE },
        encoding: {
          x,
          // the value is never below 0: an interval reaching under it is drawn to the axis (its value is in the table)
          y: {
            field,
            type: 'quantitative',
            title: yTitle,
            scale: { domainMin: 0, clamp: true, ...(options.yMax === undefined ? {} : { domainMax: options.yMax }) },
          },
        },
      },
      {
        data: { values },
        mark: {
          type: 'point',
          filled: true,
          size: 30,
          opacity: 0.75,
          color: '#7a4a12',
          xOffset: { expr: 'datum.jitter * 28' },
        },
        encoding: {
          x,
          y: { field, type: 'quantitative' },
          tooltip: [
            { field: 'image', title: text('Photo') },
            { field, title: text(words.value), format: '.2f' },
          ],
        },
      },
      {
        data: { values: means },
        mark: { type: 'rule', strokeWidth: 2, color: '#1f4f8f' },
        encoding: { x, y: { field: 'ci_low', type: 'quantitative' }, y2: { field: 'ci_high' } },
      },
      {
        data: { values: means },
        mark: { type: 'point', shape: 'diamond', filled: true, size: 90, color: '#1f4f8f' },
        encoding: {
          x,
          y: { field: 'mean', type: 'quantitative' },
          tooltip: [
            { field: 'group', title: xTitle },
            { field: 'n', title: 'n' },
            { field: 'mean', title: text(words.mean), format: '.2f' },
            { field: 'ci_low', title: text('95 % interval from'), format: '.2f' },
            { field: 'ci_high', title: text('95 % interval to'), format: '.2f' },
          ],
        },
      },
    ],
  } as TopLevelSpec;
  return { id: 'groups', title, description, spec };
}

/** The value over the time column, per fruit_id or per group (null when the run has no day or date column). */
export function timeChart(data: PlotData, column: string | null, options: ChartOptions = {}): Chart | null {
  if (!data.time) return null;
  const text = options.text ?? englishText;
  const words = data.fields.text;
  const { by, points } = timeSeries(data, column);
  if (points.length === 0) return null;
  const kind = timeKind(data.photos, data.time);
  const seriesTitle = by === 'fruit_id' ? FRUIT_ID : column && column !== data.time ? column : text('all photos');
  const title =
    by === 'fruit_id' ? text(words.timePerObject, { time: data.time }) : text(words.timePerGroup, { time: data.time });
  const lines = new Set(points.map((p) => p.series)).size;
  const description = text(words.timeDescription, {
    time: data.time,
    lines,
    by: seriesTitle,
    points: points.length,
  });
  const none = (v: string) => (v === NO_GROUP ? text(NO_GROUP) : v);
  const values = points.map((p) => ({
    ...p,
    series: none(p.series),
    group: none(p.group),
    t: kind === 'quantitative' ? Number(p.time) : p.time,
  }));
  const x = {
    field: 't',
    type: kind,
    title: data.time,
    // days are counted: no tick between two days; a single day is written "3", not "3.000000"
    ...(kind === 'quantitative' ? { axis: { tickMinStep: 1, format: '~g' } } : {}),
    ...(kind === 'ordinal' ? { sort: [...new Set(points.map((p) => p.time))].sort(compareGroups) } : {}),
  };
  // Fruit lines are coloured by their group when one is chosen (one colour per fruit otherwise).
  const grouped = column !== null && column !== data.time;
  const colourTitle = by === 'fruit_id' && grouped ? column : seriesTitle;
  const colourField = by === 'fruit_id' && grouped ? 'group' : 'series';
  const groups = [...new Set(points.map((p) => (colourField === 'group' ? p.group : p.series)))].sort(compareGroups);
  const color = {
    field: colourField,
    type: 'nominal',
    title: colourTitle,
    sort: groups.map(none),
    legend: groups.length > 20 ? null : {},
  };
  const detail = { field: 'series', type: 'nominal' };
  const spec = {
    ...specHead(title, description, options, { width: 520, height: 260 }),
    data: { values },
    layer: [
      ...(by === 'group'
        ? [
            {
              mark: { type: 'rule', opacity: 0.6 },
              encoding: { x, y: { field: 'ci_low', type: 'quantitative' }, y2: { field: 'ci_high' }, color, detail },
            },
          ]
        : []),
      {
        mark: { type: 'line', point: true },
        encoding: {
          x,
          y: {
            field: 'mean',
            type: 'quantitative',
            title: text(words.axis),
            scale: { domainMin: 0, clamp: true, ...(options.yMax === undefined ? {} : { domainMax: options.yMax }) },
          },
          color,
          detail,
          tooltip: [
            { field: 'series', title: seriesTitle },
            ...(colourField === 'group' ? [{ field: 'group', title: colourTitle }] : []),
            { field: 'time', title: data.time },
            { field: 'mean', title: text(words.mean), format: '.2f' },
            { field: 'n', title: 'n' },
          ],
        },
      },
    ],
  } as TopLevelSpec;
  return { id: 'time', title, description, spec };
}

/** The declared y area against the x area, one point per object, coloured by `column` when one is chosen. */
export function scatterChart(data: PlotData, column: string | null, options: ChartOptions = {}): Chart {
  const text = options.text ?? englishText;
  const { x, y, text: words } = data.fields;
  const axes = { x: areaTitle(text, x, data.unit), y: areaTitle(text, y, data.unit) };
  const title = text(words.scatter);
  const description = text(words.scatterDescription, { n: data.fruits.length, x: axes.x, y: axes.y });
  const values = data.fruits.map((f) => ({
    [x.name]: f.x,
    [y.name]: f.y,
    image: f.image,
    fruit: f.fruit,
    group: (() => {
      const g = groupOf(f.meta, column);
      return g === NO_GROUP ? text(NO_GROUP) : g;
    })(),
  }));
  const digits = data.unit === 'cm²' ? '.2f' : ',.0f';
  const spec = {
    ...specHead(title, description, options, { width: 420, height: 280 }),
    data: { values },
    mark: { type: 'point', filled: true, size: 50, opacity: 0.8, ...(column ? {} : { color: ORANGE }) },
    encoding: {
      x: {
        field: x.name,
        type: 'quantitative',
        title: axes.x,
        scale: { zero: false, nice: true },
        axis: { format: digits },
      },
      y: { field: y.name, type: 'quantitative', title: axes.y, axis: { format: digits } },
      ...(column
        ? {
            color: {
              field: 'group',
              type: 'nominal',
              title: column,
              sort: [...new Set(values.map((v) => v.group))].sort((a, b) =>
                compareGroups(a === text(NO_GROUP) ? NO_GROUP : a, b === text(NO_GROUP) ? NO_GROUP : b),
              ),
            },
          }
        : {}),
      tooltip: [
        { field: 'image', title: text('Photo') },
        { field: 'fruit', title: text(words.object) },
        { field: x.name, title: axes.x, format: digits },
        { field: y.name, title: axes.y, format: digits },
      ],
    },
  } as TopLevelSpec;
  return { id: 'scatter', title, description, spec };
}

/**
 * The chart at most `width` pixels wide in all, its axes, titles and legend included (Vega-Lite's
 * `fit-x` autosize): a phone's narrow column gets a narrower plot instead of one that scrolls.
 */
export function fitWidth(chart: Chart, width: number): Chart {
  const spec = { ...chart.spec, width, autosize: { type: 'fit-x', contains: 'padding' } } as TopLevelSpec;
  return { ...chart, spec };
}

/** The grouping columns a reader may pick: every metadata column but the time column and fruit_id. */
export const groupingColumns = (data: PlotData) =>
  data.columns.filter((c) => c !== data.time && c.toLowerCase() !== FRUIT_ID);

/** The charts of a run grouped by `column`: the box plot, the time series when there is one, the scatter. */
export function runCharts(data: PlotData, column: string | null, options: ChartOptions = {}): Chart[] {
  const time = timeChart(data, column, options);
  return [groupChart(data, column, options), ...(time ? [time] : []), scatterChart(data, column, options)];
}
