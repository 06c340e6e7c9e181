/**
 * The series report (issue 27: a fruit_id followed over runs, as a report): several stored runs or
 * results files as one time series in one self-contained HTML file, the compare page's "One series"
 * view on paper. The runs are stacked by `stackRuns`; the page has the line chart per fruit_id (and one
 * coloured by each metadata column), a table per run (its date, photos, mean with its 95 % interval,
 * median, range), a table per time point, and every stacked row. The web's compare page (series view)
 * and `mango series --report` write it. Browser-safe: the charts are drawn by `plots-render.ts`, loaded
 * when a report is made. It names no plugin: the figure and its words are the runs' `PlotFields`.
 * In English or Thai (`lang`: core's words and the plugin's `PlotFields.translations`; the same figures).
 */
import { escapeHtml, fixed, htmlPage, reportLanguageOf, type ReportSection } from './report.ts';
import type { ReportLanguage, Translate } from './i18n.ts';
import {
  compareGroups,
  FRUIT_ID,
  groupingColumns,
  intervalNote,
  RUN_COLUMN,
  RUN_DATE_COLUMN,
  SERIES_TIME_COLUMN,
  stackRuns,
  timeChart,
  timeSeries,
  type Chart,
  type PlotData,
  type PlotFields,
  type PlotPhoto,
  type SeriesRun,
} from './plots.ts';
import { describeGroup } from './statistics.ts';

export interface SeriesReportOptions {
  /** the page's title (default: "Series report – N runs") */
  title?: string;
  /** when the report was made (ISO 8601; default: now) */
  created_at?: string;
  /** the report's language (default: English) */
  lang?: ReportLanguage;
}

const num = (v: string) => `<td class="num">${v}</td>`;
const range = (t: Translate, low: number | null, high: number | null) =>
  low === null ? '–' : escapeHtml(t('{{low}} to {{high}}', { low: fixed(low), high: fixed(high) }));
const th = (t: Translate, english: string, cls = '') =>
  `<th${cls ? ` class="${cls}"` : ''}>${escapeHtml(t(english))}</th>`;
/** A table that scrolls in its own box on a narrow screen (the page does not). */
const table = (cls: string, head: string[], rows: string[]) =>
  `<div class="table-wrap"><table class="${cls}"><thead><tr>${head.join('')}</tr></thead><tbody>${rows.join('')}</tbody></table></div>`;

/** One row per run, in the order given: its id, date, photos and the figure's n, mean with its interval, median, range. */
function runsTable(runs: readonly SeriesRun[], data: PlotData, t: Translate): string {
  const words = data.fields.text;
  const rows = runs.map((run) => {
    const d = describeGroup(
      data.photos.filter((p) => p.meta[RUN_COLUMN] === run.id).map((p) => p.value),
      data.fields.bounds ?? null,
    );
    return (
      `<tr data-run="${escapeHtml(run.id)}"><td><code>${escapeHtml(run.id)}</code></td><td>${escapeHtml(run.created_at)}</td>` +
      `${num(String(run.items.length))}${num(String(d.n))}${num(fixed(d.mean))}${num(range(t, d.ci_low, d.ci_high))}` +
      `${num(fixed(d.median))}${num(range(t, d.min, d.max))}</tr>`
    );
  });
  const head = [
    th(t, 'Run'),
    th(t, 'Run date'),
    th(t, 'Photos', 'num'),
    th(t, 'Scored (n)', 'num'),
    th(t, words.mean, 'num'),
    th(t, '95 % interval of the mean', 'num'),
    th(t, 'Median', 'num'),
    th(t, 'Range', 'num'),
  ];
  return table('runs', head, rows);
}

/** One row per line and time of the chart (a fruit_id's mean at a day, or a group's): what is plotted, readable. */
function pointsTable(data: PlotData, t: Translate): string {
  const { by, points } = timeSeries(data, null);
  const head = [
    `<th>${by === 'fruit_id' ? FRUIT_ID : escapeHtml(t('Series'))}</th>`,
    `<th>${escapeHtml(data.time ?? '')}</th>`,
    '<th class="num">n</th>',
    th(t, data.fields.text.mean, 'num'),
    th(t, '95 % interval of the mean', 'num'),
  ];
  const rows = points.map(
    (p) =>
      `<tr data-series="${escapeHtml(p.series)}" data-time="${escapeHtml(p.time)}" data-mean="${p.mean}"><td>${escapeHtml(p.series)}</td><td>${escapeHtml(p.time)}</td>` +
      `${num(String(p.n))}${num(fixed(p.mean))}${num(range(t, p.ci_low, p.ci_high))}</tr>`,
  );
  return table('points', head, rows);
}

/** Every stacked row: its run, photo, metadata and figure (the series CSV as a table). */
function rowsTable(data: PlotData, t: Translate): string {
  const columns = data.columns.filter((c) => c !== RUN_COLUMN && c !== RUN_DATE_COLUMN);
  const head = [
    th(t, 'Run'),
    th(t, 'Photo'),
    ...columns.map((c) => `<th>${escapeHtml(c)}</th>`),
    th(t, data.fields.text.value, 'num'),
  ];
  const rows = data.photos.map(
    (p: PlotPhoto) =>
      `<tr><td><code>${escapeHtml(p.meta[RUN_COLUMN] ?? '')}</code></td><td>${escapeHtml(p.image)}</td>` +
      columns.map((c) => `<td>${escapeHtml(p.meta[c] ?? '')}</td>`).join('') +
      `${num(fixed(p.value))}</tr>`,
  );
  return table('rows', head, rows);
}

/**
 * The series report of `runs` (each with its items: a stored run's, or a results file's photos) by the
 * figure `fields` plots, as one HTML document. Throws when no photo has the figure.
 */
export async function seriesReportHtml(
  runs: readonly SeriesRun[],
  fields: PlotFields,
  options: SeriesReportOptions = {},
): Promise<string> {
  const data = stackRuns(runs, fields);
  if (data.photos.length === 0) throw new Error('the runs have no scored photo to put in a series');
  const { chartFigure } = await import('./plots-render.ts');
  const language = await reportLanguageOf(options.lang, fields.translations?.th);
  const t = language.text;
  // the lines per fruit_id (or per group), then coloured by each metadata column the rows have
  const columns = groupingColumns(data).filter((c) => ![RUN_COLUMN, RUN_DATE_COLUMN, SERIES_TIME_COLUMN].includes(c));
  const charts = [null, ...columns.sort(compareGroups)]
    .map((column) =>
      timeChart(data, column, { text: t, ...(column ? { subtitle: t('coloured by {{column}}', { column }) } : {}) }),
    )
    .filter((c): c is Chart => c !== null);
  const figures: string[] = [];
  for (const [i, chart] of charts.entries()) figures.push(await chartFigure(chart, `plot-series-${i}`));
  const byFruit = timeSeries(data, null).by === 'fruit_id';
  const time = data.time ?? '';
  const notes = [
    byFruit
      ? t('Each fruit_id is one line over {{time}}.', { time })
      : t('No photo has a fruit_id: one line per group over {{time}}.', { time }),
    data.time === SERIES_TIME_COLUMN ? t('The time of a photo without a day is its run’s date.') : '',
    intervalNote(fields, t),
  ];
  const sections: ReportSection[] = [
    { heading: escapeHtml(t('Runs')), html: runsTable(runs, data, t) },
    {
      heading: escapeHtml(t('Series')),
      html:
        `<p class="axis">${escapeHtml(notes.filter(Boolean).join(' '))}</p>` +
        `<div class="plots">${figures.join('\n')}</div>`,
    },
    { heading: escapeHtml(t('Points of the series')), html: pointsTable(data, t) },
    { heading: escapeHtml(t('Rows')), html: rowsTable(data, t) },
  ];
  const title = options.title ?? t('Series report – {{n}} runs', { n: runs.length });
  const created = options.created_at ?? new Date().toISOString();
  return htmlPage(
    title,
    t('Mango Bruise Tracker · {{n}} photo(s) of {{runs}} run(s) over {{time}} · {{created}}', {
      n: data.photos.length,
      runs: runs.length,
      time,
      created,
    }),
    sections,
    language,
  );
}
