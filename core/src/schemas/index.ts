/**
 * The HTTP contracts of product-spec.md section 7 as zod schemas. The server validates with them,
 * the web client and widget type their calls with them, and the OpenAPI document is generated
 * from them. Field names are contracts: keep them exactly.
 */
import { z } from 'zod';

export const FEATURE_IDS = [
  'rgb',
  'hsv',
  'lab',
  'grayscale',
  'glcm',
  'lbp',
  'gabor',
  'factual',
  'eccentricity',
  'area',
  'perimeter',
  'affineinvariant',
  'algebraic',
] as const;
export const FeatureId = z.enum(FEATURE_IDS);
export type FeatureId = z.infer<typeof FeatureId>;

export const FEATURE_CATEGORIES = {
  color: ['rgb', 'hsv', 'lab', 'grayscale'],
  texture: ['glcm', 'lbp', 'gabor', 'factual'],
  shape: ['eccentricity', 'area', 'perimeter'],
  others: ['affineinvariant', 'algebraic'],
} as const satisfies Record<string, readonly FeatureId[]>;

export const FEATURE_DISPLAY_NAMES: Record<FeatureId, string> = {
  rgb: 'RGB Color Space',
  hsv: 'HSV Color Space',
  lab: 'LAB Color Space',
  grayscale: 'Grayscale Intensity',
  glcm: 'GLCM Texture',
  lbp: 'LBP Patterns',
  gabor: 'Gabor Filters',
  factual: 'Factual Features',
  eccentricity: 'Eccentricity',
  area: 'Area',
  perimeter: 'Perimeter',
  affineinvariant: 'Affine Invariant',
  algebraic: 'Algebraic Features',
};

/** Feature analysis result item: { image_name, features: { id: { value_name: number } } } or error. */
export const FeatureResultItem = z.object({
  image_name: z.string(),
  features: z.record(z.string(), z.record(z.string(), z.number())).optional(),
  error: z.string().optional(),
  downscaled: z.boolean().optional(),
  /** the stored run of the call (GET /api-node/runs/{id}); null when it is not stored */
  run_id: z.string().nullable().optional(),
});
export type FeatureResultItem = z.infer<typeof FeatureResultItem>;

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
  /** where px_per_cm came from: a reference object found in the photo, typed by the user, or none (null) */
  scale_source: z.enum(['reference', 'given']).nullable().optional(),
  /** the reference object (option referenceMm / field reference_mm): null when none was found */
  reference: ReferenceObject.nullable().optional(),
  /**
   * Whether the photo has a scale: `found` (measured in the photo; `scale_source` says from what),
   * `not-found` (a reference was asked for and not found: no cm² figures, a warning), `given`
   * (px_per_cm typed), `none` (no scale asked for)
   */
  scale_status: ScaleStatus.optional(),
  /** what a user should know about this photo's figures (a reference that was not found, ...) */
  warnings: z.array(z.string()).optional(),
  fruit_area_cm2: z.number().optional(),
  bruise_area_cm2: z.number().optional(),
  /** the id of the grade rules applied to the fruits (field `grades`) */
  grades: z.string().optional(),
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

/** Error body of the /api-py endpoints. */
export const DetailError = z.object({ detail: z.string() });
/** Error body of the /api-node endpoints. */
export const ApiError = z.object({ error: z.string(), details: z.unknown().optional() });

export const OPERATION_TYPES = [
  'Bruised Area Calculation',
  'Resize',
  'Crop',
  'Remove Background',
  'Logout',
  'K-Means',
] as const;

/** 'Features Analysis: ' followed by the comma-joined feature ids is also an operation type. */
export const OperationType = z
  .string()
  .min(1)
  .max(300)
  .refine(
    (v) => (OPERATION_TYPES as readonly string[]).includes(v) || v.startsWith('Features Analysis: '),
    'unknown operationType',
  );

export const ActionRequest = z.object({
  operationType: OperationType,
  /** the stored run the operation made (the `run_id` of its bruise or analyze answer) */
  run_id: z.string().min(1).max(64).nullable().optional(),
});

export const HistoryRecord = z.object({
  operation_type: z.string(),
  username: z.string(),
  organization: z.string(),
  time_stamp: z.string(),
  /** the stored run of the operation, when it made one (an addition to the original four fields) */
  run_id: z.string().nullable().optional(),
});
export type HistoryRecord = z.infer<typeof HistoryRecord>;

export const Profile = z.object({
  name: z.string(),
  email: z.string(),
  phone: z.string(),
  country: z.string(),
  organization: z.string(),
});
export type Profile = z.infer<typeof Profile>;

export const ProfileUpdate = z.object({
  name: z.string().trim().min(1).max(100),
  email: z.email().max(254),
  phone: z
    .string()
    .trim()
    .min(1)
    .max(32)
    .regex(/^[+0-9 ()-]+$/, 'phone may hold digits, spaces, +, -, ( and )'),
  country: z.string().trim().min(1).max(100),
});

export const PASSWORD_MIN_LENGTH = 8;

export const RegisterRequest = z.object({
  username: z
    .string()
    .trim()
    .min(3)
    .max(50)
    .regex(/^[A-Za-z0-9_.-]+$/, 'username may hold letters, digits, _, . and -'),
  email: z.email().max(254),
  organization: z.string().trim().min(1).max(100),
  password: z.string().min(PASSWORD_MIN_LENGTH, `Password must be at least ${PASSWORD_MIN_LENGTH} characters`).max(200),
});

/** `email` holds the username or the e-mail address (original client's field); `username` is an alias. */
export const LoginRequest = z
  .object({
    email: z.string().max(254).optional(),
    username: z.string().max(254).optional(),
    password: z.string().min(1).max(200),
  })
  .refine((v) => Boolean(v.email ?? v.username), { message: 'email or username is required' });

export const TokenPair = z.object({ accessToken: z.string(), refreshToken: z.string() });
