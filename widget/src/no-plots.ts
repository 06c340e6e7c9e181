/**
 * The widget's stand-in for core's plots-render.ts (vite.config.ts aliases it): the widget never
 * writes a run report, so the chart library (vega, about 250 KB gzipped) stays out of its bundle.
 */
export async function chartSvg(): Promise<string> {
  throw new Error('charts are not part of the widget');
}
