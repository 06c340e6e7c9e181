import { MangoError, definePlugin, throwIfAborted, wantsImage, type PluginImages } from '@mango/core';
import { analyseBruise, fullResolutionMasks, scaleOf, summariseBruise } from './analyse.ts';
import { renderOverlay } from './overlay.ts';
import { BRUISE_IMAGES, BruiseOptions, BruiseResult } from './schema.ts';
import { bruiseRuns } from './runs.ts';
import { measureQuality, qualityFlags } from './quality.ts';

export const BRUISE_VERSION = '0.1.0';

// What other packages use besides the plugin (the CLI, the widget, the models' tests and training
// scripts); everything else is imported from its module inside this package.
export { BruiseOptions } from './schema.ts';
export { analyseBruise, summariseBruise } from './analyse.ts';
export { INVARIANCE_VARIANTS } from './invariance.ts';
export { cropSquarePlanes } from './model.ts';
export { squareLogits } from './learned.ts';
export { dataUrl } from './overlay.ts';

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
  runs: bruiseRuns,
  // Detection runs on a copy with this long side: front ends may decode straight to it.
  decodeMaxSide: (options) =>
    options.method === 'classical' ? options.detectMaxSide : Math.max(options.detectMaxSide, options.modelMaxSide),
  images: BRUISE_IMAGES,
  async run(image, options, ctx) {
    const start = performance.now();
    ctx.progress(0, 'finding fruit and bruises');
    const analysis = await analyseBruise(image, options, { models: ctx.models });
    throwIfAborted(ctx.signal);
    ctx.progress(0.7, 'counting');
    const scale = scaleOf(analysis, options);
    const summary = { ...summariseBruise(analysis, scale.pxPerCm), ...scale.fields };
    // Photo-quality checks; a colour card in the photo (when a card step reported one) corrects casts.
    const card = (summary as { colour_card?: { found?: boolean } | null }).colour_card;
    const flags = qualityFlags(measureQuality(analysis, image, options), card?.found === true);
    if (options.strictQuality && flags.length > 0) {
      throw new MangoError(
        'POOR_QUALITY',
        `${ctx.filename}: refused by strict quality: ${flags.map((f) => f.message).join('; ')}`,
      );
    }
    // The masks of this same analysis: their pixel counts are the result's.
    const images: PluginImages = {};
    if (wantsImage(ctx, 'overlay', true)) {
      const ref = analysis.reference;
      const overlay = renderOverlay(
        analysis.work,
        analysis.fruit,
        analysis.bruise,
        options.overlayMaxSide,
        ref ? { x: ref.x, y: ref.y, diameter: ref.diameter_px, photoWidth: analysis.width } : undefined,
      );
      images.overlay = { kind: 'picture', image: overlay, format: 'jpeg', quality: 85 };
    }
    if (wantsImage(ctx, 'fruit-mask') || wantsImage(ctx, 'bruise-mask')) {
      const full = fullResolutionMasks(analysis);
      const mask = (data: Uint8Array) => ({
        kind: 'mask' as const,
        mask: { width: full.width, height: full.height, data },
      });
      if (wantsImage(ctx, 'fruit-mask')) images['fruit-mask'] = mask(full.fruit);
      if (wantsImage(ctx, 'bruise-mask')) images['bruise-mask'] = mask(full.bruise);
    }
    ctx.progress(1);
    const result: BruiseResult = {
      filename: ctx.filename,
      ...summary,
      quality: { flags },
      images,
      version: BRUISE_VERSION,
      elapsed_ms: Math.round((performance.now() - start) * 10) / 10,
    };
    return result;
  },
});
