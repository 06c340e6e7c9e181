/**
 * The run report: one self-contained HTML file (no script, no external resource; the thumbnails are
 * data URLs) with the summary statistics, a histogram of bruise % over the photos, the per-photo
 * table, the overlay thumbnails and the provenance; `reportWithPlots` adds the plots of the run
 * (plots.ts, drawn to inline SVG) with each group's figures in a table. `mango report` and a stored
 * run's `export?format=html` write it from the same results file. Browser-safe: no Node imports.
 */
import { lotSummary } from './grades/index.ts';
import {
  bruiseFiguresOf,
  fruitRows,
  histogramBins,
  isBruiseFigures,
  summaryStats,
  type ResultsFile,
  type SummaryStats,
} from './results.ts';
import { MangoError } from './errors.ts';
import {
  groupingColumns,
  groupStats,
  NO_GROUP,
  plotData,
  runCharts,
  groupChart,
  type Chart,
  type PlotData,
} from './plots.ts';

/** The bruise % over which the report counts a photo (the run page lets the user set it). */
export const DEFAULT_REPORT_THRESHOLD = 5;

const escapeHtml = (s: string) =>
  s.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]!);

const fixed = (v: number | null | undefined, d = 2) =>
  typeof v === 'number' && Number.isFinite(v) ? v.toFixed(d) : '–';

/** Only data:image URLs go into the page (a results file is input: nothing in it may load anything). */
const safeImage = (url: string | null) =>
  url && /^data:image\/(jpeg|png);base64,[A-Za-z0-9+/=]+$/.test(url) ? url : null;

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

const STYLE = `
body{font:14px/1.45 system-ui,-apple-system,Segoe UI,Roboto,sans-serif;color:#1f2a1f;margin:2rem auto;max-width:1100px;padding:0 1rem}
h1{font-size:1.6rem;margin-bottom:.2rem}h2{font-size:1.15rem;margin-top:2rem;border-bottom:2px solid #f0a830;padding-bottom:.2rem}
.sub{color:#5a6b5a;margin-top:0}.corrected{background:#e6f2e0;color:#2d5a1f;border-radius:3px;padding:0 .3rem;font-size:12px}.model{color:#5a6b5a;font-size:12px}table{border-collapse:collapse}th,td{padding:.3rem .6rem;border-bottom:1px solid #e3e8e3;text-align:left;vertical-align:top}
td.num,th.num{text-align:right;font-variant-numeric:tabular-nums}.stats th{font-weight:600;color:#3d4d3d}
.histogram{display:flex;align-items:flex-end;gap:4px;height:220px;border-bottom:1px solid #888;padding-top:1.2rem}
.bin{flex:1;display:flex;flex-direction:column;justify-content:flex-end;align-items:center;height:100%;position:relative}
.bar{display:block;width:100%;background:#e0892b;border-radius:3px 3px 0 0;min-height:1px}.count{font-size:12px;color:#333}
.label{position:absolute;bottom:-1.4rem;font-size:11px;color:#555;white-space:nowrap}.axis{margin-top:1.8rem;color:#5a6b5a;font-size:12px}
.gallery{display:grid;grid-template-columns:repeat(auto-fill,minmax(320px,1fr));gap:12px}.pair{display:flex;gap:4px}.pair img{width:50%;object-fit:contain}.gallery figure{margin:0;border:1px solid #e3e8e3;border-radius:6px;padding:6px}
.gallery img{max-width:100%;display:block;margin:auto}.gallery figcaption{font-size:12px;margin-top:4px;word-break:break-all}
.flag{display:inline-block;background:#fde7c2;color:#7a4100;border-radius:4px;padding:0 .4rem;font-size:12px;white-space:nowrap}
pre{background:#f5f7f5;padding:.8rem;border-radius:6px;overflow:auto;font-size:12px}code{word-break:break-all}
.plots figure{margin:1rem 0;overflow-x:auto}.plots figcaption{font-size:12px;color:#5a6b5a}.plots svg{max-width:100%;height:auto}
@media print{.gallery{grid-template-columns:repeat(4,1fr)}}`;

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
  const { chartSvg } = await import('./plots-render.ts');
  const data = plotData(file.photos);
  if (data.photos.length === 0) return '';
  const columns = groupingColumns(data);
  const first = columns[0] ?? null;
  const figure = async (chart: Chart, id: string, after = '') =>
    // inline SVG needs no namespace declarations (and the report names no address at all)
    `<figure>${(await chartSvg(chart, id)).replace(/ xmlns(:xlink)?="[^"]*"/g, '')}<figcaption>${escapeHtml(chart.description)}</figcaption></figure>${after}`;
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
  const title = options.title ?? `Bruise report${p.run_id ? ` – run ${p.run_id}` : ''}`;
  const rows = file.photos
    .map((photo) => {
      const r = photo.result;
      if (!isBruiseFigures(r)) return '';
      const colour = r.colour_difference === undefined ? r.severity : r.colour_difference;
      return `<tr><td>${escapeHtml(photo.filename)}</td><td class="num">${r.fruits.length}</td><td class="num">${r.total_mango_pixels}</td><td class="num">${fixed(r.bruise_percent)}${correctedMark(r)}</td><td class="num">${fixed(r.non_bruise_percent)}</td><td class="num">${r.fruits.reduce((a, f) => a + f.lesion_count, 0)}</td><td class="num">${fixed(colour, 1)}</td><td>${escapeHtml(r.method)}</td><td><code>${escapeHtml(photo.sha256.slice(0, 12))}</code></td></tr>`;
    })
    .join('');
  const gallery = file.photos
    .map((photo) => {
      const overlay = safeImage(photo.overlay_thumbnail);
      const original = safeImage(photo.photo_thumbnail ?? null);
      const name = escapeHtml(photo.filename);
      const pct = isBruiseFigures(photo.result)
        ? ` – ${fixed(photo.result.bruise_percent)} %${correctedMark(photo.result)}`
        : '';
      if (!overlay) return '';
      const img = (src: string, alt: string) => `<img src="${src}" alt="${alt} ${name}">`;
      return `<figure><div class="pair">${original ? img(original, 'photo') : ''}${img(overlay, 'overlay of')}</div><figcaption>${name}${pct}</figcaption></figure>`;
    })
    .join('');
  const provRows: [string, string][] = [
    ['Software', `${p.app} ${p.app_version} (${p.source === 'api' ? 'stored run' : 'command line'})`],
    ['Created', p.created_at],
    ['Method', `${p.method ?? '–'} (ran: ${p.method_used ?? '–'})`],
    ['Plugin version', p.plugin_version ?? '–'],
    ['Model', p.model_id ? `${p.model_id} sha256 ${p.model_sha256 ?? '?'}` : 'none (classical)'],
  ];
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1">
<meta http-equiv="Content-Security-Policy" content="default-src 'none'; img-src data:; style-src 'unsafe-inline'">
<title>${escapeHtml(title)}</title><style>${STYLE}</style></head>
<body>
<h1>${escapeHtml(title)}</h1>
<p class="sub">Mango Bruise Tracker · ${items.length} photo(s) · ${escapeHtml(p.created_at)}</p>
<h2>Summary</h2>
${statsTable(summaryStats(values, threshold))}
<h2>Histogram of bruise %</h2>
${histogram(values)}
${options.plots ? `<h2>Plots</h2>\n${options.plots}` : ''}
<h2>Photos</h2>
<table class="photos"><thead><tr><th>Photo</th><th class="num">Fruit</th><th class="num">Fruit pixels</th><th class="num">Bruise %</th><th class="num">Non-bruise %</th><th class="num">Lesions</th><th class="num">Colour difference (ΔE00)</th><th>Method</th><th>sha256</th></tr></thead><tbody>${rows}</tbody></table>
<h2>Photo quality</h2>
${qualitySection(file)}
<h2>Fruit</h2>
${fruitSection(items)}
<h2>Overlays</h2>
<div class="gallery">${gallery || '<p>No overlay thumbnails in this results file.</p>'}</div>
<h2>Provenance</h2>
<table class="stats">${provRows.map(([k, v]) => `<tr><th>${k}</th><td>${escapeHtml(v)}</td></tr>`).join('')}</table>
<p>Options and inputs (sha256 of every file read):</p>
<pre>${escapeHtml(JSON.stringify({ options: p.options, inputs: p.inputs }, null, 2))}</pre>
</body></html>
`;
}

/** The report with its plots (what `mango report` and a stored run's HTML export write). */
export async function reportWithPlots(file: ResultsFile, options: { threshold?: number; title?: string } = {}) {
  if (file.photos.some((p) => !isBruiseFigures(p.result))) return reportHtml(file, options);
  return reportHtml(file, { ...options, plots: await reportPlotsHtml(file) });
}
