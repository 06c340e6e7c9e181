/**
 * Batch jobs (issue 14): POST /api-node/jobs takes `operation`, optional `options` (the plugin's
 * options as JSON), optional `keep_overlays` (`true`: each photo's full-size overlay is kept with
 * the run, GET /runs/{id}/items/{position}/overlay) and repeated `images` (or one `zip`), streams them to the job's photo store and
 * answers `{ id }` at once; GET /jobs/{id} answers its progress, GET /jobs/{id}/events streams it
 * (Server-Sent Events, bearer header), DELETE /jobs/{id} cancels it. An access token or an API key.
 * The results land in a stored run (`run_id`) as they are produced.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { Hono, type Context } from 'hono';
import { streamSSE } from 'hono/streaming';
import { z } from 'zod';
import { jobOperations, MangoError } from '@mango/core';
import type { Needs } from '../../context.ts';
import { requireUserOrServerKey, type Caller, type CallerEnv } from '../../auth/caller.ts';
import { cancelJob, createJob, failJob, jobView, queuedPhotosOf, type JobView } from '../../jobs/store.ts';
import { planRun, type RunPlan } from '../../runs/service.ts';
import { callerLimits } from '../api-py/guards.ts';
import { readMultipart, uploadedFiles, withUploadSpool, type MultipartForm } from '../api-py/uploads.ts';
import { zipPhotos } from './job-zip.ts';
import { META_FIELD_SCHEMAS, META_FILE_FIELDS, readMetaFields, withPhotoMeta } from '../api-py/meta.ts';
import { describer } from '../../openapi/describe.ts';
import { err, json, media, schemas, USER_OR_KEY, CALLER_REFUSALS } from '../../openapi/components.ts';

function text(form: MultipartForm, field: string): string | undefined {
  const v = form[field]?.find((x): x is string => typeof x === 'string');
  return v;
}

/**
 * The job's operation (a kind of run a plugin declares: `bruise`, `features`, `kmeans`,
 * `remove-background`) and options, checked by the run's own schema, strict, so that a key it does
 * not know is refused with its name rather than silently ignored (400 with the reason). The options
 * kept are the parsed ones (defaults filled in), never the text sent.
 */
function readJobFields(
  ctx: Needs<'registry'>,
  form: MultipartForm,
): { operation: string; plan: RunPlan; keepOverlays: boolean } {
  let options: unknown = {};
  const raw = text(form, 'options');
  if (raw !== undefined && raw.trim() !== '') {
    try {
      options = JSON.parse(raw);
    } catch {
      throw new MangoError('INVALID_INPUT', 'field `options` must be a JSON object');
    }
  }
  const operation = text(form, 'operation') ?? '';
  const plan = planRun(ctx.registry, operation, options);
  return { operation, plan, keepOverlays: keepOverlaysField(operation, plan, text(form, 'keep_overlays')) };
}

/** `keep_overlays`: `true` or `false` (the default); only a run that declares an overlay has one to keep. */
function keepOverlaysField(operation: string, plan: RunPlan, value: string | undefined): boolean {
  if (value === undefined || value === 'false') return false;
  if (value !== 'true') throw new MangoError('INVALID_INPUT', 'field `keep_overlays` must be true or false');
  if (!plan.kind.runs.overlay)
    throw new MangoError('INVALID_INPUT', `field \`keep_overlays\`: a ${operation} job has no overlay to keep`);
  return true;
}

/**
 * 429 {error, details} when the caller's photos waiting in the queue plus `adding` would pass
 * MAX_QUEUED_PHOTOS_PER_USER; Retry-After: about the time the queue needs for the excess (a photo
 * takes about a second of a thread), from 1 s to 1 h. Null: the photos may be queued.
 */
export async function queueCapRefusal(
  ctx: Needs<'config' | 'db' | 'pool'>,
  c: Context<CallerEnv>,
  adding: number,
): Promise<Response | null> {
  const maxQueued = ctx.config.maxQueuedPhotosPerUser;
  const queued = await queuedPhotosOf(ctx.db, c.get('caller').userId);
  // Before the upload is read (adding 0): refused only when not one more photo fits.
  const excess = queued + Math.max(1, adding) - maxQueued;
  if (excess <= 0) return null;
  c.header('Retry-After', String(Math.min(3600, Math.max(1, Math.ceil(excess / Math.max(1, ctx.pool.threads))))));
  const error =
    adding === 0
      ? `Too many photos queued: ${queued} of your photos are waiting (at most ${maxQueued}); wait for your jobs to progress`
      : `Too many photos queued: ${queued} of your photos are waiting and this job adds ${adding} (at most ${maxQueued} together); wait for your jobs to progress or send fewer photos`;
  return c.json({ error, details: { queued, adding, max: maxQueued } }, 429);
}

/** Creates the job (its run and photos) and hands it to the queue; a job that cannot be queued is failed. */
export async function startJob(
  ctx: Needs<'db' | 'jobs' | 'logger' | 'registry'>,
  owner: Caller,
  job: Parameters<typeof createJob>[3],
  uploads: Parameters<typeof createJob>[4],
): Promise<string> {
  const id = await createJob(ctx.db, ctx.jobs.store, owner, job, uploads);
  try {
    await ctx.jobs.queue.enqueue(id);
  } catch (e) {
    ctx.logger.error(`job ${id} could not be queued`, e);
    await failJob(ctx.db, ctx.jobs.store, ctx.registry, id, 'the job could not be queued');
  }
  return id;
}

const TERMINAL = new Set(['done', 'failed', 'cancelled']);
/** How often the event stream looks at the job (it may be advanced by any instance or worker). */
const EVENT_POLL_MS = 500;

export function jobRoutes(
  ctx: Needs<'config' | 'db' | 'dialect' | 'jobs' | 'jwtKey' | 'logger' | 'pool' | 'registry'>,
): Hono<CallerEnv> {
  const app = new Hono<CallerEnv>();
  const { db, jobs } = ctx;
  const notFound = (c: Context) => c.json({ error: 'Job not found' }, 404);
  // '/jobs/*' also matches '/jobs': one authentication (and one count against a key's limit) a request.
  app.use('/jobs/*', requireUserOrServerKey(ctx));

  const overQueueCap = (c: Context<CallerEnv>, adding: number) => queueCapRefusal(ctx, c, adding);

  const route = describer({ tags: ['Jobs'], security: USER_OR_KEY });
  const noJob = { 404: err('No such job of yours') };

  const start = route({
    summary:
      `Start a batch job: multipart \`operation\` (${jobOperations(ctx.registry).join(' | ')}), \`options\` (JSON, the plugin options; ` +
      'a key the plugin does not know is refused), repeated `images` or one `zip`, up to MAX_JOB_FILES photos. ' +
      'Answers at once; the results land in the stored run `run_id` as they are produced',
    request: {
      body: {
        required: true,
        content: {
          'multipart/form-data': {
            schema: z.object({
              operation: z.enum(jobOperations(ctx.registry)),
              options: z
                .string()
                .optional()
                .meta({
                  description:
                    'JSON object of the plugin options, named in snake_case as /api-py names them (px_per_cm, reference_mm, max_side). ' +
                    'Alias: the camelCase name of each option (pxPerCm, referenceMm, maxSide), the earlier spelling of this API, is accepted too; ' +
                    'both spellings of one option with different values is a 400',
                }),
              keep_overlays: z
                .enum(['true', 'false'])
                .optional()
                .meta({
                  description:
                    "true: each photo's full-size overlay is kept with the run (GET /api-node/runs/{id}/items/{position}/overlay); " +
                    'only for runs with an overlay (bruise)',
                }),
              ...META_FIELD_SCHEMAS,
              images: z.array(z.string().meta({ format: 'binary' })).optional(),
              zip: z.string().meta({ format: 'binary' }).optional(),
            }),
          },
        },
      },
    },
    responses: {
      202: json(
        z.object({
          id: z.string(),
          warnings: z.array(z.string()).optional().meta({
            description:
              'With `meta` / `meta_csv`: one line per photo whose name gave no metadata (its values are null)',
          }),
        }),
        'The job was accepted',
      ),
      400: err('Bad operation, options or photos'),
      ...CALLER_REFUSALS,
      413: err('A photo or the upload is too large'),
      429: err(
        "Over the API key's per-minute limit, too many requests or uploads at once, or more than " +
          'MAX_QUEUED_PHOTOS_PER_USER of your photos would be waiting (refused before the photos are stored; see Retry-After)',
      ),
    },
  });
  app.post('/jobs', start, callerLimits(ctx), withUploadSpool(ctx.config.uploadDir), async (c) => {
    // A full queue is refused before any of the upload is read.
    const full = await overQueueCap(c, 0);
    if (full) return full;
    const limits = {
      maxFileBytes: ctx.config.maxUploadBytes,
      maxFiles: ctx.config.maxJobFiles,
      maxTotalBytes: ctx.config.maxJobBytes,
    };
    const form = await readMultipart(c, limits, ['images', 'zip', ...META_FILE_FIELDS]);
    const { operation, plan, keepOverlays } = readJobFields(ctx, form);
    const meta = await readMetaFields(form, [plan.kind]);
    const zips = uploadedFilesOrNone(form, 'zip');
    const sent = zips.length
      ? await zipPhotos(zips, c.get('uploadSpool').dir, limits)
      : uploadedFiles(form, ['images']);
    const { uploads, warnings } = withPhotoMeta(sent, meta);
    // ... and a job that would overfill it, before its photos are stored (the spool is removed).
    const over = await overQueueCap(c, uploads.length);
    if (over) return over;
    const models = (await jobs.models.inForce()).map((m) => m.id);
    const job = { operation, ...plan, keepOverlays, models, meta: meta?.provenance ?? null };
    const id = await startJob(ctx, c.get('caller'), job, uploads);
    return c.json(meta ? { id, warnings } : { id }, 202);
  });

  const progress = route({
    summary: 'The progress of one of your jobs (done + failed = total once it is done)',
    responses: { 200: json(schemas.JobProgress, 'The job'), ...CALLER_REFUSALS, ...noJob },
  });
  app.get('/jobs/:id', progress, async (c) => {
    const view = await jobView(db, c.req.param('id'), c.get('caller').userId);
    return view ? c.json(view) : notFound(c);
  });

  const events = route({
    summary: 'Server-Sent Events: a `progress` event (JobProgress) on every change, until the job ends',
    responses: {
      200: media('text/event-stream', 'text/event-stream', { type: 'string' }),
      ...CALLER_REFUSALS,
      ...noJob,
    },
  });
  app.get('/jobs/:id/events', events, async (c) => {
    const id = c.req.param('id');
    const userId = c.get('caller').userId;
    const first = await jobView(db, id, userId);
    if (!first) return notFound(c);
    // A database gone away (the server stopping) ends the stream; the client opens it again.
    const ended = async () => {};
    return streamSSE(
      c,
      async (stream) => {
        let last = '';
        let view: JobView | null = first;
        while (view && !stream.aborted) {
          const data = JSON.stringify(view);
          if (data !== last) {
            await stream.writeSSE({ event: 'progress', data });
            last = data;
          }
          if (TERMINAL.has(view.state)) break;
          await sleep(EVENT_POLL_MS);
          view = await jobView(db, id, userId);
        }
      },
      ended,
    );
  });

  const cancel = route({
    summary: 'Cancel one of your jobs: no more photos are scored; the ones done stay in its run',
    responses: { 200: json(schemas.JobProgress, 'The job, cancelled'), ...CALLER_REFUSALS, ...noJob },
  });
  app.delete('/jobs/:id', cancel, async (c) => {
    const id = c.req.param('id');
    const userId = c.get('caller').userId;
    if (!(await jobView(db, id, userId))) return notFound(c);
    await cancelJob(db, jobs.store, ctx.registry, id, userId);
    return c.json(await jobView(db, id, userId));
  });

  return app;
}

function uploadedFilesOrNone(form: MultipartForm, field: string) {
  return (form[field] ?? []).filter((v) => typeof v !== 'string');
}
