/**
 * The bruise plugin's results as the HTTP API answers them (product-spec.md section 7,
 * `/api-py/python/bruise`): a photo's figures, its fruit, the scale, the colour card and the
 * photo-quality checks. Field names are contracts: keep them exactly. The plugin owns them (issue
 * 24): core knows a result only by the schema a plugin declares with its runs (`result`).
 * Browser-safe: no Node imports.
 */
import { z } from 'zod';
import { PhotoMeta } from '@mango/core';

export const BruiseFruit = z.object({
  bbox: z.object({ x: z.number().int(), y: z.number().int(), width: z.number().int(), height: z.number().int() }),
  pixels: z.number().int(),
  bruise_pixels: z.number().int(),
  bruise_percent: z.number(),
  lesion_count: z.number().int(),
  /** CIEDE2000 between this fruit's mean bruised and mean healthy peel colour; null without bruise */
  colour_difference: z.number().nullable().optional(),
  area_cm2: z.number().optional(),
  bruise_area_cm2: z.number().optional(),
  /** the grade under the rules named by the item's `grades` (null: not gradable, e.g. no scale) */
  grade: z.string().nullable().optional(),
  grade_accepted: z.boolean().nullable().optional(),
  /** the size group of rules with size groups, from a weight or estimated from the area (size_source) */
  size_group: z.string().nullable().optional(),
  size_source: z.enum(['weight', 'area-estimate']).nullable().optional(),
  weight_g: z.number().nullable().optional(),
  /** a corrected photo (the item's `corrected`): the figures of the model's fruit this one overlaps most (null: none) */
  model_pixels: z.number().int().nullable().optional(),
  model_bruise_pixels: z.number().int().nullable().optional(),
  model_bruise_percent: z.number().nullable().optional(),
});
export type BruiseFruit = z.infer<typeof BruiseFruit>;

/** A round reference object found in the photo (full-resolution pixels). */
export const ReferenceObject = z.object({
  x: z.number(),
  y: z.number(),
  diameter_px: z.number(),
  /** 0..1: how closely its outline is a circle */
  confidence: z.number(),
});

/** Whether a photo's bruise figures have a scale (BruiseResultItem.scale_status). */
export const SCALE_STATUSES = ['found', 'not-found', 'given', 'none'] as const;
export const ScaleStatus = z.enum(SCALE_STATUSES);
export type ScaleStatus = z.infer<typeof ScaleStatus>;

/** CIEDE2000 over the patches of a colour card: median and maximum. */
export const DeltaESummary = z.object({ median: z.number(), max: z.number() });

/** The colour card found in the photo (option colourCard 'auto'), and the correction it gave. */
export const ColourCardResult = z.object({
  found: z.boolean(),
  /** patches used in the correction's fit (read, not clipped, not left out as unexplained; 0 when not found) */
  patches: z.number().int(),
  /** CIEDE2000 of those patches against the card's reference values, as photographed and after correction */
  delta_e_before: DeltaESummary.nullable(),
  delta_e_after: DeltaESummary.nullable(),
  /** the 3x3 correction in linear RGB (rows: corrected R, G, B), white balance included; null when not found */
  matrix: z.array(z.array(z.number())).nullable(),
  /**
   * the card's outline (its 4 corners, full-resolution pixels of the photo), so an overlay of other
   * masks (a person's corrected ones) outlines it as the model's overlay does; absent when not found
   * (and in results made before it was recorded)
   */
  outline: z.array(z.object({ x: z.number(), y: z.number() })).optional(),
});
export type ColourCardResult = z.infer<typeof ColourCardResult>;

/** One photo-quality check a photo failed: why in words, the measured figure and its threshold. */
export const QualityFlag = z.object({
  /** blur, overexposed, underexposed, cut-by-edge, fruit-too-small, jpeg-compression, colour-cast */
  id: z.string(),
  message: z.string(),
  value: z.number(),
  threshold: z.number(),
});
export type QualityFlag = z.infer<typeof QualityFlag>;

/** The photo-quality checks of a result: the flags it raised (empty: every check passed). */
export const PhotoQuality = z.object({ flags: z.array(QualityFlag) });
export type PhotoQuality = z.infer<typeof PhotoQuality>;

/** Bruise result item. The first five fields are the original contract; the rest are additions. */
export const BruiseResultItem = z.object({
  filename: z.string(),
  total_mango_pixels: z.number().int(),
  bruise_percent: z.number(),
  non_bruise_percent: z.number(),
  overlay_img: z.string(),
  bruise_pixels: z.number().int(),
  fruits: z.array(BruiseFruit),
  /** CIEDE2000 between the mean bruised and the mean healthy peel colour over all fruit; null without bruise */
  colour_difference: z.number().nullable().optional(),
  /** deprecated: the same number as colour_difference, under its old, misleading name */
  severity: z.number().nullable(),
  method: z.enum(['classical', 'model']),
  /** the model that ran (method 'model') */
  model_id: z.string().optional(),
  /** sha256 of that model's file, as pinned in models/manifest.json */
  model_sha256: z.string().optional(),
  version: z.string(),
  width: z.number().int(),
  height: z.number().int(),
  elapsed_ms: z.number(),
  px_per_cm: z.number().optional(),
  /** where px_per_cm came from: a reference object found in the photo, typed by the user, the colour card's patch pitch, or none (null) */
  scale_source: z.enum(['reference', 'given', 'colour-card']).nullable().optional(),
  /** the colour card (option colourCard 'auto', the default): whether one was found and the correction applied */
  colour_card: ColourCardResult.optional(),
  /** the reference object (option referenceMm / field reference_mm): null when none was found */
  reference: ReferenceObject.nullable().optional(),
  /**
   * Whether the photo has a scale: `found` (measured in the photo; `scale_source` says from what),
   * `not-found` (a reference was asked for and not found: no cm² figures, a warning), `given`
   * (px_per_cm typed), `none` (no scale asked for)
   */
  scale_status: ScaleStatus.optional(),
  /** what a user should know about this photo's figures (a reference that was not found, metadata its name did not give, ...) */
  warnings: z.array(z.string()).optional(),
  fruit_area_cm2: z.number().optional(),
  bruise_area_cm2: z.number().optional(),
  /** the id of the grade rules applied to the fruits (field `grades`) */
  grades: z.string().optional(),
  /** the photo's experiment metadata (fields meta / meta_csv), when they were given */
  meta: PhotoMeta.optional(),
  /** photo-quality checks (blur, exposure, cut by the edge, fruit size, JPEG compression, colour cast) */
  quality: PhotoQuality.optional(),
  /** the stored run of the call (GET /api-node/runs/{id}); null when it is not stored (browser partner keys) */
  run_id: z.string().nullable().optional(),
  /**
   * A stored run's photo whose masks a person corrected (its truth, GET /api-node/runs/{id}/items/{position}/truth):
   * the figures above are the corrected masks'; the model's are kept in `model_fruit_pixels`, ...
   */
  corrected: z.boolean().optional(),
  model_fruit_pixels: z.number().int().optional(),
  model_bruise_pixels: z.number().int().optional(),
  model_bruise_percent: z.number().optional(),
});
export type BruiseResultItem = z.infer<typeof BruiseResultItem>;

/** A bruise item's figures: the HTTP item without its overlay (and without run_id), as results files and stored runs keep them. */
export const BruiseFigures = BruiseResultItem.omit({ overlay_img: true, run_id: true });
export type BruiseFigures = z.infer<typeof BruiseFigures>;

/** Whether a photo's result holds bruise figures (not a feature item, another plugin's result or an error). */
export const isBruiseFigures = (r: object): r is BruiseFigures => 'total_mango_pixels' in r;

/**
 * A photo of a bruise call with `keep_going=true` that could not be scored: its place in the answer
 * holds its name, the reason and the error's code (EMPTY_FILE, UNSUPPORTED_IMAGE, CORRUPT_IMAGE, ...).
 */
export const BruiseFailedItem = z.object({
  filename: z.string(),
  error: z.string(),
  code: z.string(),
  /** the stored run of the call (GET /api-node/runs/{id}); null when it is not stored */
  run_id: z.string().nullable().optional(),
});
export type BruiseFailedItem = z.infer<typeof BruiseFailedItem>;

export { FLAG_TEXTS, flagReason } from './quality-text.ts';
