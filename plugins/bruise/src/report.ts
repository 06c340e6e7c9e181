/**
 * The bruise run's report (issue 24: the plugin writes its sections; core/src/report.ts the page):
 * the summary statistics, a histogram of bruise % over the photos, the plots of the run (core's
 * plots.ts, drawn to inline SVG) with each group's figures in a table, the per-photo table, the
 * photo-quality checks and the fruit with their grades; the page adds the overlay thumbnails and the
 * provenance. `mango report` and a stored run's `export?format=html` write it from the same results
 * file. Browser-safe: no Node imports.
 */
import { MangoError } from '@mango/core';
import { escapeHtml, fixed, reportPage, type ReportSection } from '@mango/core/report';
import { histogramBins, summaryStats, type ResultsFile, type SummaryStats } from '@mango/core/results';
import {
  groupingColumns,
  groupStats,
  NO_GROUP,
  plotData,
  runCharts,
  groupChart,
  type Chart,
  type PlotData,
} from '@mango/core/plots';
import { bruiseFiguresOf, fruitRows } from './tables.ts';
import { BRUISE_PLOTS } from './plots.ts';
import { lotSummary } from './grades/index.ts';
import { isBruiseFigures } from './results.ts';

/** The bruise % over which the report counts a photo (the run page lets the user set it). */
export const DEFAULT_REPORT_THRESHOLD = 5;

function statsTable(s: SummaryStats): string {
  const rows: [string, string][] = [
    ['Photos (n)', String(s.n)],
    ['Mean bruise %', fixed(s.mean)],
    ['Median bruise %', fixed(s.median)],
    ['90th percentile bruise %', fixed(s.p90)],
    [`Share over ${s.threshold} %`, s.share_over === null ? '–' : `${(100 * s.share_over).toFixed(1)} %`],
  ];
  return `<table class="stats">${rows.map(([k, v]) => `<tr><th>${k}</th><td>${v}</td></tr>`).join('')}</table>`;
}

function histogram(values: number[]): string {
  const bins = histogramBins(values);
  const top = Math.max(1, ...bins.map((b) => b.count));
  const bars = bins
    .map(
      (b) =>
        `<div class="bin" title="${b.count} photo(s) with bruise ${b.label} %"><span class="count">${b.count}</span>` +
        `<span class="bar" style="height:${((100 * b.count) / top).toFixed(1)}%"></span><span class="label">${b.label}</span></div>`,
    )
    .join('');
  return `<div class="histogram" role="img" aria-label="Histogram of bruise % over ${values.length} photos">${bars}</div><p class="axis">bruise % of the photo (bins); bar height: number of photos</p>`;
}

/**
 * One row per fruit: its bruise % and, when the run had a scale, its areas in cm²; when it was
 * graded, its grade, then the lot summary (fruit per grade, share accepted) under the table. Columns
 * no fruit of the run has are left out.
 */
function fruitSection(items: ReturnType<typeof bruiseFiguresOf>): string {
  const rows = fruitRows(items);
  if (rows.length === 0) return '<p>No fruit found in these photos.</p>';
  const scaled = rows.some((r) => typeof r.fruit.area_cm2 === 'number');
  const graded = rows.some((r) => Boolean(r.fruit.grade));
  const num = (v: string) => `<td class="num">${v}</td>`;
  const head =
    '<tr><th>Photo</th><th class="num">Fruit</th><th class="num">Fruit pixels</th><th class="num">Bruise %</th><th class="num">Lesions</th>' +
    (scaled ? '<th class="num">Fruit cm²</th><th class="num">Bruise cm²</th>' : '') +
    (graded ? '<th>Grade</th>' : '') +
    '</tr>';
  const body = rows
    .map(
      ({ image, index, fruit }) =>
        `<tr><td>${escapeHtml(image.filename)}</td>${num(String(index))}${num(String(fruit.pixels))}${num(fixed(fruit.bruise_percent))}${num(String(fruit.lesion_count))}` +
        (scaled ? num(fixed(fruit.area_cm2)) + num(fixed(fruit.bruise_area_cm2)) : '') +
        (graded
          ? `<td>${escapeHtml(fruit.grade ?? '–')}${fruit.grade_accepted === false ? ' (not accepted)' : ''}</td>`
          : '') +
        '</tr>',
    )
    .join('');
  let lot = '';
  if (graded) {
    const l = lotSummary(items);
    const counts = l.counts
      .map(
        (c) =>
          `<tr><th>${escapeHtml(c.grade)}${c.accepted ? '' : ' (not accepted)'}</th><td class="num">${c.count}</td></tr>`,
      )
      .join('');
    const share = l.accepted_share === null ? '–' : `${l.accepted} (${(100 * l.accepted_share).toFixed(1)} %)`;
    lot =
      `<h3>Lot (${escapeHtml(l.grades ?? 'grades')}): ${l.graded} of ${l.fruit_count} fruit graded</h3>` +
      `<table class="stats lot">${counts}<tr><th>Accepted</th><td class="num">${share}</td></tr></table>`;
  }
  return `<table class="fruit">${head}${body}</table>${lot}`;
}

/**
 * The photo-quality checks: one row per flag a photo raised (its message: why, in words and
 * figures), and how many photos were checked and passed.
 */
function qualitySection(file: ResultsFile): string {
  const checked = file.photos.filter((p) => isBruiseFigures(p.result) && p.result.quality);
  if (checked.length === 0) return '<p>These results hold no photo-quality checks.</p>';
  const rows = checked.flatMap((photo) =>
    isBruiseFigures(photo.result)
      ? (photo.result.quality?.flags ?? []).map(
          (f) =>
            `<tr><td>${escapeHtml(photo.filename)}</td><td><span class="flag">${escapeHtml(f.id)}</span></td><td>${escapeHtml(f.message)}</td><td class="num">${escapeHtml(String(f.value))}</td><td class="num">${escapeHtml(String(f.threshold))}</td></tr>`,
        )
      : [],
  );
  const flagged = checked.filter((p) => isBruiseFigures(p.result) && (p.result.quality?.flags.length ?? 0) > 0);
  const head = `<p class="quality-summary">${checked.length - flagged.length} of ${checked.length} photo(s) passed every check; ${flagged.length} flagged.</p>`;
  if (rows.length === 0) return head;
  return `${head}<table class="quality"><thead><tr><th>Photo</th><th>Flag</th><th>Why</th><th class="num">Value</th><th class="num">Threshold</th></tr></thead><tbody>${rows.join('')}</tbody></table>`;
}

/** Each group's figures under its box plot: n, mean with its 95 % interval, median, quartiles, range. */
export function groupTableHtml(data: PlotData, column: string | null): string {
  const rows = groupStats(data.photos, column)
    .map(
      (g) =>
        `<tr><th>${escapeHtml(column ? g.group : 'all photos')}</th><td class="num">${g.n}</td><td class="num">${fixed(g.mean)}</td>` +
        `<td class="num">${g.ci_low === null ? '–' : `${fixed(g.ci_low)} to ${fixed(g.ci_high)}`}</td>` +
        `<td class="num">${fixed(g.median)}</td><td class="num">${fixed(g.q1)} to ${fixed(g.q3)}</td>` +
        `<td class="num">${fixed(g.min)} to ${fixed(g.max)}</td></tr>`,
    )
    .join('');
  return (
    `<table class="groups"><thead><tr><th>${escapeHtml(column ?? 'Group')}</th><th class="num">n</th><th class="num">Mean bruise %</th>` +
    `<th class="num">95 % interval of the mean</th><th class="num">Median</th><th class="num">Quartiles</th><th class="num">Range</th></tr></thead><tbody>${rows}</tbody></table>`
  );
}

/**
 * The plots of a results file as HTML: bruise % by each metadata column (or of all photos when there
 * is none) with its group table, the time series when a day or date column exists, and lesion area
 * against fruit area; every chart an inline SVG with its title and description (plots-render.ts).
 */
export async function reportPlotsHtml(file: Pick<ResultsFile, 'photos'>): Promise<string> {
  const { chartFigure } = await import('@mango/core/plots-render');
  const data = plotData(file.photos, BRUISE_PLOTS);
  if (data.photos.length === 0) return '';
  const columns = groupingColumns(data);
  const first = columns[0] ?? null;
  const figure = async (chart: Chart, id: string, after = '') => (await chartFigure(chart, id)) + after;
  const parts: string[] = [];
  const byColumn = columns.length ? columns : [null];
  for (const [i, column] of byColumn.entries())
    parts.push(await figure(groupChart(data, column), `plot-groups-${i}`, groupTableHtml(data, column)));
  for (const chart of runCharts(data, first).filter((c) => c.id !== 'groups'))
    parts.push(await figure(chart, `plot-${chart.id}`));
  const none = data.photos.some((p) => columns.some((c) => (p.meta[c] ?? '').trim() === ''));
  return (
    `<div class="plots">${parts.join('\n')}</div>` +
    (none ? `<p class="axis">Photos without a value in a column are in the group ${NO_GROUP}.</p>` : '') +
    '<p class="axis">Boxes: quartiles, whiskers to 1.5 times the interquartile range; dots: photos; diamonds and bars: each group\'s mean with its 95 % confidence interval (Student\'s t).</p>'
  );
}

/** The report of a bruise results file as one HTML document. */
/**
 * A photo whose masks a person corrected (issue 28): its figures in force are the corrected ones,
 * marked "corrected" with the model's bruise % beside them.
 */
const correctedMark = (r: { corrected?: boolean; model_bruise_percent?: number }) =>
  r.corrected
    ? ` <span class="corrected">corrected</span> <span class="model">(model: ${fixed(r.model_bruise_percent)} %)</span>`
    : '';

export function reportHtml(
  file: ResultsFile,
  options: { threshold?: number; title?: string; /** the plots section (reportPlotsHtml) */ plots?: string } = {},
): string {
  if (file.photos.some((p) => !isBruiseFigures(p.result))) {
    throw new MangoError('INVALID_INPUT', 'the report covers bruise runs; this results file holds another analysis');
  }
  const threshold = options.threshold ?? DEFAULT_REPORT_THRESHOLD;
  const items = bruiseFiguresOf(file);
  const values = items.map((r) => r.bruise_percent);
  const p = file.provenance;
  const rows = file.photos
    .map((photo) => {
      const r = photo.result;
      if (!isBruiseFigures(r)) return '';
      const colour = r.colour_difference === undefined ? r.severity : r.colour_difference;
      return `<tr><td>${escapeHtml(photo.filename)}</td><td class="num">${r.fruits.length}</td><td class="num">${r.total_mango_pixels}</td><td class="num">${fixed(r.bruise_percent)}${correctedMark(r)}</td><td class="num">${fixed(r.non_bruise_percent)}</td><td class="num">${r.fruits.reduce((a, f) => a + f.lesion_count, 0)}</td><td class="num">${fixed(colour, 1)}</td><td>${escapeHtml(r.method)}</td><td><code>${escapeHtml(photo.sha256.slice(0, 12))}</code></td></tr>`;
    })
    .join('');
  const sections: (ReportSection | null)[] = [
    { heading: 'Summary', html: statsTable(summaryStats(values, threshold)) },
    { heading: 'Histogram of bruise %', html: histogram(values) },
    options.plots ? { heading: 'Plots', html: options.plots } : null,
    {
      heading: 'Photos',
      html: `<table class="photos"><thead><tr><th>Photo</th><th class="num">Fruit</th><th class="num">Fruit pixels</th><th class="num">Bruise %</th><th class="num">Non-bruise %</th><th class="num">Lesions</th><th class="num">Colour difference (ΔE00)</th><th>Method</th><th>sha256</th></tr></thead><tbody>${rows}</tbody></table>`,
    },
    { heading: 'Photo quality', html: qualitySection(file) },
    { heading: 'Fruit', html: fruitSection(items) },
  ];
  return reportPage(file, {
    title: options.title ?? `Bruise report${p.run_id ? ` – run ${p.run_id}` : ''}`,
    sections,
    caption: (photo) =>
      isBruiseFigures(photo.result) ? ` – ${fixed(photo.result.bruise_percent)} %${correctedMark(photo.result)}` : '',
  });
}

/** The report with its plots (what `mango report` and a stored run's HTML export write). */
export async function reportWithPlots(file: ResultsFile, options: { threshold?: number; title?: string } = {}) {
  if (file.photos.some((p) => !isBruiseFigures(p.result))) return reportHtml(file, options);
  return reportHtml(file, { ...options, plots: await reportPlotsHtml(file) });
}
