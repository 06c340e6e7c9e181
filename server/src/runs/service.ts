/**
 * The one way a photo is scored on the server (issue 24): `/api-py` and the batch-job worker both
 * call `scoreUploads` with a run plan (the kind of run its plugin declares and the run's options,
 * checked by `planRun`). The plan gives the pipeline; the declared `finish` (grading) runs after it;
 * when the photos are to be stored the workers also make the thumbnails a stored run keeps, so an
 * item row never needs the photo read back or an overlay decoded again.
 */
import { createHash, randomUUID } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import {
  finishResult,
  isMangoError,
  photoErrorText,
  sanitizeFileName,
  storedResult,
  type Logger,
  type MetaProvenance,
  type PhotoMeta,
  type RunPlan,
} from '@mango/core';
import { THUMBNAIL_MAX_SIDE } from '@mango/core/results';
import { setTimeout as sleep } from 'node:timers/promises';
import type { EncodedImage, ImageJob, JobPool, JobResult, JobSuccess } from '@mango/runner';
import type { DB } from '../db/index.ts';
import { cancelJobsOfRun, type PhotoStore } from '../jobs/store.ts';
export { planRun, type RunPlan } from '@mango/core';
import { deleteRunRows, insertRun, isOwnedRun, runRowOf, type RunItemRow, type RunOwner } from './store.ts';
import type { RunPhotoRow, RunPhotoStore } from './photos.ts';

/** A photo to score: spooled to disk by a request, or its bytes (a job's photo store). */
export interface PhotoInput {
  name: string;
  path?: string;
  bytes?: Uint8Array;
  /** the photo's experiment metadata (core/src/meta.ts), kept in its stored result's `meta` */
  meta?: PhotoMeta;
}

/** Runs one image job (the worker pool's `run`, or a wrapper that waits out a full pool). */
export type RunImageJob = (job: ImageJob) => Promise<JobResult>;

export interface ScoreDeps {
  run: RunImageJob;
  /** photos scored at once */
  concurrency: number;
  maxPixels: number;
  maxBytes: number;
  /** the models the photos may use (the registry's versions in force, or a job's); unset: MODELS_DIR's */
  models?: ImageJob['models'];
}

/**
 * What the front end wants back besides the figures: extra images, a transform's output; and, for
 * photos that are stored, `fullOverlay`: their item keeps the declared overlay as its plugin encoded
 * it (full size), besides its thumbnail (a job with `keep_overlays`).
 */
export type ScoreExtras = Pick<ImageJob, 'images' | 'output'> & { fullOverlay?: boolean };

/** A scored photo: the job's result (finished: graded, for instance) and, when stored, its item row. */
export interface ScoredPhoto {
  result: JobResult;
  /** the item row of a stored run (without its run id and position, given when it is inserted) */
  item?: Omit<RunItemRow, 'run_id' | 'position'>;
  /** when stored: the uploaded photo, which the run keeps when it was scored (KEEP_RUN_PHOTOS) */
  source?: PhotoInput;
}

/**
 * Runs `fn` on each item with at most `limit` at a time, results in input order. The first failure
 * rejects, and no further item is started (the request has failed: its photos need no more CPU).
 */
export async function mapLimit<T, R>(items: readonly T[], limit: number, fn: (item: T) => Promise<R>): Promise<R[]> {
  const results = new Array<R>(items.length);
  let next = 0;
  let failed = false;
  const lane = async () => {
    while (!failed && next < items.length) {
      const i = next++;
      try {
        results[i] = await fn(items[i]);
      } catch (e) {
        failed = true;
        throw e;
      }
    }
  };
  await Promise.all(Array.from({ length: Math.max(1, Math.min(limit, items.length)) }, lane));
  return results;
}

/**
 * Runs the job on the pool; a full pool (BUSY: /api-py calls take it too) is waited out, not failed
 * (a job's photo, a full-resolution export's).
 */
export async function runWhenFree(pool: JobPool, job: ImageJob): Promise<JobResult> {
  for (;;) {
    try {
      return await pool.run({ ...job, bytes: job.bytes?.slice() });
    } catch (e) {
      if (!(isMangoError(e) && e.code === 'BUSY')) throw e;
      await sleep(500);
    }
  }
}

/** The image job's own asks that bring back the declared overlay at full size (it is not a thumbnail). */
function fullOverlayAsks(overlay: string, extras: ScoreExtras): ScoreExtras {
  if (overlay === 'output') return { output: extras.output ?? { format: 'png' } };
  // Unset `images`: the plugin returns its default images, the overlay among them.
  return extras.images && !extras.images.includes(overlay) ? { images: [...extras.images, overlay] } : {};
}

/** The job of one photo: the plan's steps, and the thumbnails (and full overlay) a stored run keeps when `keep`. */
function imageJob(deps: ScoreDeps, plan: RunPlan, photo: PhotoInput, keep: boolean, extras: ScoreExtras): ImageJob {
  const { runs } = plan.kind;
  const { fullOverlay, ...asks } = extras;
  return {
    ...asks,
    ...(keep && fullOverlay && runs.overlay ? fullOverlayAsks(runs.overlay, asks) : {}),
    name: photo.name,
    path: photo.path,
    bytes: photo.bytes,
    steps: plan.steps,
    maxPixels: deps.maxPixels,
    maxBytes: deps.maxBytes,
    ...(deps.models ? { models: deps.models } : {}),
    ...(keep && runs.photoThumbnail ? { thumbnail: THUMBNAIL_MAX_SIDE } : {}),
    ...(keep && runs.overlay ? { imageThumbnail: { name: runs.overlay, maxSide: THUMBNAIL_MAX_SIDE } } : {}),
  };
}

/** The declared `finish` (grading, ...) on a successful result; a refusal becomes the photo's error. */
function finished(plan: RunPlan, r: JobResult): JobResult {
  if (!r.ok) return r;
  try {
    return { ...r, result: finishResult(plan, r.result) };
  } catch (e) {
    if (!isMangoError(e)) throw e;
    return { ok: false, name: r.name, sha256: r.sha256, error: { code: e.code, status: e.status, message: e.message } };
  }
}

const sha256Hex = (bytes: Uint8Array) => createHash('sha256').update(bytes).digest('hex');

/** The declared overlay of a scored photo as its plugin encoded it (a transform's output as `job.output` asked). */
function encodedOverlay(plan: RunPlan, job: ImageJob, r: JobSuccess): EncodedImage | null {
  const name = plan.kind.runs.overlay;
  if (name !== 'output') return (name && r.images[name]) || null;
  return r.image ? { bytes: r.image, mime: job.output?.format === 'jpeg' ? 'image/jpeg' : 'image/png' } : null;
}

/** The item row of a scored photo (the worker made its hash, size, thumbnails and, when asked, full overlay). */
async function itemOf(
  plan: RunPlan,
  photo: PhotoInput,
  job: ImageJob,
  r: JobResult,
  fullOverlay: boolean,
): Promise<ScoredPhoto['item']> {
  const filename = sanitizeFileName(photo.name);
  // The worker hashed the bytes it read; hashed here only when it could not read them.
  const sha256 =
    r.sha256 ??
    sha256Hex(
      photo.bytes ??
        (photo.path ? new Uint8Array(await readFile(photo.path).catch(() => Buffer.alloc(0))) : new Uint8Array()),
    );
  const result = r.ok
    ? storedResult(plan.kind, filename, { figures: r.result }, photo.meta)
    : storedResult(plan.kind, filename, { error: photoErrorText(r.error) }, photo.meta);
  const overlay = r.ok && fullOverlay ? encodedOverlay(plan, job, r) : null;
  return {
    filename,
    sha256,
    width: r.ok ? r.size.width : null,
    height: r.ok ? r.size.height : null,
    result: JSON.stringify(result),
    overlay: r.ok ? (r.imageThumbnail ?? null) : null,
    photo: r.ok ? (r.thumbnail ?? null) : null,
    overlay_image: overlay?.bytes ?? null,
    overlay_image_type: overlay?.mime ?? null,
  };
}

/**
 * Scores the photos with the plan, as many at once as `deps.concurrency`, in input order; with
 * `keep` (the photos are to be stored) each also gets its item row (with `extras.fullOverlay`, its
 * full-size overlay too).
 */
export async function scoreUploads(
  deps: ScoreDeps,
  plan: RunPlan,
  photos: readonly PhotoInput[],
  keep: boolean,
  extras: ScoreExtras = {},
): Promise<ScoredPhoto[]> {
  return mapLimit(photos, deps.concurrency, async (photo) => {
    const job = imageJob(deps, plan, photo, keep, extras);
    const result = finished(plan, await deps.run(job));
    if (!keep) return { result };
    return { result, item: await itemOf(plan, photo, job, result, Boolean(extras.fullOverlay)), source: photo };
  });
}

/**
 * The `run_photos` row of a scored photo its run keeps (null: photos are not kept, or it was not
 * scored: nothing to re-score or correct); a directory store writes the file now.
 */
export async function keptPhotoRow(
  photos: RunPhotoStore | null,
  runId: string,
  position: number,
  scored: ScoredPhoto,
): Promise<RunPhotoRow | null> {
  if (!photos || !scored.result.ok || !scored.source) return null;
  return photos.prepare(runId, position, scored.source);
}

/**
 * Stores scored photos (kept with `keep`) as a new run of `owner`, with the photos themselves
 * when `photos` is a store (KEEP_RUN_PHOTOS), and where their metadata came from (`meta`, the
 * provenance's); answers its id.
 */
export async function storeRun(
  db: DB,
  owner: RunOwner,
  plan: RunPlan,
  scored: readonly ScoredPhoto[],
  photos: RunPhotoStore | null = null,
  meta: MetaProvenance | null = null,
): Promise<string> {
  const id = randomUUID();
  const items = scored.map((s, position) => {
    if (!s.item) throw new Error('storeRun: the photos were scored without keep');
    return { ...s.item, run_id: id, position };
  });
  try {
    const kept: RunPhotoRow[] = [];
    for (const [position, s] of scored.entries()) {
      const row = await keptPhotoRow(photos, id, position, s);
      if (row) kept.push(row);
    }
    await insertRun(db, runRowOf(id, owner, plan.kind, plan.options, items, items.length, meta), items, kept);
  } catch (e) {
    await photos?.removeRun(id);
    throw e;
  }
  return id;
}

/**
 * Deletes the user's run; false when there is no such run of theirs. A job still filling it is
 * cancelled first, in the same transaction (its row locked: a photo being stored waits, or went
 * first and its item is deleted with the run), so no worker inserts into the run once it is gone;
 * the cancelled jobs' photos are removed after it.
 */
export async function deleteRun(
  deps: {
    db: DB;
    photos: PhotoStore;
    runPhotos: RunPhotoStore;
    logger: Logger;
    /** the cache of its kept photos scored again (runs/rescored.ts) */
    rescored?: { dropRun(runId: string): void };
  },
  userId: number,
  id: string,
): Promise<boolean> {
  const cancelled = await deps.db.transaction().execute(async (trx) => {
    if (!(await isOwnedRun(trx, userId, id))) return null;
    const jobs = await cancelJobsOfRun(trx, id);
    await deleteRunRows(trx, userId, id);
    return jobs;
  });
  if (!cancelled) return false;
  // Its kept photos' files (a database store's rows went with the transaction).
  await deps.runPhotos.removeRun(id);
  // ... and their images scored again
  deps.rescored?.dropRun(id);
  for (const jobId of cancelled) {
    deps.logger.info(`job ${jobId} cancelled: its run ${id} was deleted`);
    await deps.photos.removeJob(deps.db, jobId);
  }
  return true;
}
