/**
 * The series report (issue 27: a fruit_id followed over runs, as a report): several stored runs or
 * results files as one time series in one self-contained HTML file, the compare page's "One series"
 * view on paper. The runs are stacked by `stackRuns`; the page has the line chart per fruit_id (and one
 * coloured by each metadata column), a table per run (its date, photos, mean with its 95 % interval,
 * median, range), a table per time point, and every stacked row. The web's compare page (series view)
 * and `mango series --report` write it. Browser-safe: the charts are drawn by `plots-render.ts`, loaded
 * when a report is made. It names no plugin: the figure and its words are the runs' `PlotFields`.
 */
import { escapeHtml, fixed, htmlPage, type ReportSection } from './report.ts';
import {
  compareGroups,
  FRUIT_ID,
  groupingColumns,
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
}

const num = (v: string) => `<td class="num">${v}</td>`;
const range = (low: number | null, high: number | null) => (low === null ? '–' : `${fixed(low)} to ${fixed(high)}`);
/** A table that scrolls in its own box on a narrow screen (the page does not). */
const table = (cls: string, head: string[], rows: string[]) =>
  `<div class="table-wrap"><table class="${cls}"><thead><tr>${head.join('')}</tr></thead><tbody>${rows.join('')}</tbody></table></div>`;

/** One row per run, in the order given: its id, date, photos and the figure's n, mean with its interval, median, range. */
function runsTable(runs: readonly SeriesRun[], data: PlotData): string {
  const words = data.fields.text;
  const rows = runs.map((run) => {
    const d = describeGroup(data.photos.filter((p) => p.meta[RUN_COLUMN] === run.id).map((p) => p.value));
    return (
      `<tr data-run="${escapeHtml(run.id)}"><td><code>${escapeHtml(run.id)}</code></td><td>${escapeHtml(run.created_at)}</td>` +
      `${num(String(run.items.length))}${num(String(d.n))}${num(fixed(d.mean))}${num(range(d.ci_low, d.ci_high))}` +
      `${num(fixed(d.median))}${num(range(d.min, d.max))}</tr>`
    );
  });
  const head = [
    '<th>Run</th>',
    '<th>Run date</th>',
    '<th class="num">Photos</th>',
    '<th class="num">Scored (n)</th>',
    `<th class="num">${escapeHtml(words.mean)}</th>`,
    '<th class="num">95 % interval of the mean</th>',
    '<th class="num">Median</th>',
    '<th class="num">Range</th>',
  ];
  return table('runs', head, rows);
}

/** One row per line and time of the chart (a fruit_id's mean at a day, or a group's): what is plotted, readable. */
function pointsTable(data: PlotData): string {
  const { by, points } = timeSeries(data, null);
  const head = [
    `<th>${by === 'fruit_id' ? FRUIT_ID : 'Series'}</th>`,
    `<th>${escapeHtml(data.time ?? '')}</th>`,
    '<th class="num">n</th>',
    `<th class="num">${escapeHtml(data.fields.text.mean)}</th>`,
    '<th class="num">95 % interval of the mean</th>',
  ];
  const rows = points.map(
    (p) =>
      `<tr data-series="${escapeHtml(p.series)}" data-time="${escapeHtml(p.time)}" data-mean="${p.mean}"><td>${escapeHtml(p.series)}</td><td>${escapeHtml(p.time)}</td>` +
      `${num(String(p.n))}${num(fixed(p.mean))}${num(range(p.ci_low, p.ci_high))}</tr>`,
  );
  return table('points', head, rows);
}

/** Every stacked row: its run, photo, metadata and figure (the series CSV as a table). */
function rowsTable(data: PlotData): string {
  const columns = data.columns.filter((c) => c !== RUN_COLUMN && c !== RUN_DATE_COLUMN);
  const head = [
    '<th>Run</th>',
    '<th>Photo</th>',
    ...columns.map((c) => `<th>${escapeHtml(c)}</th>`),
    `<th class="num">${escapeHtml(data.fields.text.value)}</th>`,
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
  // the lines per fruit_id (or per group), then coloured by each metadata column the rows have
  const columns = groupingColumns(data).filter((c) => ![RUN_COLUMN, RUN_DATE_COLUMN, SERIES_TIME_COLUMN].includes(c));
  const charts = [null, ...columns.sort(compareGroups)]
    .map((column) => timeChart(data, column, column ? { subtitle: `coloured by ${column}` } : {}))
    .filter((c): c is Chart => c !== null);
  const figures: string[] = [];
  for (const [i, chart] of charts.entries()) figures.push(await chartFigure(chart, `plot-series-${i}`));
  const byFruit = timeSeries(data, null).by === 'fruit_id';
  const sections: ReportSection[] = [
    { heading: 'Runs', html: runsTable(runs, data) },
    {
      heading: 'Series',
      html:
        `<p class="axis">${escapeHtml(
          byFruit
            ? `Each fruit_id is one line over ${data.time}.`
            : `No photo has a fruit_id: one line per group over ${data.time}.`,
        )}${data.time === SERIES_TIME_COLUMN ? ' The time of a photo without a day is its run’s date.' : ''}</p>` +
        `<div class="plots">${figures.join('\n')}</div>`,
    },
    { heading: 'Points of the series', html: pointsTable(data) },
    { heading: 'Rows', html: rowsTable(data) },
  ];
  const title = options.title ?? `Series report – ${runs.length} runs`;
  const created = options.created_at ?? new Date().toISOString();
  return htmlPage(
    title,
    `Mango Bruise Tracker · ${data.photos.length} photo(s) of ${runs.length} run(s) over ${data.time} · ${created}`,
    sections,
  );
}
