/**
 * The run report's page, once for every plugin that declares a report (issue 24: core keeps the
 * machinery, each plugin writes its own sections): one self-contained HTML file (no script, no
 * external resource; the thumbnails are data URLs) with the plugin's sections, then the overlay
 * thumbnails and the provenance. The bruise plugin's report (plugins/bruise/src/report.ts) is what
 * `mango report` and a stored run's `export?format=html` write. Browser-safe: no Node imports.
 *
 * A report is written in English or Thai (`ReportLanguage`, i18n.ts): the page's and the plugin's
 * words are translated, the figures are written the same in both (the same digits and decimals). A
 * Thai page embeds the Thai subset of the web app's webfont (Sarabun, report-font.ts) as data: URLs,
 * so Thai glyphs show on a machine with no Thai font and nothing is loaded.
 */
import type { ResultsFile, ResultsPhoto } from './results.ts';
import { translator, type ReportLanguage, type Translate } from './i18n.ts';
import { REPORT_TH } from './report-th.ts';

export { REPORT_TH };

export const escapeHtml = (s: string) =>
  s.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]!);

export const fixed = (v: number | null | undefined, d = 2) =>
  typeof v === 'number' && Number.isFinite(v) ? v.toFixed(d) : '–';

/** Only data:image URLs go into the page (a results file is input: nothing in it may load anything). */
export const safeImage = (url: string | null) =>
  url && /^data:image\/(jpeg|png);base64,[A-Za-z0-9+/=]+$/.test(url) ? url : null;

/** One section of a report: its heading (HTML) and its body (HTML). */
export interface ReportSection {
  heading: string;
  html: string;
}

/** A section's lines; one that is absent leaves its line empty. */
const sectionHtml = (s: ReportSection | null) => (s ? `<h2>${s.heading}</h2>\n${s.html}` : '');

/** The report's styles: the page, its tables, the histogram, the gallery and the plots. */
export const REPORT_STYLE = `
body{font:14px/1.45 Sarabun,system-ui,-apple-system,Segoe UI,Roboto,sans-serif;color:#1f2a1f;margin:2rem auto;max-width:1100px;padding:0 1rem}
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
table{display:block;max-width:100%;overflow-x:auto}.table-wrap{max-width:100%;overflow-x:auto}.table-wrap table{display:table}td code{white-space:nowrap;word-break:normal}
pre{background:#f5f7f5;padding:.8rem;border-radius:6px;overflow:auto;font-size:12px}code{word-break:break-all}
.plots figure{margin:1rem 0;overflow-x:auto}.plots figcaption{font-size:12px;color:#5a6b5a}.plots svg{max-width:100%;height:auto}
@media print{.gallery{grid-template-columns:repeat(4,1fr)}}`;

/** What the page of a report in a language needs: its language, its words' translation and its fonts (`reportLanguageOf`). */
export interface PageLanguage {
  lang: ReportLanguage;
  /** the report's words in `lang` (English texts as keys) */
  text: Translate;
  /** `@font-face` rules the page embeds (Thai: Sarabun's Thai subset; English: none) */
  fonts: string;
}

/** The Content-Security-Policy of a report: nothing loads; inline styles, data: images and data: fonts only. */
export const REPORT_CSP = "default-src 'none'; img-src data:; font-src data:; style-src 'unsafe-inline'";

/**
 * The `@font-face` rules of a report in `lang`: for Thai the Thai subset of Sarabun (regular and
 * bold, about 26 KB as base64, loaded only when a Thai report is made), limited to the Thai code
 * points (the unicode-range of @fontsource/sarabun), so Latin text keeps the system font.
 */
export async function reportFonts(lang: ReportLanguage): Promise<string> {
  if (lang !== 'th') return '';
  const { SARABUN_THAI_400_WOFF2, SARABUN_THAI_700_WOFF2 } = await import('./report-font.ts');
  const face = (weight: number, b64: string) =>
    `@font-face{font-family:Sarabun;font-style:normal;font-weight:${weight};font-display:block;` +
    `src:url(data:font/woff2;base64,${b64}) format('woff2');unicode-range:U+02D7,U+0303,U+0331,U+0E01-0E5B,U+200C-200D,U+25CC}`;
  return face(400, SARABUN_THAI_400_WOFF2) + face(700, SARABUN_THAI_700_WOFF2);
}

/** The language, translation (core's words, then each catalogue given) and fonts of a report in `lang`. */
export async function reportLanguageOf(
  lang: ReportLanguage = 'en',
  ...thai: readonly (Readonly<Record<string, string>> | undefined)[]
): Promise<PageLanguage> {
  return { lang, text: translator(lang, REPORT_TH, ...thai), fonts: await reportFonts(lang) };
}

/** English with no fonts: a page made without a language. */
export const ENGLISH_PAGE: PageLanguage = { lang: 'en', text: translator('en'), fonts: '' };

/** What a plugin's report puts on the page. */
export interface ReportPage {
  title: string;
  /** the plugin's sections, in order (null: a section this file has nothing for) */
  sections: readonly (ReportSection | null)[];
  /** what follows a photo's name under its overlay (` – 12.34 %`) */
  caption?(photo: ResultsPhoto): string;
  /** the page's language (default: English) */
  language?: PageLanguage;
}

/** The overlay thumbnails, each beside its photo's when the file has it. */
function galleryHtml(file: ResultsFile, caption: ReportPage['caption'], t: Translate): string {
  const gallery = file.photos
    .map((photo) => {
      const overlay = safeImage(photo.overlay_thumbnail);
      const original = safeImage(photo.photo_thumbnail ?? null);
      const name = escapeHtml(photo.filename);
      if (!overlay) return '';
      const img = (src: string, alt: string) => `<img src="${src}" alt="${escapeHtml(alt)}">`;
      return `<figure><div class="pair">${original ? img(original, t('photo {{name}}', { name: photo.filename })) : ''}${img(overlay, t('overlay of {{name}}', { name: photo.filename }))}</div><figcaption>${name}${caption?.(photo) ?? ''}</figcaption></figure>`;
    })
    .join('');
  return `<div class="gallery">${gallery || `<p>${escapeHtml(t('No overlay thumbnails in this results file.'))}</p>`}</div>`;
}

/** What made the figures: software, time, method, plugin and model, the options and every input's sha256. */
function provenanceHtml(file: ResultsFile, t: Translate): string {
  const p = file.provenance;
  const provRows: [string, string][] = [
    [t('Software'), `${p.app} ${p.app_version} (${p.source === 'api' ? t('stored run') : t('command line')})`],
    [t('Created'), p.created_at],
    [t('Method'), `${p.method ?? '–'} (${t('ran: {{method}}', { method: p.method_used ?? '–' })})`],
    [t('Plugin version'), p.plugin_version ?? '–'],
    [t('Model'), p.model_id ? `${p.model_id} sha256 ${p.model_sha256 ?? '?'}` : t('none (classical)')],
  ];
  return `<table class="stats">${provRows.map(([k, v]) => `<tr><th>${escapeHtml(k)}</th><td>${escapeHtml(v)}</td></tr>`).join('')}</table>
<p>${escapeHtml(t('Options and inputs (sha256 of every file read):'))}</p>
<pre>${escapeHtml(JSON.stringify({ options: p.options, inputs: p.inputs }, null, 2))}</pre>`;
}

/**
 * A report as one self-contained HTML document: its title, the line under it (plain text) and its
 * sections, in `language` (its `lang` attribute and embedded fonts). No script and no external
 * resource (the Content-Security-Policy allows inline styles, data: images and data: fonts only).
 */
export function htmlPage(
  title: string,
  sub: string,
  sections: readonly (ReportSection | null)[],
  language: Pick<PageLanguage, 'lang' | 'fonts'> = ENGLISH_PAGE,
): string {
  return `<!doctype html>
<html lang="${language.lang}"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1">
<meta http-equiv="Content-Security-Policy" content="${REPORT_CSP}">
<title>${escapeHtml(title)}</title><style>${language.fonts}${REPORT_STYLE}</style></head>
<body>
<h1>${escapeHtml(title)}</h1>
<p class="sub">${escapeHtml(sub)}</p>
${sections.map(sectionHtml).join('\n')}
</body></html>
`;
}

/** The report of a results file as one HTML document: the plugin's sections, the overlays, the provenance. */
export function reportPage(file: ResultsFile, page: ReportPage): string {
  const language = page.language ?? ENGLISH_PAGE;
  const t = language.text;
  const sub = t('Mango Bruise Tracker · {{n}} photo(s) · {{created}}', {
    n: file.photos.length,
    created: file.provenance.created_at,
  });
  return htmlPage(
    page.title,
    sub,
    [
      ...page.sections,
      { heading: escapeHtml(t('Overlays')), html: galleryHtml(file, page.caption, t) },
      { heading: escapeHtml(t('Provenance')), html: provenanceHtml(file, t) },
    ],
    language,
  );
}
