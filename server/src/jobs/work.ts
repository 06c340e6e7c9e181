/**
 * Scoring one photo of a job, wherever it runs (a server's in-process queue, a pg-boss worker in a
 * server or in `mango worker`): read the photo, run it on the worker threads, store the outcome once.
 * A photo the plugin refuses (not an image, too large, too slow) is stored with its error and the
 * job goes on; only a crash of the process (or of the database) leaves it to be retried.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { isMangoError, type Logger, type PluginRegistry } from '@mango/core';
import type { JobPool, JobResult } from '@mango/runner';
import type { DB } from '../db/index.ts';
import { planRun, scoreUploads, type ScoredPhoto } from '../runs/service.ts';
import { closeJob, hasResult, jobForPhoto, recordPhoto, type PhotoStore } from './store.ts';

export interface JobWorkDeps {
  db: DB;
  store: PhotoStore;
  pool: JobPool;
  /** the plugins whose declared runs the jobs ask for */
  registry: PluginRegistry;
  logger: Logger;
  maxPixels: number;
  maxBytes: number;
}

/** Runs the job on the pool; a full pool (BUSY: /api-py calls take it too) is waited out, not failed. */
async function runOnPool(pool: JobPool, job: Parameters<JobPool['run']>[0]): Promise<JobResult> {
  for (;;) {
    try {
      return await pool.run({ ...job, bytes: job.bytes?.slice() });
    } catch (e) {
      if (!(isMangoError(e) && e.code === 'BUSY')) throw e;
      await sleep(500);
    }
  }
}

type Job = NonNullable<Awaited<ReturnType<typeof jobForPhoto>>>;

async function store(deps: JobWorkDeps, job: Job, position: number, scored: ScoredPhoto) {
  const item = { ...scored.item!, run_id: job.run_id, position };
  if (await recordPhoto(deps.db, job.id, item, !scored.result.ok)) {
    await closeJob(deps.db, deps.store, deps.registry, job.id);
    deps.logger.info(`job ${job.id} done`);
  }
}

/** Scores one photo of a job the way /api-py scores a call's photos (runs/service.ts). */
function scoreOne(
  deps: JobWorkDeps,
  job: Job,
  bytes: Uint8Array,
  run = (j: Parameters<JobPool['run']>[0]) => runOnPool(deps.pool, j),
) {
  const plan = planRun(deps.registry, job.operation, job.options);
  const score = { run, concurrency: 1, maxPixels: deps.maxPixels, maxBytes: deps.maxBytes };
  return scoreUploads(score, plan, [{ name: job.name, bytes, meta: job.meta }], true, {
    fullOverlay: job.keepOverlays,
  });
}

/** Scores photo `position` of job `jobId` and stores its outcome (nothing when already stored or the job ended). */
export async function processPhoto(deps: JobWorkDeps, jobId: string, position: number): Promise<void> {
  const job = await jobForPhoto(deps.db, jobId, position);
  if (!job || (await hasResult(deps.db, job.run_id, position))) return;
  const bytes = await deps.store.read(deps.db, jobId, position);
  const [scored] = await scoreOne(deps, job, bytes);
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
  const failure = async (): Promise<JobResult> => ({
    ok: false,
    name: job.name,
    error: { code: 'STUCK', status: 422, message },
  });
  const [scored] = await scoreOne(deps, job, bytes, failure);
  await store(deps, job, position, scored);
}
