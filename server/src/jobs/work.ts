/**
 * Scoring one photo of a job, wherever it runs (a server's in-process queue, a pg-boss worker in a
 * server or in `mango worker`): read the photo, run it on the worker threads, store the outcome once.
 * A photo the plugin refuses (not an image, too large, too slow) is stored with its error and the
 * job goes on; only a crash of the process (or of the database) leaves it to be retried.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { isMangoError, type Logger } from '@mango/core';
import type { JobPool, JobResult } from '@mango/runner';
import type { DB } from '../db/index.ts';
import { runJobOptions } from '../runs/index.ts';
import {
  closeJob,
  hasResult,
  jobForPhoto,
  jobSteps,
  photoItem,
  recordPhoto,
  runOperationOf,
  type PhotoStore,
} from './store.ts';

export interface JobWorkDeps {
  db: DB;
  store: PhotoStore;
  pool: JobPool;
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

async function store(
  deps: JobWorkDeps,
  job: NonNullable<Awaited<ReturnType<typeof jobForPhoto>>>,
  position: number,
  bytes: Uint8Array,
  result: JobResult,
) {
  const item = await photoItem(job, position, bytes, result);
  if (await recordPhoto(deps.db, job.id, item, !result.ok)) {
    await closeJob(deps.db, deps.store, job.id);
    deps.logger.info(`job ${job.id} done`);
  }
}

/** Scores photo `position` of job `jobId` and stores its outcome (nothing when already stored or the job ended). */
export async function processPhoto(deps: JobWorkDeps, jobId: string, position: number): Promise<void> {
  const job = await jobForPhoto(deps.db, jobId, position);
  if (!job || (await hasResult(deps.db, job.run_id, position))) return;
  const bytes = await deps.store.read(deps.db, jobId, position);
  const result = await runOnPool(deps.pool, {
    name: job.name,
    bytes,
    steps: jobSteps(job.operation, job.options),
    ...runJobOptions(runOperationOf(job.operation)),
    maxPixels: deps.maxPixels,
    maxBytes: deps.maxBytes,
  });
  await store(deps, job, position, bytes, result);
}

/** Stores a photo whose every attempt crashed as failed, with the reason, so the job can end. */
export async function giveUpPhoto(deps: JobWorkDeps, jobId: string, position: number, reason: string): Promise<void> {
  const job = await jobForPhoto(deps.db, jobId, position);
  if (!job || (await hasResult(deps.db, job.run_id, position))) return;
  const bytes = await deps.store.read(deps.db, jobId, position).catch(() => new Uint8Array());
  deps.logger.warn(`job ${jobId}: photo ${position} (${job.name}) given up: ${reason}`);
  const message = `${job.name}: not processed after repeated attempts (${reason})`;
  await store(deps, job, position, bytes, {
    ok: false,
    name: job.name,
    error: { code: 'STUCK', status: 422, message },
  });
}
