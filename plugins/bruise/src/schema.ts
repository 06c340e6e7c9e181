import { z } from 'zod';
import { COLOUR_CARD_KINDS, PluginImages } from '@mango/core';
import { BruiseResultItem } from './results.ts';

/** The accepted scale range, pixels per centimetre: from a distant overview to a macro lens. */
export const PX_PER_CM_MIN = 0.01;
export const PX_PER_CM_MAX = 100_000;
/** The accepted diameters of a reference object, mm: a small sticker to a saucer. */
export const REFERENCE_MM_MIN = 5;
export const REFERENCE_MM_MAX = 200;

/**
 * Options of the bruise plugin. Every tuned parameter has its default here (see README.md for why
 * each default was chosen); front ends build their forms and flags from this schema.
 */
export const BruiseOptions = z.object({
  method: z
    .enum(['auto', 'classical', 'model'])
    .default('auto')
    .describe('auto: an installed bruise-segmentation model when there is one, else classical'),
  // Bounded: a tiny scale (1e-320) squares to 0 and the areas become Infinity (null in JSON).
  pxPerCm: z
    .number()
    .min(PX_PER_CM_MIN)
    .max(PX_PER_CM_MAX)
    .optional()
    .describe(`pixels per centimetre (${PX_PER_CM_MIN} to ${PX_PER_CM_MAX}), to report areas in cm²`),
  referenceMm: z
    .number()
    .min(REFERENCE_MM_MIN)
    .max(REFERENCE_MM_MAX)
    .optional()
    .describe(
      `diameter in mm (${REFERENCE_MM_MIN} to ${REFERENCE_MM_MAX}) of a round reference object (coin, sticker) in the photo: sets the scale`,
    ),
  requireScale: z
    .boolean()
    .default(false)
    .describe(
      'a photo without a scale is an error instead of a result without cm² figures (a reference object asked for and not found)',
    ),
  colourCard: z
    .enum(['auto', 'off'])
    .default('auto')
    .describe(
      'auto: find a ColorChecker in the photo and correct the colours to it (and read the scale from it); off: never',
    ),
  cardKind: z
    .enum(COLOUR_CARD_KINDS)
    .default('classic')
    .describe(
      'which ColorChecker is in the photo (same layout, other size): classic (patch pitch 45.65 mm) or passport (15 mm)',
    ),
  overlayMaxSide: z.number().int().min(64).max(1600).default(1600).describe('long side of the overlay image'),
  detectMaxSide: z
    .number()
    .int()
    .min(128)
    .max(4096)
    .default(640)
    .describe('long side of the downscaled copy bruises are detected on'),
  modelMaxSide: z
    .number()
    .int()
    .min(128)
    .max(4096)
    .default(1280)
    .describe('long side of the copy the bruise model reads each fruit from (method model)'),
  darkening: z
    .number()
    .min(1)
    .max(60)
    .default(12)
    .describe('L* drop below the local healthy peel that starts a lesion'),
  minLesionFraction: z
    .number()
    .min(0)
    .max(0.1)
    .default(0.002)
    .describe('smallest lesion kept, as a fraction of its fruit area (lenticel dots are smaller)'),
  strictQuality: z
    .boolean()
    .default(false)
    .describe(
      'refuse a photo that fails a photo-quality check (blur, exposure, fruit cut by the edge or too small, heavy JPEG compression, colour cast) instead of scoring and flagging it',
    ),
});
export type BruiseOptions = z.output<typeof BruiseOptions>;
export type BruiseOptionsInput = z.input<typeof BruiseOptions>;

/**
 * The plugin's result: the figures of the HTTP `BruiseResultItem` (filename from ctx.filename), with
 * the overlay as pixels in `images` (see BRUISE_IMAGES) instead of `overlay_img`, the data URL that
 * front ends make from it at their edge.
 */
export const BruiseResult = BruiseResultItem.omit({ overlay_img: true }).extend({ images: PluginImages });
export type BruiseResult = z.output<typeof BruiseResult>;

/** The extra images the plugin returns, when asked for (ctx.want); unasked: the overlay only. */
export const BRUISE_IMAGES = {
  overlay: 'the photo (long side at most overlayMaxSide) with the fruit outlined and the bruises tinted; JPEG',
  'fruit-mask': 'the fruit mask at the photo size (1 = fruit)',
  'bruise-mask': 'the bruise mask at the photo size (1 = bruised peel)',
  'bruise-probability':
    "the lesion probability at the photo size, 8-bit greyscale PNG (0 outside the fruit): the learned model's (255 x sigmoid of its lesion logit); for a classical analysis the colour distance from the fruit's healthy peel median (CIE76 ΔE, 255 at 4 x darkening and more)",
  'fruit-labels':
    "each fruit's number at the photo size (1 to the number of fruit, as in `fruits`; 0 = not fruit; written to a file it is the fruit mask): per-fruit measurements read each fruit from it",
  'overlay-full': 'the overlay drawn on the photo at its own size (full resolution); JPEG',
} as const;

/**
 * The files a photo's images are written as, after its stem (`exportFileName` of @mango/core):
 * `mango bruise --overlays` and `--masks`, and the complete exports (runs.ts `fullExport`).
 */
export const BRUISE_FILE_SUFFIXES = {
  overlay: '.overlay.jpg',
  fruitMask: '.fruit.png',
  bruiseMask: '.bruise.png',
} as const;
