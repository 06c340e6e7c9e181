import { MangoError, definePlugin, invalidInput, throwIfAborted, wantsImage, type PluginImages } from '@mango/core';
import {
  analyseBruise,
  fullResolutionLabels,
  fullResolutionMasks,
  fullResolutionProbability,
  scaleOf,
  summariseBruise,
} from './analyse.ts';
import { overlayDecorations, renderOverlay } from './overlay.ts';
import { BRUISE_IMAGES, BruiseOptions, BruiseResult } from './schema.ts';
import { bruiseRuns } from './runs.ts';
import { measureQuality, qualityFlags } from './quality.ts';

export const BRUISE_VERSION = '0.1.0';

// What other packages use besides the plugin (the CLI, the widget, the models' tests and training
// scripts); everything else is imported from its module inside this package.
export { BruiseOptions, BRUISE_FILE_SUFFIXES } from './schema.ts';
export { analyseBruise, summariseBruise, MAX_LABELLED_FRUIT } from './analyse.ts';
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
    const analysis = await analyseBruise(image, options, {
      models: ctx.models,
      probability: wantsImage(ctx, 'bruise-probability'),
    });
    throwIfAborted(ctx.signal);
    ctx.progress(0.7, 'counting');
    const scale = scaleOf(analysis, options);
    // requireScale: a photo without a scale fails (the reason is the warning it would have had).
    if (options.requireScale && (scale.status === 'not-found' || scale.status === 'none')) {
      throw invalidInput(
        scale.warnings[0] ??
          'no scale: give px_per_cm (--px-per-cm) or reference_mm (--reference-mm) with require_scale (--require-scale)',
      );
    }
    const summary = {
      ...summariseBruise(analysis, scale.pxPerCm),
      ...scale.fields,
      ...(scale.warnings.length ? { warnings: scale.warnings } : {}),
    };
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
    // the reference object and the colour card found, read off the result as a corrected overlay reads them
    const { reference: ring, card: quad } = overlayDecorations(summary, analysis.width);
    if (wantsImage(ctx, 'overlay', true)) {
      const overlay = renderOverlay(analysis.work, analysis.fruit, analysis.bruise, options.overlayMaxSide, ring, quad);
      images.overlay = { kind: 'picture', image: overlay, format: 'jpeg', quality: 85 };
    }
    const overlayFull = wantsImage(ctx, 'overlay-full');
    if (overlayFull || wantsImage(ctx, 'fruit-mask') || wantsImage(ctx, 'bruise-mask')) {
      const full = fullResolutionMasks(analysis);
      const mask = (data: Uint8Array) => ({
        kind: 'mask' as const,
        mask: { width: full.width, height: full.height, data },
      });
      if (wantsImage(ctx, 'fruit-mask')) images['fruit-mask'] = mask(full.fruit);
      if (wantsImage(ctx, 'bruise-mask')) images['bruise-mask'] = mask(full.bruise);
      if (overlayFull) {
        // The same masks drawn on the photo at its own size (a reduced decode asks for the full one).
        const photo = image.source && ctx.fullImage ? await ctx.fullImage() : image;
        if (photo.width !== full.width || photo.height !== full.height)
          throw new Error(`the full photo is ${photo.width}x${photo.height}, its masks ${full.width}x${full.height}`);
        const side = Math.max(photo.width, photo.height);
        const overlay = renderOverlay(photo, full.fruit, full.bruise, side, ring, quad);
        images['overlay-full'] = { kind: 'picture', image: overlay, format: 'jpeg', quality: 85 };
      }
    }
    if (wantsImage(ctx, 'bruise-probability')) {
      // 8-bit greyscale (R = G = B), lossless: the mask editor's magic wand reads it.
      const { width, height, data } = fullResolutionProbability(analysis);
      const grey = new Uint8ClampedArray(width * height * 4);
      for (let i = 0; i < data.length; i++) {
        grey[i * 4] = grey[i * 4 + 1] = grey[i * 4 + 2] = data[i];
        grey[i * 4 + 3] = 255;
      }
      images['bruise-probability'] = { kind: 'picture', image: { width, height, data: grey }, format: 'png' };
    }
    if (wantsImage(ctx, 'fruit-labels')) {
      const { width, height, data } = fullResolutionLabels(analysis);
      images['fruit-labels'] = { kind: 'mask', mask: { width, height, data } };
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
