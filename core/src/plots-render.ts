/**
 * Draws the plots' Vega-Lite specs (plots.ts) with Vega: to an SVG string without a DOM (the HTML
 * report, in Node) or into an element (the web app, loaded lazily with the pages that plot). The
 * same spec gives the same chart in both. Expressions are interpreted (vega-interpreter), not
 * compiled with `new Function`: the web app's Content-Security-Policy allows no eval. Browser-safe.
 */
import { parse, View } from 'vega';
import { expressionInterpreter } from 'vega-interpreter';
import { compile, type TopLevelSpec } from 'vega-lite';
import type { Chart } from './plots.ts';
import { escapeHtml } from './report.ts';

/** A Vega view of a spec: headless (`renderer: 'none'`) unless a container is given. */
export function chartView(
  spec: TopLevelSpec,
  options: { container?: HTMLElement; renderer?: 'svg' | 'canvas' } = {},
): View {
  const view = new View(parse(compile(spec).spec, undefined, { ast: true }), {
    expr: expressionInterpreter,
    renderer: options.container ? (options.renderer ?? 'svg') : 'none',
    container: options.container,
    hover: Boolean(options.container),
  });
  return view;
}

const escapeXml = (s: string) =>
  s.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&apos;' })[c]!);

/**
 * An SVG document of Vega's made accessible: role img, its `<title>` and `<desc>` (the chart's title
 * and description) first inside it and named by aria-labelledby / aria-describedby. `id` keeps the
 * ids apart when several charts share a page.
 */
export function accessibleSvg(svg: string, chart: { title: string; description: string }, id = 'chart'): string {
  const open = svg.indexOf('>', svg.indexOf('<svg'));
  if (open < 0) throw new Error('not an SVG document');
  const head = svg
    .slice(0, open)
    .replace(/^<svg/, `<svg role="img" aria-labelledby="${id}-title" aria-describedby="${id}-desc"`);
  return (
    `${head}><title id="${id}-title">${escapeXml(chart.title)}</title>` +
    `<desc id="${id}-desc">${escapeXml(chart.description)}</desc>${svg.slice(open + 1)}`
  );
}

/** The chart as one accessible SVG document (no script, no external resource). */
export async function chartSvg(chart: Chart, id?: string): Promise<string> {
  const view = chartView(chart.spec);
  try {
    return accessibleSvg(await view.toSVG(), chart, id ?? chart.id);
  } finally {
    view.finalize();
  }
}

/**
 * The chart as a report's figure: its accessible SVG inline (an HTML page needs no namespace
 * declarations, and a report names no address at all) with its description as the caption.
 */
export async function chartFigure(chart: Chart, id?: string): Promise<string> {
  const svg = (await chartSvg(chart, id)).replace(/ xmlns(:xlink)?="[^"]*"/g, '');
  return `<figure>${svg}<figcaption>${escapeHtml(chart.description)}</figcaption></figure>`;
}
