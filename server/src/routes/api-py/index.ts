/**
 * Plugin endpoints that keep the original /api-py paths and payloads (product-spec.md section 7).
 * Every image is decoded and processed on the worker pool; bad input becomes a 4xx {detail}.
 */
import { Hono, type MiddlewareHandler } from 'hono';
import { BruiseResultItem, MangoError, type PipelineStep } from '@mango/core';
import type { EncodedImage, ImageJob, JobResult, JobSuccess } from '@mango/runner';
import type { ServerContext } from '../../context.ts';
import { runJobOptions, type RecordRun } from '../../runs/index.ts';
import { ANALYZE_FIELDS, BRUISE_FIELDS, readFields } from './fields.ts';
import { gradeResult, needsScale } from '@mango/core/grades';
import { BruiseFigures } from '@mango/core/results';
import { callerLimits } from './guards.ts';
import { mapLimit, readMultipart, safeName, uploadedFiles, withUploadSpool, type Upload } from './uploads.ts';

export interface ApiPyOptions {
  /** authentication for these endpoints (user token or partner API key) */
  auth?: MiddlewareHandler;
  /** called after a successful bruise call (history logging for API-key callers) */
  onBruise?: (c: Parameters<MiddlewareHandler>[0], count: number, runId: string | null) => Promise<void>;
  /** starts storing the call as a run (server/src/runs), before its jobs take the uploads; undefined: not stored */
  startRun?: (
    c: Parameters<MiddlewareHandler>[0],
    operation: 'bruise' | 'analyze',
    uploads: Upload[],
  ) => RecordRun | undefined;
}

function jobError(r: JobResult): MangoError | null {
  if (r.ok) return null;
  const code = r.error.code as ConstructorParameters<typeof MangoError>[0];
  return r.error.status >= 500 ? null : new MangoError(code, r.error.message);
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

  // The worker reads the spooled file: the photo's bytes never sit on this thread.
  const run = (u: Upload, steps: PipelineStep[], extra: Partial<ImageJob> = {}) =>
    ctx.pool.run({ ...extra, name: u.name, path: u.path, steps, maxPixels, maxBytes: maxUploadBytes });
  // A request runs as many photos at once as there are threads, so one request cannot fill the queue.
  const runEach = (uploads: Upload[], steps: PipelineStep[], extra?: Partial<ImageJob>) =>
    mapLimit(uploads, Math.max(1, ctx.pool.threads), (u) => run(u, steps, extra));

  app.post('/python/analyze', async (c) => {
    const fields = await readMultipart(c, limits);
    const { features, isolate } = readFields(ANALYZE_FIELDS, fields);
    const uploads = uploadedFiles(fields);
    const steps: PipelineStep[] = [
      ...(isolate ? [{ plugin: 'remove-background' }] : []),
      { plugin: 'features', options: { features } },
    ];
    const recordRun = options.startRun?.(c, 'analyze', uploads);
    const results = await runEach(uploads, steps, recordRun && runJobOptions('analyze'));
    const runId = (await recordRun?.(results, { features, isolate })) ?? null;
    return c.json(
      results.map((r) =>
        r.ok
          ? { image_name: r.name, ...(r.result as object), run_id: runId }
          : {
              image_name: r.name,
              error: r.error.status >= 500 ? 'the image could not be analysed' : r.error.message,
              run_id: runId,
            },
      ),
    );
  });

  const bruise = (method: 'auto' | 'classical') => async (c: Parameters<MiddlewareHandler>[0]) => {
    const fields = await readMultipart(c, limits);
    const uploads = uploadedFiles(fields);
    const { px_per_cm: pxPerCm, reference_mm: referenceMm, grades } = readFields(BRUISE_FIELDS, fields);
    if (grades && needsScale(grades) && pxPerCm === undefined && referenceMm === undefined) {
      throw new MangoError(
        'INVALID_INPUT',
        `grades ${grades.id} grades on bruise area in cm² and needs a scale: send reference_mm (a round object in the photo) or px_per_cm`,
      );
    }
    const opts: Record<string, unknown> = { method };
    if (pxPerCm !== undefined) opts.pxPerCm = pxPerCm;
    if (referenceMm !== undefined) opts.referenceMm = referenceMm;
    const recordRun = options.startRun?.(c, 'bruise', uploads);
    // A stored run keeps a thumbnail of each photo, made by the worker; an unstored call needs none.
    const results = await runEach(uploads, [{ plugin: 'bruise', options: opts }], recordRun && runJobOptions('bruise'));
    // One bad file fails the request with its reason; nothing else is stored, so nothing is lost.
    for (const r of results) {
      if (!r.ok) throw jobError(r) ?? new Error(r.error.message);
      // Each fruit graded (sizes estimated from its area): the stored run keeps the grades too.
      if (grades) r.result = gradeResult(BruiseFigures.parse(r.result), grades);
    }
    const runId = (await recordRun?.(results, grades ? { ...opts, grades: grades.id } : opts)) ?? null;
    await options.onBruise?.(c, results.length, runId);
    return c.json(results.map((r) => (r.ok ? { ...bruiseItem(r), run_id: runId } : null)));
  };
  app.post('/python/bruise_detection/DeepLearning', bruise('auto'));
  app.post('/python/bruise_detection/Classical', bruise('classical'));

  app.post('/python/remove_background', async (c) => {
    const fields = await readMultipart(c, limits);
    const uploads = uploadedFiles(fields, ['images', 'image', 'file']);
    if (uploads.length !== 1) throw new MangoError('INVALID_INPUT', 'send exactly one image per request');
    const r = await run(uploads[0], [{ plugin: 'remove-background' }], { output: { format: 'png' } });
    if (!r.ok) throw jobError(r) ?? new Error(r.error.message);
    const png = r.image!;
    return c.body(png.buffer.slice(png.byteOffset, png.byteOffset + png.byteLength) as ArrayBuffer, 200, {
      'Content-Type': 'image/png',
      'Content-Disposition': `inline; filename="processed-${safeName(uploads[0].name)}.png"`,
    });
  });

  return app;
}
