/**
 * Scoring one photo of a job, wherever it runs (a server's in-process queue, a pg-boss worker in a
 * server or in `mango worker`): read the photo, run it on the worker threads, store the outcome once.
 * A photo the plugin refuses (not an image, too large, too slow) is stored with its error and the
 * job goes on; only a crash of the process (or of the database) leaves it to be retried.
 */
import type { Logger, PluginRegistry } from '@mango/core';
import type { JobPool, JobResult } from '@mango/runner';
import type { DB } from '../db/index.ts';
import type { ModelRegistry } from '../models/registry.ts';
import { keptPhotoRow, planRun, runWhenFree, scoreUploads, type ScoredPhoto } from '../runs/service.ts';
import type { RunPhotoStore } from '../runs/photos.ts';
import { hasKeptPhoto, hasResult, jobForPhoto, PhotoGone, recordPhoto, type PhotoStore } from './store.ts';

export interface JobWorkDeps {
  db: DB;
  store: PhotoStore;
  /** where the job's run keeps each scored photo (null: KEEP_RUN_PHOTOS=0) */
  runPhotos?: RunPhotoStore | null;
  pool: JobPool;
  /** the plugins whose declared runs the jobs ask for */
  registry: PluginRegistry;
  logger: Logger;
  maxPixels: number;
  maxBytes: number;
  /** where the job's model versions are found (and the ones in force, for a job without any) */
  models: ModelRegistry;
}

type Job = NonNullable<Awaited<ReturnType<typeof jobForPhoto>>>;

async function store(deps: JobWorkDeps, job: Job, position: number, scored: ScoredPhoto) {
  const item = { ...scored.item!, run_id: job.run_id, position };
  const photo = await keptPhotoRow(deps.runPhotos ?? null, job.run_id, position, scored);
  const completed = await recordPhoto(deps.db, job.id, item, !scored.result.ok, photo, deps.registry);
  // A directory store wrote the file first: it goes again when its row was not inserted (a
  // duplicate of a retried photo keeps the first one's row, so its file is kept).
  if (photo && deps.runPhotos && !deps.runPhotos.inDatabase && !(await hasKeptPhoto(deps.db, job.run_id, position)))
    await deps.runPhotos.discard(job.run_id, position);
  if (completed) {
    // recordPhoto wrote the run's figures with the job's last photo: what is left is its spooled photos
    await deps.store.removeJob(deps.db, job.id);
    deps.logger.info(`job ${job.id} done`);
  }
}

/** Scores one photo of a job the way /api-py scores a call's photos (runs/service.ts). */
async function scoreOne(
  deps: JobWorkDeps,
  job: Job,
  bytes: Uint8Array,
  run = (j: Parameters<JobPool['run']>[0]) => runWhenFree(deps.pool, j),
) {
  const plan = planRun(deps.registry, job.operation, job.options);
  // The job's own models (fixed when it was made), so its run records one model.
  const models = job.models ? await deps.models.entries(job.models) : await deps.models.inForce();
  const score = { run, concurrency: 1, maxPixels: deps.maxPixels, maxBytes: deps.maxBytes, models };
  return scoreUploads(score, plan, [{ name: job.name, bytes, meta: job.meta }], true, {
    fullOverlay: job.keepOverlays,
  });
}

/** Scores photo `position` of job `jobId` and stores its outcome (nothing when already stored or the job ended). */
export async function processPhoto(deps: JobWorkDeps, jobId: string, position: number): Promise<void> {
  const job = await jobForPhoto(deps.db, jobId, position);
  if (!job || (await hasResult(deps.db, job.run_id, position))) return;
  const bytes = await deps.store.read(deps.db, jobId, position).catch((e: unknown) => {
    if (e instanceof PhotoGone) return e;
    throw e;
  });
  // A photo that is gone for good (a re-scoring whose run was deleted) fails at once, with the reason.
  if (bytes instanceof PhotoGone)
    return storeFailure(deps, job, position, new Uint8Array(), {
      code: 'PHOTO_GONE',
      status: 422,
      message: `${job.name}: ${bytes.message}`,
    });
  const [scored] = await scoreOne(deps, job, bytes);
  await store(deps, job, position, scored);
}

/** Stores the photo as failed with `error`, its item made without scoring it. */
async function storeFailure(
  deps: JobWorkDeps,
  job: Job,
  position: number,
  bytes: Uint8Array,
  error: { code: string; status: number; message: string },
): Promise<void> {
  const failure = async (): Promise<JobResult> => ({ ok: false, name: job.name, error });
  const [scored] = await scoreOne(deps, job, bytes, failure);
  await store(deps, job, position, scored);
}

/** Stores a photo whose every attempt crashed as failed, with the reason, so the job can end. */
export async function giveUpPhoto(deps: JobWorkDeps, jobId: string, position: number, reason: string): Promise<void> {
  const job = await jobForPhoto(deps.db, jobId, position);
  if (!job || (await hasResult(deps.db, job.run_id, position))) return;
  const bytes = await deps.store.read(deps.db, jobId, position).catch(() => new Uint8Array());
  deps.logger.warn(`job ${jobId}: photo ${position} (${job.name}) given up: ${reason}`);
  const message = `${job.name}: not processed after repeated attempts (${reason})`;
  // The photo is not scored again: its item is made from this failure.
  await storeFailure(deps, job, position, bytes, { code: 'STUCK', status: 422, message });
}
