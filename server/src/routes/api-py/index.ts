/**
 * Plugin endpoints that keep the original /api-py paths and payloads (product-spec.md section 7).
 * Every image is decoded and processed on the worker pool; bad input becomes a 4xx {detail}.
 */
import { Hono, type Context, type MiddlewareHandler } from 'hono';
import { z } from 'zod';
import { MangoError, photoErrorText } from '@mango/core';
import type { EncodedImage, JobFailure, JobResult, JobSuccess } from '@mango/runner';
import type { Needs } from '../../context.ts';
import { planRun, scoreUploads, storeRun, type RunPlan, type ScoreDeps, type ScoreExtras } from '../../runs/service.ts';
import type { RunOwner } from '../../runs/store.ts';
import { ANALYZE_FIELDS, BRUISE_FIELDS, bruiseGrading, fieldProperties, readFields } from './fields.ts';
import { callerLimits } from './guards.ts';
import { readMultipart, safeName, uploadedFiles, withUploadSpool, type Upload } from './uploads.ts';
import { META_FIELD_SCHEMAS, META_FILE_FIELDS, readMetaFields, withPhotoMeta, type CallMeta } from './meta.ts';
import { describer, type RouteDescription } from '../../openapi/describe.ts';
import { detail, json, media, named, USER_OR_KEY } from '../../openapi/components.ts';
import { BruiseFailedItem, BruiseResultItem } from '@mango/plugin-bruise/results';
import { FeatureResultItem } from '@mango/plugin-features/results';

/** The `images` field of the forms: one or more files. */
const imagesField = {
  type: 'array' as const,
  items: { type: 'string' as const, format: 'binary', contentMediaType: 'application/octet-stream' },
  description: 'Image files (.jpg, .jpeg, .png); repeat the field for several images',
};

/** A multipart form body with these fields. */
const multipart = (properties: Record<string, object>, required: string[]) => ({
  required: true,
  content: { 'multipart/form-data': { schema: { type: 'object' as const, properties, required } } },
});

/** The answers of every plugin endpoint besides its own: errors as {detail}. */
/** The plugins' answers of these routes, as the document names them (components/schemas). */
const ANSWERS = {
  FeatureResultItem: named('FeatureResultItem', FeatureResultItem),
  BruiseResultItem: named('BruiseResultItem', BruiseResultItem),
  BruiseFailedItem: named('BruiseFailedItem', BruiseFailedItem),
};

const PLUGIN_ERRORS: RouteDescription['responses'] = {
  400: detail('Missing or invalid field'),
  401: detail('Missing or invalid token or API key'),
  403: detail("Origin not allowed for the API key's kind (browser: from its allowed origins; server: none)"),
  413: detail('File or image too large'),
  415: detail('Not a supported image'),
  422: detail('Corrupt image or no fruit found'),
  429: detail("Over the API key's per-minute limit, or too many requests or uploads at once (see Retry-After)"),
  503: detail('The work queue is full (see Retry-After)'),
};

/** The metadata fields' OpenAPI properties (`meta`, `meta_csv`). */
const metaProperties: Record<string, object> = Object.fromEntries(
  Object.entries(META_FIELD_SCHEMAS).map(([name, schema]) => {
    const { $schema: _, ...json } = z.toJSONSchema(schema, { io: 'input' }) as Record<string, unknown>;
    return [name, json];
  }),
);

export interface ApiPyOptions {
  /** authentication for these endpoints (user token or partner API key) */
  auth?: MiddlewareHandler;
  /** called after a successful bruise call (history logging for API-key callers) */
  onBruise?: (c: Context, count: number, runId: string | null) => Promise<void>;
  /** whose run a call is stored as (runs/http.ts); null or unset: the call is not stored */
  runOwner?: (c: Context) => RunOwner | null;
}

function jobError(r: JobResult): MangoError | null {
  if (r.ok) return null;
  const code = r.error.code as ConstructorParameters<typeof MangoError>[0];
  return r.error.status >= 500 ? null : new MangoError(code, r.error.message);
}

/** The code a failed photo's item carries (a failure of the server's own is not described). */
const failureCode = (r: JobFailure) => (r.error.status >= 500 ? 'INTERNAL' : r.error.code);

/** One bad file fails the request with its reason (nothing is stored, so nothing is lost). */
function throwFailure(r: JobResult): asserts r is JobSuccess {
  if (!r.ok) throw jobError(r) ?? new Error(r.error.message);
}

/** The wire format of an encoded image (the bruise item's overlay_img). */
function dataUrl({ bytes, mime }: EncodedImage): string {
  return `data:${mime};base64,${Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('base64')}`;
}

/** The HTTP bruise item (product-spec.md section 7): the plugin's figures and its overlay as a data URL. */
function bruiseItem(r: JobSuccess): BruiseResultItem {
  const overlay = r.images.overlay;
  if (!overlay) throw new Error(`${r.name}: the bruise plugin returned no overlay`);
  return BruiseResultItem.parse({ ...r.result, overlay_img: dataUrl(overlay) });
}

/** An item with its photo's metadata; their warnings join the item's own (a reference not found, ...). */
function withMetaOf<T extends { warnings?: string[] }>(item: T, pm: { meta?: unknown; warnings?: string[] }): T {
  const warnings = [...(item.warnings ?? []), ...(pm.warnings ?? [])];
  return { ...item, ...pm, ...(warnings.length ? { warnings } : {}) };
}

export function apiPyRoutes(
  ctx: Needs<'config' | 'db' | 'dialect' | 'jobs' | 'jwtKey' | 'pool' | 'registry'>,
  options: ApiPyOptions = {},
): Hono {
  const app = new Hono();
  const { maxUploadBytes, maxPixels } = ctx.config;
  if (options.auth) app.use('/python/*', options.auth);
  app.use('/python/*', callerLimits(ctx), withUploadSpool(ctx.config.uploadDir));
  const limits = { maxFileBytes: maxUploadBytes, maxFiles: ctx.config.maxFilesPerRequest };
  // The worker reads the spooled file: the photo's bytes never sit on this thread. A request runs
  // as many photos at once as there are threads, so one request cannot fill the queue.
  const deps: ScoreDeps = {
    run: (job) => ctx.pool.run(job),
    concurrency: Math.max(1, ctx.pool.threads),
    maxPixels,
    maxBytes: maxUploadBytes,
  };

  /**
   * Scores the call's photos; `store` then saves them as the caller's run (null: not stored). With
   * metadata (fields `meta`, `meta_csv`) each photo's go with it: `photoMeta` is what each item adds.
   */
  async function score(c: Context, plan: RunPlan, sent: Upload[], extras?: ScoreExtras, meta?: CallMeta) {
    const owner = options.runOwner?.(c) ?? null;
    const { uploads } = withPhotoMeta(sent, meta);
    // The models in force now (an activation reaches calls started CACHE_MS later at most).
    const models = await ctx.jobs.models.inForce();
    // A stored call keeps each photo's overlay as this answer carries it (full size), as a job with keep_overlays does.
    const scored = await scoreUploads({ ...deps, models }, plan, uploads, owner !== null, {
      ...extras,
      fullOverlay: true,
    });
    const store = async () =>
      owner ? await storeRun(ctx.db, owner, plan, scored, ctx.jobs.keptRunPhotos, meta?.provenance ?? null) : null;
    const photoMeta = uploads.map((u) => (u.meta ? { meta: u.meta, warnings: u.warnings ?? [] } : {}));
    return { results: scored.map((s) => s.result), store, photoMeta };
  }
  /** The form fields, files included: the photos and a metadata CSV sent as a file. */
  const FORM_FILES = ['images', 'image', 'file', ...META_FILE_FIELDS];
  const metaOf = (fields: Awaited<ReturnType<typeof readMultipart>>, plan: RunPlan) =>
    readMetaFields(fields, [plan.kind]);

  const route = describer({ tags: ['Imaging'], security: USER_OR_KEY });

  const analyze = route({
    summary: 'Feature analysis of each image',
    request: {
      body: multipart({ images: imagesField, ...fieldProperties(ANALYZE_FIELDS), ...metaProperties }, [
        'images',
        'features',
      ]),
    },
    responses: { 200: json(z.array(ANSWERS.FeatureResultItem), 'One item per image'), ...PLUGIN_ERRORS },
  });
  app.post('/python/analyze', analyze, async (c) => {
    const fields = await readMultipart(c, limits, FORM_FILES);
    const {
      features,
      isolate,
      per_fruit: perFruit,
      px_per_cm: pxPerCm,
      reference_mm: referenceMm,
    } = readFields(ANALYZE_FIELDS, fields);
    if (!perFruit && (pxPerCm !== undefined || referenceMm !== undefined))
      throw new MangoError('INVALID_INPUT', '`px_per_cm` and `reference_mm` go with `per_fruit`');
    const plan = planRun(ctx.registry, 'analyze', {
      features,
      ...(isolate ? { isolate } : {}),
      ...(perFruit ? { perFruit } : {}),
      ...(pxPerCm !== undefined ? { pxPerCm } : {}),
      ...(referenceMm !== undefined ? { referenceMm } : {}),
    });
    const meta = await metaOf(fields, plan);
    const { results, store, photoMeta } = await score(c, plan, uploadedFiles(fields), {}, meta);
    const runId = await store();
    return c.json(
      results.map((r, i) =>
        r.ok
          ? { image_name: r.name, ...r.result, ...photoMeta[i], run_id: runId }
          : {
              image_name: r.name,
              error: photoErrorText(r.error),
              code: failureCode(r),
              ...photoMeta[i],
              run_id: runId,
            },
      ),
    );
  });

  const bruise = (method: 'auto' | 'classical') => async (c: Context) => {
    const fields = await readMultipart(c, limits, FORM_FILES);
    const uploads = uploadedFiles(fields);
    const {
      px_per_cm: pxPerCm,
      reference_mm: referenceMm,
      require_scale: requireScale,
      grades,
      keep_going: keepGoing,
      colour_card: colourCard,
      card_kind: cardKind,
      strict_quality: strictQuality,
    } = readFields(BRUISE_FIELDS, fields);
    if (grades && bruiseGrading.needsScale(grades) && pxPerCm === undefined && referenceMm === undefined) {
      throw new MangoError('INVALID_INPUT', bruiseGrading.scaleNeededMessage(grades));
    }
    const plan = planRun(ctx.registry, 'bruise', {
      method,
      ...(pxPerCm !== undefined ? { pxPerCm } : {}),
      ...(referenceMm !== undefined ? { referenceMm } : {}),
      ...(requireScale ? { requireScale } : {}),
      ...(colourCard !== undefined ? { colourCard } : {}),
      ...(cardKind !== undefined ? { cardKind } : {}),
      ...(strictQuality ? { strictQuality } : {}),
      // A preset by its id; rules sent as JSON are kept whole with the run.
      ...(grades ? { grades: bruiseGrading.presets[grades.id] === grades ? grades.id : grades } : {}),
    });
    const meta = await metaOf(fields, plan);
    const { results, store, photoMeta } = await score(c, plan, uploads, {}, meta);
    if (!keepGoing) for (const r of results) throwFailure(r);
    const runId = await store();
    await options.onBruise?.(c, results.filter((r) => r.ok).length, runId);
    return c.json(
      results.map((r, i) =>
        r.ok
          ? withMetaOf({ ...bruiseItem(r), run_id: runId }, photoMeta[i])
          : { ...failedItem(r, runId), ...photoMeta[i] },
      ),
    );
  };
  /** A photo `keep_going` carried on past: its name, the reason and the error's code. */
  const failedItem = (r: JobFailure, runId: string | null): BruiseFailedItem => ({
    filename: r.name,
    error: photoErrorText(r.error),
    code: failureCode(r),
    run_id: runId,
  });
  const bruiseRoute = (what: string) =>
    route({
      summary: `Bruised area of each image, ${what}`,
      request: {
        body: multipart({ images: imagesField, ...fieldProperties(BRUISE_FIELDS), ...metaProperties }, ['images']),
      },
      responses: {
        200: json(
          z.array(z.union([ANSWERS.BruiseResultItem, ANSWERS.BruiseFailedItem])),
          'One item per image (a BruiseFailedItem only with keep_going=true)',
        ),
        ...PLUGIN_ERRORS,
      },
    });
  app.post(
    '/python/bruise_detection/DeepLearning',
    bruiseRoute('with the segmentation model (falls back to the classical method when no model is installed)'),
    bruise('auto'),
  );
  app.post('/python/bruise_detection/Classical', bruiseRoute('with the classical colour method'), bruise('classical'));

  const removeBackground = route({
    summary: 'Remove the background of one image',
    request: {
      body: multipart(
        {
          images: { ...imagesField, description: 'One image file (`image` and `file` are accepted too)', maxItems: 1 },
        },
        ['images'],
      ),
    },
    responses: { 200: media('image/png', 'The fruit on a transparent background'), ...PLUGIN_ERRORS },
  });
  app.post('/python/remove_background', removeBackground, async (c) => {
    const fields = await readMultipart(c, limits);
    const uploads = uploadedFiles(fields, ['images', 'image', 'file']);
    if (uploads.length !== 1) throw new MangoError('INVALID_INPUT', 'send exactly one image per request');
    const plan = planRun(ctx.registry, 'remove-background', {});
    const { results, store } = await score(c, plan, uploads, { output: { format: 'png' } });
    const r = results[0];
    throwFailure(r);
    const runId = await store();
    const png = r.image!;
    return c.body(png.buffer.slice(png.byteOffset, png.byteOffset + png.byteLength) as ArrayBuffer, 200, {
      'Content-Type': 'image/png',
      'Content-Disposition': `inline; filename="processed-${safeName(uploads[0].name)}.png"`,
      ...(runId ? { 'X-Run-Id': runId } : {}),
    });
  });

  return app;
}
