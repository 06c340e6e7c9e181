/**
 * Batch jobs in the database (issue 14): the job row, its photos until it ends, and the stored run
 * its results land in. Every function here is safe to call from any server instance or
 * `mango worker` process at once: a photo's result is inserted once (unique run_id + position), and
 * the counters move in the same transaction, so a photo retried after a crash is counted once.
 */
import { randomUUID } from 'node:crypto';
import { copyFile, mkdir, readFile, rename, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { runKindFor, type MetaProvenance, type PhotoMeta, type PluginRegistry, type RunKind } from '@mango/core';
import type { JobProgress, JobState } from '@mango/core/jobs';
import type { ExpressionBuilder, Transaction } from 'kysely';
import type { DB } from '../db/index.ts';
import type { Database, RunPhotosTable } from '../db/schema.ts';
import { now } from '../db/index.ts';
import { PRIVATE_DIR_MODE } from '../db/private-files.ts';
import { runFigures, runRowOf, type RunItemRow, type RunOwner } from '../runs/store.ts';
import type { RunPhotoStore } from '../runs/photos.ts';

/** The operation a job asks for (POST /api-node/jobs `operation`): a plugin's declared job operation. */
export type JobOperation = string;
export type { JobState };
export /** A job photo (job_files joined to jobs) whose result is not stored in the job's run yet. */
function notYetStored(eb: ExpressionBuilder<Database, 'job_files' | 'jobs'>) {
  return eb.not(
    eb.exists(
      eb
        .selectFrom('run_items')
        .select('run_items.id')
        .whereRef('run_items.run_id', '=', 'jobs.run_id')
        .whereRef('run_items.position', '=', 'job_files.position'),
    ),
  );
}

const ACTIVE_STATES: JobState[] = ['queued', 'running'];

/** The answer of GET /api-node/jobs/{id}. */
export type JobView = JobProgress;

export type JobOwner = RunOwner;

/** An uploaded photo, spooled to disk by the request. */
export interface JobUpload {
  name: string;
  path: string;
  size: number;
  /** the photo's experiment metadata (core/src/meta.ts), when the job has them */
  meta?: PhotoMeta;
}

/**
 * A kept photo of a stored run, as a job's photo (a re-scoring, jobs/rescore.ts): the job's row
 * names it and the worker reads it from the run's photo store (`withKeptPhotos`); no bytes are copied.
 */
export interface KeptPhotoRef {
  name: string;
  size: number;
  meta?: PhotoMeta;
  source: { runId: string; position: number };
}

const isKeptPhotoRef = (u: JobUpload | KeptPhotoRef): u is KeptPhotoRef => 'source' in u;

/**
 * Where a job's photos wait for a worker: in the database (PostgreSQL's default: every worker on
 * any machine reaches them) or in a directory (SQLite's default; on PostgreSQL a shared directory).
 */
export interface PhotoStore {
  /** true: the bytes go in job_files.data */
  readonly inDatabase: boolean;
  /** takes the spooled file (moved or read) and stores it */
  put(db: DB, jobId: string, position: number, upload: JobUpload): Promise<void>;
  read(db: DB, jobId: string, position: number): Promise<Uint8Array>;
  /** removes every photo of the job */
  removeJob(db: DB, jobId: string): Promise<void>;
}

export function databasePhotoStore(): PhotoStore {
  return {
    inDatabase: true,
    async put(db, jobId, position, upload) {
      const data = new Uint8Array(await readFile(upload.path));
      await db
        .updateTable('job_files')
        .set({ data })
        .where('job_id', '=', jobId)
        .where('position', '=', position)
        .execute();
    },
    async read(db, jobId, position) {
      const row = await db
        .selectFrom('job_files')
        .select('data')
        .where('job_id', '=', jobId)
        .where('position', '=', position)
        .executeTakeFirst();
      if (!row?.data) throw new Error(`photo ${position} of job ${jobId} is gone`);
      return new Uint8Array(row.data);
    },
    async removeJob(db, jobId) {
      await db.deleteFrom('job_files').where('job_id', '=', jobId).execute();
    },
  };
}

export function directoryPhotoStore(root: string): PhotoStore {
  const dirOf = (jobId: string) => join(root, jobId);
  return {
    inDatabase: false,
    async put(_db, jobId, position, upload) {
      await mkdir(dirOf(jobId), { recursive: true, mode: PRIVATE_DIR_MODE });
      const target = join(dirOf(jobId), String(position));
      // A shared directory may sit on another file system than the request's spool.
      await rename(upload.path, target).catch(async (e: NodeJS.ErrnoException) => {
        if (e.code !== 'EXDEV') throw e;
        await copyFile(upload.path, target);
      });
    },
    async read(_db, jobId, position) {
      return new Uint8Array(await readFile(join(dirOf(jobId), String(position))));
    },
    async removeJob(db, jobId) {
      await db.deleteFrom('job_files').where('job_id', '=', jobId).execute();
      await rm(dirOf(jobId), { recursive: true, force: true });
    },
  };
}

/** A job's photo that is no longer there to read (a kept photo of a run deleted meanwhile). */
export class PhotoGone extends Error {}

/**
 * The job photo store `store` that also reads a job's photos that are kept photos of a run
 * (`job_files.source_run_id`) from `runPhotos`, where they are: a re-scoring copies no photo. A photo
 * whose run was deleted meanwhile is PhotoGone: the worker stores it as failed with that reason.
 */
export function withKeptPhotos(store: PhotoStore, runPhotos: RunPhotoStore): PhotoStore {
  return {
    inDatabase: store.inDatabase,
    put: (db, jobId, position, upload) => store.put(db, jobId, position, upload),
    removeJob: (db, jobId) => store.removeJob(db, jobId),
    async read(db, jobId, position) {
      const ref = await db
        .selectFrom('job_files')
        .select(['source_run_id', 'source_position'])
        .where('job_id', '=', jobId)
        .where('position', '=', position)
        .executeTakeFirst();
      if (!ref?.source_run_id || ref.source_position === null) return store.read(db, jobId, position);
      const kept = await runPhotos.read(db, ref.source_run_id, ref.source_position);
      if (!kept)
        throw new PhotoGone(`the photo is gone: run ${ref.source_run_id}, whose kept photo it was, was deleted`);
      return kept.bytes;
    },
  };
}

/** The run kind of a stored job's operation (declared by a plugin of `registry`). */
export function jobKind(registry: PluginRegistry, operation: string): RunKind {
  const kind = runKindFor(registry, operation);
  if (!kind) throw new Error(`no plugin declares job operation ${operation}`);
  return kind;
}

/** Rows are inserted in chunks: 10,000 photos in one statement would pass PostgreSQL's parameter limit. */
const CHUNK = 500;

/**
 * Creates the job, its stored run (filled in as photos are scored) and its photos (moved into the
 * store one at a time). Answers the job's id; the caller then hands it to the queue.
 */
export async function createJob(
  db: DB,
  store: PhotoStore,
  owner: JobOwner,
  job: {
    operation: JobOperation;
    kind: RunKind;
    options: Record<string, unknown>;
    keepOverlays?: boolean;
    /** the model versions in force when the job is made: all its photos use them */
    models?: readonly string[];
    /** where the photos' metadata came from (the run's provenance) */
    meta?: MetaProvenance | null;
    /** a re-scoring: the run it re-scores (the new run's `rescored_from`) */
    rescoredFrom?: string | null;
  },
  uploads: readonly (JobUpload | KeptPhotoRef)[],
): Promise<string> {
  const { operation, options } = job;
  const id = randomUUID();
  const runId = randomUUID();
  const t = now();
  await db.transaction().execute(async (trx) => {
    await trx
      .insertInto('runs')
      .values({
        ...runRowOf(runId, owner, job.kind, options, [], uploads.length, job.meta ?? null),
        rescored_from: job.rescoredFrom ?? null,
      })
      .execute();
    await trx
      .insertInto('jobs')
      .values({
        id,
        user_id: owner.userId,
        organization: owner.organization,
        api_key_id: owner.apiKeyId ?? null,
        operation,
        options: JSON.stringify(options),
        keep_overlays: job.keepOverlays ? 1 : 0,
        models: job.models ? JSON.stringify(job.models) : null,
        // 'failed' until every photo is stored: a request cut short leaves no job for the queue.
        state: 'failed',
        error: 'the upload did not complete',
        total: uploads.length,
        run_id: runId,
        created_at: t,
        updated_at: t,
      })
      .execute();
    for (let i = 0; i < uploads.length; i += CHUNK) {
      const rows = uploads.slice(i, i + CHUNK).map((u, k) => ({
        job_id: id,
        position: i + k,
        name: u.name,
        size: u.size,
        data: null,
        meta: u.meta ? JSON.stringify(u.meta) : null,
        source_run_id: isKeptPhotoRef(u) ? u.source.runId : null,
        source_position: isKeptPhotoRef(u) ? u.source.position : null,
      }));
      await trx.insertInto('job_files').values(rows).execute();
    }
  });
  try {
    for (const [position, upload] of uploads.entries())
      if (!isKeptPhotoRef(upload)) await store.put(db, id, position, upload);
  } catch (e) {
    await store.removeJob(db, id);
    throw e;
  }
  await db.updateTable('jobs').set({ state: 'queued', error: null }).where('id', '=', id).execute();
  return id;
}

export async function jobView(db: DB, id: string, userId?: number): Promise<JobView | null> {
  let q = db.selectFrom('jobs').select(['id', 'state', 'total', 'done', 'failed', 'run_id']).where('id', '=', id);
  if (userId !== undefined) q = q.where('user_id', '=', userId);
  const row = await q.executeTakeFirst();
  return row ? { ...row, state: row.state as JobState } : null;
}

export interface JobForWork {
  id: string;
  operation: JobOperation;
  options: Record<string, unknown>;
  state: JobState;
  run_id: string;
  name: string;
  /** each photo's item keeps its full-size overlay */
  keepOverlays: boolean;
  /** the model versions the job was given (null: a job from before the registry; the ones in force) */
  models: string[] | null;
  /** the photo's experiment metadata, when the job has them */
  meta?: PhotoMeta;
}

/** The job and the photo's name, or null when the job is gone or no longer active. */
export async function jobForPhoto(db: DB, jobId: string, position: number): Promise<JobForWork | null> {
  const row = await db
    .selectFrom('jobs')
    .innerJoin('job_files', 'job_files.job_id', 'jobs.id')
    .select([
      'jobs.id',
      'jobs.operation',
      'jobs.options',
      'jobs.state',
      'jobs.run_id',
      'jobs.keep_overlays',
      'jobs.models',
      'job_files.name',
      'job_files.meta',
    ])
    .where('jobs.id', '=', jobId)
    .where('job_files.position', '=', position)
    .executeTakeFirst();
  if (!row || !row.run_id || !ACTIVE_STATES.includes(row.state as JobState)) return null;
  const { keep_overlays: keep, models, meta, ...job } = row;
  return {
    ...job,
    ...(meta ? { meta: JSON.parse(meta) as PhotoMeta } : {}),
    keepOverlays: Boolean(keep),
    models: models ? (JSON.parse(models) as string[]) : null,
    run_id: row.run_id,
    operation: row.operation,
    options: JSON.parse(row.options) as Record<string, unknown>,
    state: row.state as JobState,
  };
}

/** True when the photo already has its result (a retry after a crash that happened after storing). */
export async function hasResult(db: DB, runId: string, position: number): Promise<boolean> {
  const row = await db
    .selectFrom('run_items')
    .select('id')
    .where('run_id', '=', runId)
    .where('position', '=', position)
    .executeTakeFirst();
  return Boolean(row);
}

/** True when run `runId` keeps the photo of item `position` (its `run_photos` row). */
export async function hasKeptPhoto(db: DB, runId: string, position: number): Promise<boolean> {
  const row = await db
    .selectFrom('run_photos')
    .select('position')
    .where('run_id', '=', runId)
    .where('position', '=', position)
    .executeTakeFirst();
  return Boolean(row);
}

class JobNotActive extends Error {}

/**
 * Stores one photo's result and counts it, once: a second result for the same photo is dropped.
 * Answers true when this call completed the job (every photo has a result or an error); then the run's
 * figures are written in the same transaction that sets the job done, and only its photos are left to remove.
 */
export async function recordPhoto(
  db: DB,
  jobId: string,
  item: RunItemRow,
  failed: boolean,
  photo: RunPhotosTable | null,
  registry: PluginRegistry,
): Promise<boolean> {
  try {
    return await db.transaction().execute(async (trx) => {
      // The job's row first: it is locked until this transaction ends (on PostgreSQL; SQLite runs one
      // writer at a time), so a cancel or a deletion of the job's run waits for this photo or goes
      // first, and then nothing is inserted into a run that is gone.
      const active = await trx
        .updateTable('jobs')
        .set({ updated_at: now() })
        .where('id', '=', jobId)
        .where('state', 'in', ACTIVE_STATES)
        .returning('id')
        .executeTakeFirst();
      if (!active) throw new JobNotActive();
      const inserted = await trx
        .insertInto('run_items')
        .values(item)
        .onConflict((oc) => oc.columns(['run_id', 'position']).doNothing())
        .executeTakeFirst();
      if (Number(inserted.numInsertedOrUpdatedRows ?? 0) === 0) return false;
      // The photo its run keeps (runs/photos.ts), with its item.
      if (photo) await trx.insertInto('run_photos').values(photo).execute();
      const counter = failed ? 'failed' : 'done';
      const row = await trx
        .updateTable('jobs')
        .set((eb) => ({ [counter]: eb(counter, '+', 1), state: 'running', updated_at: now() }))
        .where('id', '=', jobId)
        .where('state', 'in', ACTIVE_STATES)
        .returning(['done', 'failed', 'total'])
        .executeTakeFirst();
      // Cancelled meanwhile: the result is not kept.
      if (!row) throw new JobNotActive();
      if (row.done + row.failed < row.total) return false;
      // The run's figures in the same transaction: whoever sees the job done reads a finished run.
      await writeRunFigures(trx, registry, jobId);
      await trx.updateTable('jobs').set({ state: 'done', updated_at: now() }).where('id', '=', jobId).execute();
      return true;
    });
  } catch (e) {
    if (e instanceof JobNotActive) return false;
    throw e;
  }
}

/** A job's run gets its count, summary and plugin figures from the items stored so far. */
async function writeRunFigures(db: DB | Transaction<Database>, registry: PluginRegistry, jobId: string) {
  const job = await db.selectFrom('jobs').select(['run_id', 'operation']).where('id', '=', jobId).executeTakeFirst();
  if (!job?.run_id) return;
  const items = await db
    .selectFrom('run_items')
    .select('result')
    .where('run_id', '=', job.run_id)
    .orderBy('position')
    .execute();
  await db
    .updateTable('runs')
    .set({ item_count: items.length, ...runFigures(jobKind(registry, job.operation), items) })
    .where('id', '=', job.run_id)
    .execute();
}

/** Ends a job cut short (cancelled, failed): its run gets its count, summary and plugin figures; its photos are deleted. */
export async function closeJob(db: DB, store: PhotoStore, registry: PluginRegistry, jobId: string): Promise<void> {
  await store.removeJob(db, jobId);
  await writeRunFigures(db, registry, jobId);
}

/** Cancels the caller's active job; false when there is no such job of theirs or it has ended. */
export async function cancelJob(
  db: DB,
  store: PhotoStore,
  registry: PluginRegistry,
  jobId: string,
  userId: number,
): Promise<boolean> {
  const r = await db
    .updateTable('jobs')
    .set({ state: 'cancelled', updated_at: now() })
    .where('id', '=', jobId)
    .where('user_id', '=', userId)
    .where('state', 'in', ACTIVE_STATES)
    .executeTakeFirst();
  if (Number(r.numUpdatedRows) === 0) return false;
  await closeJob(db, store, registry, jobId);
  return true;
}

/** Marks a job that could not be handed to the queue. */
export async function failJob(
  db: DB,
  store: PhotoStore,
  registry: PluginRegistry,
  jobId: string,
  error: string,
): Promise<void> {
  await db.updateTable('jobs').set({ state: 'failed', error, updated_at: now() }).where('id', '=', jobId).execute();
  await closeJob(db, store, registry, jobId);
}

/**
 * Photos of active jobs with no result yet, at most `perUser` of each user: each user's oldest job
 * first (the in-process queue's work list; it takes them in turn between users). `rank` is the
 * photo's place in its user's backlog, from 1.
 */
export async function pendingPhotosByUser(
  db: DB,
  perUser: number,
): Promise<{ job_id: string; position: number; user_id: number; rank: number }[]> {
  const ranked = db
    .selectFrom('job_files')
    .innerJoin('jobs', 'jobs.id', 'job_files.job_id')
    .select((eb) => [
      'job_files.job_id',
      'job_files.position',
      'jobs.user_id',
      eb.fn
        .agg<number>('row_number')
        .over((ob) => ob.partitionBy('jobs.user_id').orderBy('jobs.created_at').orderBy('job_files.position'))
        .as('rank'),
    ])
    .where('jobs.state', 'in', ACTIVE_STATES)
    .where(notYetStored);
  const rows = await db
    .selectFrom(ranked.as('p'))
    .selectAll()
    .where('p.rank', '<=', perUser)
    .orderBy('p.rank')
    .execute();
  return rows.map((r) => ({ ...r, rank: Number(r.rank) }));
}

/** The user a job belongs to (undefined when it is gone). */
export async function jobOwner(db: DB, jobId: string): Promise<number | undefined> {
  const row = await db.selectFrom('jobs').select('user_id').where('id', '=', jobId).executeTakeFirst();
  return row?.user_id;
}

/** Photos of the user's active jobs still waiting for their result (MAX_QUEUED_PHOTOS_PER_USER counts them). */
export async function queuedPhotosOf(db: DB, userId: number, exceptJobId?: string): Promise<number> {
  let q = db
    .selectFrom('jobs')
    .select((eb) => eb.fn.sum<number | string | null>(eb('total', '-', eb('done', '+', eb.ref('failed')))).as('n'))
    .where('user_id', '=', userId)
    .where('state', 'in', ACTIVE_STATES);
  if (exceptJobId !== undefined) q = q.where('id', '!=', exceptJobId);
  const row = await q.executeTakeFirst();
  return Number(row?.n ?? 0);
}

/**
 * Cancels the active jobs whose results go to run `runId` (the run is being deleted, in the same
 * transaction `trx`), and unlinks every job from it. Answers the ids of the jobs cancelled; their
 * photos are then removed with `PhotoStore.removeJob`, after the transaction.
 */
export async function cancelJobsOfRun(trx: DB, runId: string): Promise<string[]> {
  const cancelled = await trx
    .updateTable('jobs')
    .set({ state: 'cancelled', error: 'its run was deleted', updated_at: now() })
    .where('run_id', '=', runId)
    .where('state', 'in', ACTIVE_STATES)
    .returning('id')
    .execute();
  await trx.updateTable('jobs').set({ run_id: null }).where('run_id', '=', runId).execute();
  return cancelled.map((j) => j.id);
}

/** Photos of active jobs with no result yet, oldest job first. */
export async function pendingPhotos(
  db: DB,
  limit: number,
  jobId?: string,
): Promise<{ job_id: string; position: number }[]> {
  let q = db.selectFrom('job_files');
  if (jobId !== undefined) q = q.where('job_files.job_id', '=', jobId);
  return q
    .innerJoin('jobs', 'jobs.id', 'job_files.job_id')
    .select(['job_files.job_id', 'job_files.position'])
    .where('jobs.state', 'in', ACTIVE_STATES)
    .where(notYetStored)
    .orderBy('jobs.created_at')
    .orderBy('job_files.position')
    .limit(limit)
    .execute();
}

/** Active jobs with no progress for `olderThanMs` (reported in the log as stuck). */
export async function stuckJobs(db: DB, olderThanMs: number): Promise<{ id: string; updated_at: string }[]> {
  const before = new Date(Date.now() - olderThanMs).toISOString();
  return db
    .selectFrom('jobs')
    .select(['id', 'updated_at'])
    .where('state', 'in', ACTIVE_STATES)
    .where('updated_at', '<', before)
    .execute();
}
