/**
 * Stored runs (issue 12): every bruise and feature analysis done through /api-py is saved with its
 * provenance (who, when, operation, method, model, options, app version) and one item per photo
 * (sanitised file name, sha256 of the uploaded bytes, size, result, overlay thumbnail). The
 * /api-py routes call `storeRun` and nothing else; the /api-node/runs routes read through the
 * functions below, always scoped to the caller's user id.
 */
import { createHash, randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import type { Context } from 'hono';
import { sql } from 'kysely';
import { sanitizeFileName } from '@mango/core';
import { probeImage, thumbnailDataUrl } from '@mango/core/node';
import {
  RESULTS_SCHEMA,
  makeProvenance,
  THUMBNAIL_MAX_SIDE,
  type Provenance,
  type ResultsFile,
  type ResultsPhoto,
} from '@mango/core/results';
import type { ImageJob, JobResult } from '@mango/runner';
import type { ServerContext } from '../context.ts';
import type { Caller } from '../auth/caller.ts';
import { now, type DB } from '../db/index.ts';
import { cancelJobsOfRun } from '../jobs/store.ts';

/** The server's version (package.json), recorded in every run's provenance. */
export const APP_VERSION: string = JSON.parse(
  readFileSync(new URL('../../package.json', import.meta.url), 'utf8'),
).version;

export type RunOperation = 'bruise' | 'analyze';

/** The results of a call, in upload order, and the plugin options it ran with. */
export type RecordRun = (results: readonly JobResult[], options: Record<string, unknown>) => Promise<string | null>;

/**
 * A call made with a partner API key from a web page (the widget on a partner's site): a visitor's
 * photos are not the key owner's data, so it is not stored. A key call with an Origin is one: only
 * browser keys are accepted with an Origin (server keys refuse any; see keyOriginRefusal).
 */
export function isBrowserPartnerCall(c: Context, caller: Caller): boolean {
  return caller.apiKeyId !== undefined && Boolean(c.req.header('origin'));
}

const sha256Hex = (bytes: Uint8Array) => createHash('sha256').update(bytes).digest('hex');

async function imageSize(bytes: Uint8Array): Promise<{ width: number | null; height: number | null }> {
  try {
    return (await probeImage(bytes)).oriented;
  } catch {
    return { width: null, height: null };
  }
}

/** An uploaded file of the call, spooled to disk until the request ends (routes/api-py/uploads.ts). */
export interface RunUpload {
  name: string;
  path: string;
}

/**
 * Starts recording a call: the answer saves the run once the results are in (while the request's
 * uploads are still on disk) and answers its id. Undefined when the call is not stored (a browser
 * partner call): its jobs then need nothing a stored run keeps (runJobOptions).
 */
export function startRun(
  ctx: ServerContext,
  c: Context,
  caller: Caller,
  operation: RunOperation,
  uploads: readonly RunUpload[],
): RecordRun | undefined {
  if (isBrowserPartnerCall(c, caller)) return undefined;
  return (results, options) => saveRun(ctx, caller, { operation, options, uploads, results });
}

interface RunInput {
  operation: RunOperation;
  options: Record<string, unknown>;
  uploads: readonly RunUpload[];
  results: readonly JobResult[];
}

/** What a stored run asks of the job that scores each of its photos: bruise runs keep a photo thumbnail. */
export function runJobOptions(operation: RunOperation): Pick<ImageJob, 'thumbnail'> {
  return operation === 'bruise' ? { thumbnail: THUMBNAIL_MAX_SIDE } : {};
}

/** One stored item: a photo's bytes (for its sha256, size, thumbnail) with its result. */
export async function runItemOf(
  runId: string,
  position: number,
  name: string,
  bytes: Uint8Array,
  r: JobResult,
  operation: RunOperation,
) {
  const filename = sanitizeFileName(name);
  let result: Record<string, unknown>;
  let size: { width: number | null; height: number | null };
  let overlay: string | null = null;
  let photo: string | null = null;
  if (operation === 'bruise' && r.ok) {
    result = { ...r.result, filename };
    size = { width: r.result.width as number, height: r.result.height as number };
    const o = r.images.overlay;
    if (o) overlay = await thumbnailDataUrl(o.bytes, THUMBNAIL_MAX_SIDE);
    // Shown beside the overlay on the run page and in the report: the worker's copy (runJobOptions),
    // made here from the bytes only when the job did not return one.
    photo = r.thumbnail ?? (await thumbnailDataUrl(bytes, THUMBNAIL_MAX_SIDE).catch(() => null));
  } else if (r.ok) {
    result = { image_name: filename, ...r.result };
    size = await imageSize(bytes);
  } else {
    // A failed photo is listed with its error (a bruise job keeps going past it).
    const error = r.error.status >= 500 ? 'the image could not be analysed' : r.error.message;
    result = operation === 'bruise' ? { filename, error } : { image_name: filename, error };
    size = await imageSize(bytes);
  }
  return {
    run_id: runId,
    position,
    filename,
    // The worker hashed the bytes it scored; hashed here only when it could not read them.
    sha256: r.sha256 ?? sha256Hex(bytes),
    ...size,
    result: JSON.stringify(result),
    overlay,
    photo,
  };
}
export type RunItemRow = Awaited<ReturnType<typeof runItemOf>>;

/** The run list's summary of its items' results (JSON strings as stored). */
export function runSummary(operation: RunOperation, results: readonly string[]): Record<string, number | null> {
  if (operation !== 'bruise') return { n: results.length };
  const percents = results
    .map((r) => (JSON.parse(r) as { bruise_percent?: unknown }).bruise_percent)
    .filter((v): v is number => typeof v === 'number');
  return {
    n: percents.length,
    mean_bruise_percent: percents.length ? percents.reduce((a, v) => a + v, 0) / percents.length : null,
    max_bruise_percent: percents.length ? Math.max(...percents) : null,
  };
}

/** What the plugin reported about itself (method, version, model), from a successful result. */
export function pluginFigures(operation: RunOperation, figures: Record<string, unknown>) {
  const str = (v: unknown) => (typeof v === 'string' ? v : null);
  return {
    method_used: operation === 'bruise' ? str(figures.method) : null,
    plugin_version: str(figures.version),
    model_id: str(figures.model_id),
    model_sha256: str(figures.model_sha256),
  };
}

/** The runs row of a new run (its figures, count and summary may be filled in later: a job's are). */
export function runRowOf(
  id: string,
  owner: { userId: number; organization: string; apiKeyId?: number | null },
  operation: RunOperation,
  options: Record<string, unknown>,
  figures: Record<string, unknown>,
  itemCount: number,
  summary: Record<string, number | null>,
) {
  return {
    id,
    user_id: owner.userId,
    organization: owner.organization,
    operation,
    method: typeof options.method === 'string' ? options.method : null,
    ...pluginFigures(operation, figures),
    options: JSON.stringify(options),
    app_version: APP_VERSION,
    api_key_id: owner.apiKeyId ?? null,
    item_count: itemCount,
    summary: JSON.stringify(summary),
    created_at: now(),
  };
}

async function saveRun(ctx: ServerContext, caller: Caller, input: RunInput): Promise<string> {
  const id = randomUUID();
  // One photo after another: each is read back whole (up to MAX_UPLOAD_MB).
  const items: RunItemRow[] = [];
  for (const [position, upload] of input.uploads.entries()) {
    const bytes = new Uint8Array(await readFile(upload.path));
    items.push(await runItemOf(id, position, upload.name, bytes, input.results[position], input.operation));
  }
  const first = input.results.find((r) => r.ok);
  const figures = first?.ok ? (first.result as Record<string, unknown>) : {};
  const summary = runSummary(
    input.operation,
    items.map((i) => i.result),
  );
  await ctx.db.transaction().execute(async (trx) => {
    await trx
      .insertInto('runs')
      .values(runRowOf(id, caller, input.operation, input.options, figures, items.length, summary))
      .execute();
    if (items.length > 0) await trx.insertInto('run_items').values(items).execute();
  });
  return id;
}

// ---- reading -----------------------------------------------------------------------------------

export interface RunListQuery {
  operation?: RunOperation;
  /** ISO date or date-time: runs created at or after it */
  from?: string;
  /** ISO date (the whole day included) or date-time: runs created before it */
  to?: string;
  /** text searched in the runs' file names (case-insensitive) */
  q?: string;
  cursor?: string;
  limit: number;
}

type RunRow = Awaited<ReturnType<typeof runRow>>;

const runColumns = [
  'runs.id',
  'runs.operation',
  'runs.method',
  'runs.method_used',
  'runs.plugin_version',
  'runs.model_id',
  'runs.model_sha256',
  'runs.options',
  'runs.app_version',
  'runs.item_count',
  'runs.summary',
  'runs.created_at',
  'runs.organization',
  'users.username',
] as const;

function runRow(ctx: ServerContext, userId: number, id: string) {
  return ctx.db
    .selectFrom('runs')
    .innerJoin('users', 'users.id', 'runs.user_id')
    .select(runColumns)
    .where('runs.id', '=', id)
    .where('runs.user_id', '=', userId)
    .executeTakeFirst();
}

/** The public view of a run row (the list's entries; the run page adds its items). */
function runView(row: NonNullable<RunRow>) {
  return {
    id: row.id,
    operation: row.operation as RunOperation,
    method: row.method,
    method_used: row.method_used,
    plugin_version: row.plugin_version,
    model_id: row.model_id,
    model_sha256: row.model_sha256,
    options: JSON.parse(row.options) as Record<string, unknown>,
    app_version: row.app_version,
    username: row.username,
    organization: row.organization,
    item_count: row.item_count,
    summary: JSON.parse(row.summary) as Record<string, number | null>,
    created_at: row.created_at,
  };
}
export type RunView = ReturnType<typeof runView>;

const encodeCursor = (createdAt: string, id: string) =>
  Buffer.from(JSON.stringify([createdAt, id])).toString('base64url');

function decodeCursor(cursor: string): [string, string] | null {
  try {
    const v: unknown = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8'));
    return Array.isArray(v) && v.length === 2 && v.every((x) => typeof x === 'string') ? [v[0], v[1]] : null;
  } catch {
    return null;
  }
}

/** A date-only `to` includes its whole day. */
const endOf = (to: string) =>
  /^\d{4}-\d{2}-\d{2}$/.test(to) ? new Date(Date.parse(to) + 86_400_000).toISOString() : new Date(to).toISOString();

/** The caller's runs, newest first, one page; `next_cursor` is null on the last page. */
export async function listRuns(ctx: ServerContext, userId: number, query: RunListQuery) {
  let q = ctx.db
    .selectFrom('runs')
    .innerJoin('users', 'users.id', 'runs.user_id')
    .select(runColumns)
    .where('runs.user_id', '=', userId);
  if (query.operation) q = q.where('runs.operation', '=', query.operation);
  if (query.from) q = q.where('runs.created_at', '>=', new Date(query.from).toISOString());
  if (query.to) q = q.where('runs.created_at', '<', endOf(query.to));
  if (query.q) {
    const pattern = `%${query.q.toLowerCase().replace(/[\\%_]/g, (m) => `\\${m}`)}%`;
    q = q.where((eb) =>
      eb.exists(
        eb
          .selectFrom('run_items')
          .select('run_items.id')
          .whereRef('run_items.run_id', '=', 'runs.id')
          .where(sql<boolean>`lower(run_items.filename) like ${pattern} escape '\\'`),
      ),
    );
  }
  if (query.cursor) {
    const c = decodeCursor(query.cursor);
    if (c) {
      const [at, id] = c;
      q = q.where((eb) =>
        eb.or([eb('runs.created_at', '<', at), eb.and([eb('runs.created_at', '=', at), eb('runs.id', '<', id)])]),
      );
    }
  }
  const rows = await q
    .orderBy('runs.created_at', 'desc')
    .orderBy('runs.id', 'desc')
    .limit(query.limit + 1)
    .execute();
  const page = rows.slice(0, query.limit);
  const last = page.at(-1);
  return {
    runs: page.map(runView),
    next_cursor: rows.length > query.limit && last ? encodeCursor(last.created_at, last.id) : null,
  };
}

/** `decodeCursor` for the routes: a cursor that is not one of ours is a 400. */
export const isValidCursor = (cursor: string) => decodeCursor(cursor) !== null;

/** The caller's run with its items, or null (also for another user's run). */
export async function getRun(ctx: ServerContext, userId: number, id: string) {
  const row = await runRow(ctx, userId, id);
  if (!row) return null;
  const items = await ctx.db
    .selectFrom('run_items')
    .select(['id', 'position', 'filename', 'sha256', 'width', 'height', 'result', 'overlay', 'photo'])
    .where('run_id', '=', id)
    .orderBy('position')
    .execute();
  return {
    ...runView(row),
    items: items.map((i) => ({
      id: i.id,
      position: i.position,
      filename: i.filename,
      sha256: i.sha256,
      width: i.width,
      height: i.height,
      result: JSON.parse(i.result) as ResultsPhoto['result'],
      overlay_thumbnail: i.overlay,
      photo_thumbnail: i.photo,
    })),
  };
}
export type StoredRun = NonNullable<Awaited<ReturnType<typeof getRun>>>;

/** Deletes the caller's run and its items; false when there is no such run of theirs. */
export async function deleteRun(ctx: ServerContext, userId: number, id: string): Promise<boolean> {
  const cancelled = await ctx.db.transaction().execute(async (trx) => {
    if (!(await isOwnedRun(trx, userId, id))) return null;
    // A job still filling this run is cancelled first (its row locked: a photo being stored waits,
    // or went first and its item is deleted below), so no worker inserts into the run once it is gone.
    const jobs = await cancelJobsOfRun(trx, id);
    await trx.deleteFrom('run_items').where('run_id', '=', id).execute();
    await trx.updateTable('actions').set({ run_id: null }).where('run_id', '=', id).execute();
    await trx.deleteFrom('runs').where('id', '=', id).execute();
    return jobs;
  });
  if (!cancelled) return false;
  for (const jobId of cancelled) {
    ctx.logger.info(`job ${jobId} cancelled: its run ${id} was deleted`);
    await ctx.jobs.store.removeJob(ctx.db, jobId);
  }
  return true;
}

/** True when the run exists and is the user's (POST /user/action {run_id} checks it). */
export const ownsRun = (ctx: ServerContext, userId: number, id: string): Promise<boolean> =>
  isOwnedRun(ctx.db, userId, id);

/** Whether run `id` is the user's, read through `db` (the app's connection or a transaction). */
async function isOwnedRun(db: DB, userId: number, id: string): Promise<boolean> {
  const row = await db
    .selectFrom('runs')
    .select('id')
    .where('id', '=', id)
    .where('user_id', '=', userId)
    .executeTakeFirst();
  return Boolean(row);
}

export function provenanceOf(run: StoredRun): Provenance {
  return makeProvenance(
    {
      app_version: run.app_version,
      source: 'api',
      run_id: run.id,
      operation: run.operation,
      method: run.method,
      options: run.options,
      created_at: run.created_at,
      inputs: run.items.map((i) => ({ filename: i.filename, sha256: i.sha256 })),
    },
    { method: run.method_used, version: run.plugin_version, model_id: run.model_id, model_sha256: run.model_sha256 },
  );
}

/** The run as the shared results file (the CLI's `--out results.json` has the same schema). */
export function resultsFileOf(run: StoredRun): ResultsFile {
  return {
    schema: RESULTS_SCHEMA,
    provenance: provenanceOf(run),
    // A photo a batch job could not score is listed on the run with its error, not in the results file.
    photos: run.items
      .filter((i) => !(run.operation === 'bruise' && 'error' in i.result))
      .map((i) => ({
        filename: i.filename,
        sha256: i.sha256,
        width: i.width,
        height: i.height,
        result: i.result,
        overlay_thumbnail: i.overlay_thumbnail,
        photo_thumbnail: i.photo_thumbnail,
      })),
  };
}
