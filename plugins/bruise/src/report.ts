/**
 * The bruise run's report (issue 24: the plugin writes its sections; core/src/report.ts the page):
 * the summary statistics, a histogram of bruise % over the photos, the plots of the run (core's
 * plots.ts, drawn to inline SVG) with each group's figures in a table, the per-photo table, the
 * photo-quality checks and the fruit with their grades; the page adds the overlay thumbnails and the
 * provenance. `mango report` and a stored run's `export?format=html` write it from the same results
 * file. In English or Thai (`lang`; its words' Thai are BRUISE_TH, with the charts'); the figures are
 * the same in both. Browser-safe: no Node imports.
 */
import { MangoError } from '@mango/core';
import {
  escapeHtml,
  fixed,
  reportLanguageOf,
  reportPage,
  ENGLISH_PAGE,
  type PageLanguage,
  type ReportSection,
} from '@mango/core/report';
import type { ReportLanguage, Translate } from '@mango/core/i18n';
import { histogramBins, summaryStats, type ResultsFile, type SummaryStats } from '@mango/core/results';
import {
  groupingColumns,
  groupStats,
  NO_GROUP,
  plotData,
  runCharts,
  groupChart,
  intervalNote,
  type Chart,
  type PlotData,
} from '@mango/core/plots';
import { bruiseFiguresOf, fruitRows } from './tables.ts';
import { BRUISE_PLOTS } from './plots.ts';
import { lotSummary } from './grades/index.ts';
import { flagReason, isBruiseFigures } from './results.ts';
import { BRUISE_TH, METHOD_NOTE } from './th.ts';

/** The bruise % over which the report counts a photo (the run page lets the user set it). */
export const DEFAULT_REPORT_THRESHOLD = 5;

function statsTable(s: SummaryStats, t: Translate): string {
  const rows: [string, string][] = [
    [t('Photos (n)'), String(s.n)],
    [t('Mean bruise %'), fixed(s.mean)],
    [t('Median bruise %'), fixed(s.median)],
    [t('90th percentile bruise %'), fixed(s.p90)],
    [
      t('Share over {{threshold}} %', { threshold: s.threshold }),
      s.share_over === null ? '–' : `${(100 * s.share_over).toFixed(1)} %`,
    ],
  ];
  return `<table class="stats">${rows.map(([k, v]) => `<tr><th>${escapeHtml(k)}</th><td>${v}</td></tr>`).join('')}</table>`;
}

function histogram(values: number[], t: Translate): string {
  const bins = histogramBins(values);
  const top = Math.max(1, ...bins.map((b) => b.count));
  const bars = bins
    .map(
      (b) =>
        `<div class="bin" title="${escapeHtml(t('{{count}} photo(s) with bruise {{label}} %', { count: b.count, label: b.label }))}"><span class="count">${b.count}</span>` +
        `<span class="bar" style="height:${((100 * b.count) / top).toFixed(1)}%"></span><span class="label">${b.label}</span></div>`,
    )
    .join('');
  const label = t('Histogram of bruise % over {{n}} photos', { n: values.length });
  const axis = t('bruise % of the photo (bins); bar height: number of photos');
  return `<div class="histogram" role="img" aria-label="${escapeHtml(label)}">${bars}</div><p class="axis">${escapeHtml(axis)}</p>`;
}

/**
 * One row per fruit: its bruise % and, when the run had a scale, its areas in cm²; when it was
 * graded, its grade, then the lot summary (fruit per grade, share accepted) under the table. Columns
 * no fruit of the run has are left out.
 */
function fruitSection(items: ReturnType<typeof bruiseFiguresOf>, t: Translate): string {
  const rows = fruitRows(items);
  if (rows.length === 0) return `<p>${escapeHtml(t('No fruit found in these photos.'))}</p>`;
  const th = (english: string, cls = 'num') => `<th${cls ? ` class="${cls}"` : ''}>${escapeHtml(t(english))}</th>`;
  const notAccepted = ` (${escapeHtml(t('not accepted'))})`;
  const scaled = rows.some((r) => typeof r.fruit.area_cm2 === 'number');
  const graded = rows.some((r) => Boolean(r.fruit.grade));
  const num = (v: string) => `<td class="num">${v}</td>`;
  const head =
    `<tr>${th('Photo', '')}${th('Fruit')}${th('Fruit pixels')}${th('Bruise %')}${th('Lesions')}` +
    (scaled ? th('Fruit cm²') + th('Bruise cm²') : '') +
    (graded ? th('Grade', '') : '') +
    '</tr>';
  const body = rows
    .map(
      ({ image, index, fruit }) =>
        `<tr><td>${escapeHtml(image.filename)}</td>${num(String(index))}${num(String(fruit.pixels))}${num(fixed(fruit.bruise_percent))}${num(String(fruit.lesion_count))}` +
        (scaled ? num(fixed(fruit.area_cm2)) + num(fixed(fruit.bruise_area_cm2)) : '') +
        (graded
          ? `<td>${escapeHtml(fruit.grade ?? '–')}${fruit.grade_accepted === false ? notAccepted : ''}</td>`
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
          `<tr><th>${escapeHtml(c.grade)}${c.accepted ? '' : notAccepted}</th><td class="num">${c.count}</td></tr>`,
      )
      .join('');
    const share = l.accepted_share === null ? '–' : `${l.accepted} (${(100 * l.accepted_share).toFixed(1)} %)`;
    lot =
      `<h3>${escapeHtml(t('Lot ({{grades}}): {{graded}} of {{count}} fruit graded', { grades: l.grades ?? t('grades'), graded: l.graded, count: l.fruit_count }))}</h3>` +
      `<table class="stats lot">${counts}<tr>${th('Accepted', '')}<td class="num">${share}</td></tr></table>`;
  }
  return `<table class="fruit">${head}${body}</table>${lot}`;
}

/**
 * The photo-quality checks: one row per flag a photo raised (its message: why, in words and
 * figures), and how many photos were checked and passed.
 */
function qualitySection(file: ResultsFile, t: Translate, english: boolean): string {
  const checked = file.photos.filter((p) => isBruiseFigures(p.result) && p.result.quality);
  if (checked.length === 0) return `<p>${escapeHtml(t('These results hold no photo-quality checks.'))}</p>`;
  const rows = checked.flatMap((photo) =>
    isBruiseFigures(photo.result)
      ? (photo.result.quality?.flags ?? []).map(
          (f) =>
            `<tr><td>${escapeHtml(photo.filename)}</td><td><span class="flag">${escapeHtml(f.id)}</span></td><td>${escapeHtml(flagReason(f, t, english))}</td><td class="num">${escapeHtml(String(f.value))}</td><td class="num">${escapeHtml(String(f.threshold))}</td></tr>`,
        )
      : [],
  );
  const flagged = checked.filter((p) => isBruiseFigures(p.result) && (p.result.quality?.flags.length ?? 0) > 0);
  const summary = t('{{passed}} of {{n}} photo(s) passed every check; {{flagged}} flagged.', {
    passed: checked.length - flagged.length,
    n: checked.length,
    flagged: flagged.length,
  });
  const head = `<p class="quality-summary">${escapeHtml(summary)}</p>`;
  if (rows.length === 0) return head;
  const th = (english: string, cls = '') => `<th${cls ? ` class="${cls}"` : ''}>${escapeHtml(t(english))}</th>`;
  return `${head}<table class="quality"><thead><tr>${th('Photo')}${th('Flag')}${th('Why')}${th('Value', 'num')}${th('Threshold', 'num')}</tr></thead><tbody>${rows.join('')}</tbody></table>`;
}

/** `low to high` in the reader's language (the same figures in each). */
const rangeIn = (t: Translate) => (low: number | null, high: number | null) =>
  escapeHtml(t('{{low}} to {{high}}', { low: fixed(low), high: fixed(high) }));

/** Each group's figures under its box plot: n, mean with its 95 % interval, median, quartiles, range. */
export function groupTableHtml(data: PlotData, column: string | null, t: Translate = ENGLISH_PAGE.text): string {
  const range = rangeIn(t);
  const th = (english: string) => `<th class="num">${escapeHtml(t(english))}</th>`;
  const rows = groupStats(data.photos, column, data.fields.bounds ?? null)
    .map(
      (g) =>
        `<tr><th>${escapeHtml(column ? (g.group === NO_GROUP ? t(NO_GROUP) : g.group) : t('all photos'))}</th><td class="num">${g.n}</td><td class="num">${fixed(g.mean)}</td>` +
        `<td class="num">${g.ci_low === null ? '–' : range(g.ci_low, g.ci_high)}</td>` +
        `<td class="num">${fixed(g.median)}</td><td class="num">${range(g.q1, g.q3)}</td>` +
        `<td class="num">${range(g.min, g.max)}</td></tr>`,
    )
    .join('');
  return (
    `<table class="groups"><thead><tr><th>${escapeHtml(column ?? t('Group'))}</th><th class="num">n</th>${th('Mean bruise %')}` +
    `${th('95 % interval of the mean')}${th('Median')}${th('Quartiles')}${th('Range')}</tr></thead><tbody>${rows}</tbody></table>`
  );
}

/**
 * The plots of a results file as HTML: bruise % by each metadata column (or of all photos when there
 * is none) with its group table, the time series when a day or date column exists, and lesion area
 * against fruit area; every chart an inline SVG with its title and description (plots-render.ts).
 */
export async function reportPlotsHtml(
  file: Pick<ResultsFile, 'photos'>,
  t: Translate = ENGLISH_PAGE.text,
): Promise<string> {
  const { chartFigure } = await import('@mango/core/plots-render');
  const data = plotData(file.photos, BRUISE_PLOTS);
  if (data.photos.length === 0) return '';
  const columns = groupingColumns(data);
  const first = columns[0] ?? null;
  const figure = async (chart: Chart, id: string, after = '') => (await chartFigure(chart, id)) + after;
  const parts: string[] = [];
  const byColumn = columns.length ? columns : [null];
  for (const [i, column] of byColumn.entries())
    parts.push(
      await figure(groupChart(data, column, { text: t }), `plot-groups-${i}`, groupTableHtml(data, column, t)),
    );
  for (const chart of runCharts(data, first, { text: t }).filter((c) => c.id !== 'groups'))
    parts.push(await figure(chart, `plot-${chart.id}`));
  const none = data.photos.some((p) => columns.some((c) => (p.meta[c] ?? '').trim() === ''));
  return (
    `<div class="plots">${parts.join('\n')}</div>` +
    (none
      ? `<p class="axis">${escapeHtml(t('Photos without a value in a column are in the group {{group}}.', { group: t(NO_GROUP) }))}</p>`
      : '') +
    `<p class="axis">${escapeHtml(`${t(METHOD_NOTE)} ${intervalNote(BRUISE_PLOTS, t)}`)}</p>`
  );
}

/** The report of a bruise results file as one HTML document. */
/**
 * A photo whose masks a person corrected (issue 28): its figures in force are the corrected ones,
 * marked "corrected" with the model's bruise % beside them.
 */
const correctedMark = (r: { corrected?: boolean; model_bruise_percent?: number }, t: Translate) =>
  r.corrected
    ? ` <span class="corrected">${escapeHtml(t('corrected'))}</span> <span class="model">(${escapeHtml(t('model: {{value}} %', { value: fixed(r.model_bruise_percent) }))})</span>`
    : '';

export function reportHtml(
  file: ResultsFile,
  options: {
    threshold?: number;
    title?: string;
    /** the plots section (reportPlotsHtml, in the same language) */ plots?: string;
    /** the page's language (`bruiseReportLanguage`; default: English) */ language?: PageLanguage;
  } = {},
): string {
  const language = options.language ?? ENGLISH_PAGE;
  const t = language.text;
  if (file.photos.some((p) => !isBruiseFigures(p.result))) {
    throw new MangoError('INVALID_INPUT', 'the report covers bruise runs; this results file holds another analysis');
  }
  const h = (english: string) => escapeHtml(t(english));
  const th = (english: string, cls = 'num') => `<th${cls ? ` class="${cls}"` : ''}>${escapeHtml(t(english))}</th>`;
  const threshold = options.threshold ?? DEFAULT_REPORT_THRESHOLD;
  const items = bruiseFiguresOf(file);
  const values = items.map((r) => r.bruise_percent);
  const p = file.provenance;
  const rows = file.photos
    .map((photo) => {
      const r = photo.result;
      if (!isBruiseFigures(r)) return '';
      const colour = r.colour_difference === undefined ? r.severity : r.colour_difference;
      return `<tr><td>${escapeHtml(photo.filename)}</td><td class="num">${r.fruits.length}</td><td class="num">${r.total_mango_pixels}</td><td class="num">${fixed(r.bruise_percent)}${correctedMark(r, t)}</td><td class="num">${fixed(r.non_bruise_percent)}</td><td class="num">${r.fruits.reduce((a, f) => a + f.lesion_count, 0)}</td><td class="num">${fixed(colour, 1)}</td><td>${escapeHtml(r.method)}</td><td><code>${escapeHtml(photo.sha256.slice(0, 12))}</code></td></tr>`;
    })
    .join('');
  const sections: (ReportSection | null)[] = [
    { heading: h('Summary'), html: statsTable(summaryStats(values, threshold), t) },
    { heading: h('Histogram of bruise %'), html: histogram(values, t) },
    options.plots ? { heading: h('Plots'), html: options.plots } : null,
    {
      heading: h('Photos'),
      html: `<table class="photos"><thead><tr>${th('Photo', '')}${th('Fruit')}${th('Fruit pixels')}${th('Bruise %')}${th('Non-bruise %')}${th('Lesions')}${th('Colour difference (ΔE00)')}${th('Method', '')}<th>sha256</th></tr></thead><tbody>${rows}</tbody></table>`,
    },
    { heading: h('Photo quality'), html: qualitySection(file, t, language.lang === 'en') },
    { heading: h('Fruit'), html: fruitSection(items, t) },
  ];
  return reportPage(file, {
    title: options.title ?? (p.run_id ? t('Bruise report – run {{id}}', { id: p.run_id }) : t('Bruise report')),
    sections,
    caption: (photo) =>
      isBruiseFigures(photo.result)
        ? ` – ${fixed(photo.result.bruise_percent)} %${correctedMark(photo.result, t)}`
        : '',
    language,
  });
}

/** The language of a bruise report: core's words and the plugin's (BRUISE_TH), and the Thai font. */
export const bruiseReportLanguage = (lang: ReportLanguage = 'en') => reportLanguageOf(lang, BRUISE_TH);

/** The report with its plots (what `mango report` and a stored run's HTML export write). */
export async function reportWithPlots(
  file: ResultsFile,
  options: { threshold?: number; title?: string; lang?: ReportLanguage } = {},
) {
  const language = await bruiseReportLanguage(options.lang);
  if (file.photos.some((p) => !isBruiseFigures(p.result))) return reportHtml(file, { ...options, language });
  return reportHtml(file, { ...options, language, plots: await reportPlotsHtml(file, language.text) });
}
