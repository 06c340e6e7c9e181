import { definePlugin, throwIfAborted, type PluginContext, type RasterImage } from '@mango/core';
import { analyseBruise, summariseBruise } from './analyse.ts';
import { dataUrl, renderOverlay } from './overlay.ts';
import { BruiseOptions, BruiseResult } from './schema.ts';

export const BRUISE_VERSION = '0.1.0';

export { BruiseOptions, BruiseResult } from './schema.ts';
export type { BruiseOptionsInput } from './schema.ts';
export { analyseBruise, bruiseMasks, fullResolutionMasks, summariseBruise, severity } from './analyse.ts';
export type { AnalyseInput, BruiseAnalysis } from './analyse.ts';
export { classicalBruiseMask, DEFAULT_CLASSICAL } from './classical.ts';
export type { ClassicalParams } from './classical.ts';
export {
  BRUISE_TASK,
  FRUIT_MARGIN,
  bruiseScores,
  cropSquarePlanes,
  fruitSquare,
  fruitSquareInput,
  modelBruiseMask,
  postprocessModelOutput,
  preprocessForModel,
} from './model.ts';
export { renderOverlay, toBase64, dataUrl } from './overlay.ts';

/**
 * The plugin's run, also returning the analysis (its working-resolution masks), so a front end that
 * writes the masks (`mango bruise --masks`) does not analyse the photo a second time.
 */
export async function scoreBruise(image: RasterImage, options: BruiseOptions, ctx: PluginContext) {
  const start = performance.now();
  ctx.progress(0, 'finding fruit and bruises');
  const analysis = await analyseBruise(image, options, { models: ctx.models });
  throwIfAborted(ctx.signal);
  ctx.progress(0.7, 'counting');
  const summary = summariseBruise(analysis, options.pxPerCm);
  const overlay = renderOverlay(analysis.work, analysis.fruit, analysis.bruise, options.overlayMaxSide);
  const jpeg = await ctx.images.encode(overlay, 'jpeg', { quality: 85 });
  ctx.progress(1);
  const item: BruiseResult = {
    filename: options.filename,
    ...summary,
    overlay_img: dataUrl(jpeg, 'image/jpeg'),
    version: BRUISE_VERSION,
    elapsed_ms: Math.round((performance.now() - start) * 10) / 10,
  };
  return { item, analysis };
}

/**
 * Bruised Area Calculation: finds the fruit and the bruised peel and reports the bruise-to-fruit
 * pixel ratio with an overlay image. Classical colour analysis by default; an installed ONNX
 * bruise-segmentation model with method 'model' (or 'auto').
 */
export default definePlugin({
  id: 'bruise',
  title: 'Bruised Area Calculation',
  description: 'Bruise-to-fruit pixel ratio per image and per fruit, with an overlay of the bruised areas.',
  kind: 'analysis',
  version: BRUISE_VERSION,
  options: BruiseOptions,
  result: BruiseResult,
  runtimes: ['node', 'browser'],
  // Detection runs on a copy with this long side: front ends may decode straight to it.
  decodeMaxSide: (options) =>
    options.method === 'classical' ? options.detectMaxSide : Math.max(options.detectMaxSide, options.modelMaxSide),
  async run(image, options, ctx) {
    return (await scoreBruise(image, options, ctx)).item;
  },
});
