/**
 * Plugin endpoints that keep the original /api-py paths and payloads (product-spec.md section 7).
 * Every image is decoded and processed on the worker pool; bad input becomes a 4xx {detail}.
 */
import { Hono, type Context, type MiddlewareHandler } from 'hono';
import { z } from 'zod';
import { BruiseResultItem, MangoError } from '@mango/core';
import { GRADE_PRESETS, needsScale, scaleNeededMessage } from '@mango/core/grades';
import type { EncodedImage, JobResult, JobSuccess } from '@mango/runner';
import type { ServerContext } from '../../context.ts';
import { planRun, scoreUploads, storeRun, type RunPlan, type ScoreDeps, type ScoreExtras } from '../../runs/service.ts';
import type { RunOwner } from '../../runs/store.ts';
import { ANALYZE_FIELDS, BRUISE_FIELDS, fieldProperties, readFields } from './fields.ts';
import { callerLimits } from './guards.ts';
import { readMultipart, safeName, uploadedFiles, withUploadSpool, type Upload } from './uploads.ts';
import { describer, type RouteDescription } from '../../openapi/describe.ts';
import { detail, json, media, schemas, USER_OR_KEY } from '../../openapi/components.ts';

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

export function apiPyRoutes(ctx: ServerContext, options: ApiPyOptions = {}): Hono {
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

  /** Scores the call's photos; `store` then saves them as the caller's run (null: not stored). */
  async function score(c: Context, plan: RunPlan, uploads: Upload[], extras?: ScoreExtras) {
    const owner = options.runOwner?.(c) ?? null;
    // The models in force now (an activation reaches calls started CACHE_MS later at most).
    const models = await ctx.jobs.models.inForce();
    const scored = await scoreUploads({ ...deps, models }, plan, uploads, owner !== null, extras);
    const store = async () => (owner ? await storeRun(ctx.db, owner, plan, scored, ctx.jobs.keptRunPhotos) : null);
    return { results: scored.map((s) => s.result), store };
  }

  const route = describer({ tags: ['Imaging'], security: USER_OR_KEY });

  const analyze = route({
    summary: 'Feature analysis of each image',
    request: { body: multipart({ images: imagesField, ...fieldProperties(ANALYZE_FIELDS) }, ['images', 'features']) },
    responses: { 200: json(z.array(schemas.FeatureResultItem), 'One item per image'), ...PLUGIN_ERRORS },
  });
  app.post('/python/analyze', analyze, async (c) => {
    const fields = await readMultipart(c, limits);
    const { features, isolate } = readFields(ANALYZE_FIELDS, fields);
    const plan = planRun(ctx.registry, 'analyze', { features, ...(isolate ? { isolate } : {}) });
    const { results, store } = await score(c, plan, uploadedFiles(fields));
    const runId = await store();
    return c.json(
      results.map((r) =>
        r.ok
          ? { image_name: r.name, ...r.result, run_id: runId }
          : {
              image_name: r.name,
              error: r.error.status >= 500 ? 'the image could not be analysed' : r.error.message,
              run_id: runId,
            },
      ),
    );
  });

  const bruise = (method: 'auto' | 'classical') => async (c: Context) => {
    const fields = await readMultipart(c, limits);
    const uploads = uploadedFiles(fields);
    const {
      px_per_cm: pxPerCm,
      reference_mm: referenceMm,
      require_scale: requireScale,
      grades,
    } = readFields(BRUISE_FIELDS, fields);
    if (grades && needsScale(grades) && pxPerCm === undefined && referenceMm === undefined) {
      throw new MangoError('INVALID_INPUT', scaleNeededMessage(grades));
    }
    const plan = planRun(ctx.registry, 'bruise', {
      method,
      ...(pxPerCm !== undefined ? { pxPerCm } : {}),
      ...(referenceMm !== undefined ? { referenceMm } : {}),
      ...(requireScale ? { requireScale } : {}),
      // A preset by its id; rules sent as JSON are kept whole with the run.
      ...(grades ? { grades: GRADE_PRESETS[grades.id] === grades ? grades.id : grades } : {}),
    });
    const { results, store } = await score(c, plan, uploads);
    for (const r of results) throwFailure(r);
    const runId = await store();
    await options.onBruise?.(c, results.length, runId);
    return c.json(results.map((r) => (r.ok ? { ...bruiseItem(r), run_id: runId } : null)));
  };
  const bruiseRoute = (what: string) =>
    route({
      summary: `Bruised area of each image, ${what}`,
      request: { body: multipart({ images: imagesField, ...fieldProperties(BRUISE_FIELDS) }, ['images']) },
      responses: { 200: json(z.array(schemas.BruiseResultItem), 'One item per image'), ...PLUGIN_ERRORS },
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
