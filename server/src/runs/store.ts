/**
 * Stored runs, rows only (issue 12, issue 24): a run row with its provenance (who, when, operation,
 * method, model, options, app version) and one item row per photo (sanitised file name, sha256 of
 * the uploaded bytes, size, result, thumbnails), written and read through `db`, always scoped to the
 * caller's user id. What a run of each kind keeps comes from its plugin's declaration
 * (core/src/runs.ts); nothing here names a plugin. Scoring is runs/service.ts; who may store is runs/http.ts.
 */
import { readFileSync } from 'node:fs';
import { sql } from 'kysely';
import {
  isFailedItem,
  PhotoMeta,
  ranWithColumns,
  type MetaProvenance,
  type ResultFigures,
  type RunKind,
} from '@mango/core';
import {
  RESULTS_SCHEMA,
  makeProvenance,
  type PhotoTruth,
  type Provenance,
  type ResultsFile,
  type RunListItem,
  type RunPage,
  type RunRescore,
  type StoredRun,
} from '@mango/core/results';
import { now, type DB } from '../db/index.ts';
import type { RunItemsTable, RunPhotosTable } from '../db/schema.ts';

/** The server's version (package.json), recorded in every run's provenance. */
export const APP_VERSION: string = JSON.parse(
  readFileSync(new URL('../../package.json', import.meta.url), 'utf8'),
).version;

/** The owner of a run: a user, in an organisation, maybe through one of their API keys. */
export interface RunOwner {
  userId: number;
  organization: string;
  apiKeyId?: number | null;
}

/** One photo's item row, as runs/service.ts makes it. */
export type RunItemRow = Omit<RunItemsTable, 'id'>;

/** The runs row of a new run (its figures, count and summary may be filled in later: a job's are). */
export function runRowOf(
  id: string,
  owner: RunOwner,
  kind: RunKind,
  options: Record<string, unknown>,
  items: readonly Pick<RunItemRow, 'result'>[],
  itemCount = items.length,
  meta: MetaProvenance | null = null,
) {
  return {
    id,
    user_id: owner.userId,
    organization: owner.organization,
    operation: kind.runs.operation,
    method: kind.runs.method?.(options as never) ?? null,
    options: JSON.stringify(options),
    app_version: APP_VERSION,
    api_key_id: owner.apiKeyId ?? null,
    item_count: itemCount,
    ...runFigures(kind, items),
    created_at: now(),
    meta: meta ? JSON.stringify(meta) : null,
  };
}

/** What a run's items say of it: what ran (the first scored photo) and the run list's summary. */
export function runFigures(kind: RunKind, items: readonly Pick<RunItemRow, 'result'>[]) {
  const results = items.map((i) => JSON.parse(i.result) as ResultFigures);
  const scored = results.filter((r) => !isFailedItem(r));
  return {
    ...ranWithColumns(kind, scored[0]),
    summary: JSON.stringify(kind.runs.summary(scored, results.length - scored.length)),
  };
}

/** Inserts a run, its items and the rows of the photos it keeps at once. */
export async function insertRun(
  db: DB,
  run: ReturnType<typeof runRowOf>,
  items: readonly RunItemRow[],
  photos: readonly RunPhotosTable[] = [],
): Promise<void> {
  await db.transaction().execute(async (trx) => {
    await trx.insertInto('runs').values(run).execute();
    if (items.length > 0)
      await trx
        .insertInto('run_items')
        .values([...items])
        .execute();
    // One at a time: a statement of many photos' bytes would be as large as all of them.
    for (const photo of photos) await trx.insertInto('run_photos').values(photo).execute();
  });
}

// ---- reading -----------------------------------------------------------------------------------

export interface RunListQuery {
  operation?: string;
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
  'runs.meta',
  'runs.rescored_from',
  'runs.organization',
  'users.username',
] as const;

function runRow(db: DB, userId: number, id: string) {
  return db
    .selectFrom('runs')
    .innerJoin('users', 'users.id', 'runs.user_id')
    .select(runColumns)
    .where('runs.id', '=', id)
    .where('runs.user_id', '=', userId)
    .executeTakeFirst();
}

/** The public view of a run row (the list's entries; the run page adds its items). */
function runView(row: NonNullable<RunRow>): RunListItem {
  return {
    id: row.id,
    operation: row.operation,
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
    ...(row.meta ? { meta: JSON.parse(row.meta) as MetaProvenance } : {}),
    rescored_from: row.rescored_from,
  };
}

/** The re-scorings of the user's run `id` (runs whose `rescored_from` it is), oldest first. */
export async function rescoresOf(db: DB, userId: number, id: string): Promise<RunRescore[]> {
  return db
    .selectFrom('runs')
    .select(['id', 'model_id', 'model_sha256', 'created_at'])
    .where('rescored_from', '=', id)
    .where('user_id', '=', userId)
    .orderBy('created_at')
    .orderBy('id')
    .execute();
}

/** A stored result's metadata (`meta`, core/src/meta.ts), when it has them. */
function metaOfResult(result: ResultFigures): { meta?: PhotoMeta } {
  const parsed = PhotoMeta.safeParse(result.meta);
  return result.meta !== undefined && parsed.success ? { meta: parsed.data } : {};
}

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
export async function listRuns(db: DB, userId: number, query: RunListQuery): Promise<RunPage> {
  let q = db
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
export async function getRun(db: DB, userId: number, id: string): Promise<StoredRun | null> {
  const row = await runRow(db, userId, id);
  if (!row) return null;
  const items = await db
    .selectFrom('run_items')
    .leftJoin('run_photos', (j) =>
      j.onRef('run_photos.run_id', '=', 'run_items.run_id').onRef('run_photos.position', '=', 'run_items.position'),
    )
    .select([
      'run_items.id',
      'run_items.position',
      'run_items.filename',
      'run_items.sha256',
      'run_items.width',
      'run_items.height',
      'run_items.result',
      'run_items.overlay',
      'run_items.photo',
      'run_items.overlay_image_type',
      'run_photos.size as photo_size',
    ])
    .where('run_items.run_id', '=', id)
    .orderBy('run_items.position')
    .execute();
  const truths = await latestTruths(db, id);
  return {
    ...runView(row),
    rescores: await rescoresOf(db, userId, id),
    items: items.map((i) => {
      const truth = truths.get(i.position);
      const model = JSON.parse(i.result) as StoredRun['items'][number]['result'];
      return {
        id: i.id,
        position: i.position,
        filename: i.filename,
        sha256: i.sha256,
        width: i.width,
        height: i.height,
        // A corrected photo: the figures of its truth are in force, the model's kept beside them.
        result: truth ? truth.result : model,
        ...(truth ? { model_result: model, truth: truth.truth } : { truth: null }),
        // A corrected photo's overlay is drawn from its truth; the model's is kept beside it.
        overlay_thumbnail: truth?.overlay ?? i.overlay,
        ...(truth?.overlay ? { model_overlay_thumbnail: i.overlay } : {}),
        ...(truth ? { corrected_overlay: correctedOverlayState(truth) } : {}),
        photo_thumbnail: i.photo,
        /** the full-size overlay is kept: GET /api-node/runs/{id}/items/{position}/overlay */
        full_overlay: i.overlay_image_type !== null,
        /** the uploaded photo is kept: GET /api-node/runs/{id}/items/{position}/photo */
        photo_kept: i.photo_size !== null,
        ...metaOfResult(model),
      };
    }),
  };
}

// ---- truth (issue 28: runs/truth.ts saves it) -----------------------------------------------------

/** What a truth version says of itself (the masks are read with runs/truth.ts `truthMasks`). */
export type TruthVersion = PhotoTruth;

export const truthColumns = [
  'photo_truths.version',
  'photo_truths.width',
  'photo_truths.height',
  'photo_truths.model_id',
  'photo_truths.source',
  'photo_truths.created_at',
  'photo_truths.position',
  'photo_truths.result',
  'users.username as created_by',
] as const;

/**
 * Which overlay a corrected photo shows (issue 28): `drawn` from its corrected masks; else the
 * model's, because the photo was not kept to draw on (`photo-not-kept`), its kind draws none
 * (`not-drawn`), drawing failed (`failed`), or its version was saved before overlays were stored and
 * the server's backfill has not drawn it yet (`pending`; runs/overlay-backfill.ts).
 */
function correctedOverlayState(truth: { overlay: string | null; backfill: string | null }) {
  if (truth.overlay) return 'drawn' as const;
  if (truth.backfill === 'photo-not-kept' || truth.backfill === 'not-drawn') return truth.backfill;
  if (truth.backfill?.startsWith('failed')) return 'failed' as const;
  return 'pending' as const;
}

/** The latest truth version of each corrected photo of run `runId` (by position), with its figures. */
export async function latestTruths(db: DB, runId: string) {
  const rows = await db
    .selectFrom('photo_truths')
    .innerJoin('users', 'users.id', 'photo_truths.created_by')
    .select([...truthColumns, 'photo_truths.overlay_thumbnail', 'photo_truths.overlay_backfill'])
    .where('photo_truths.run_id', '=', runId)
    .orderBy('photo_truths.version')
    .execute();
  const latest = new Map<
    number,
    { truth: TruthVersion; result: ResultFigures; overlay: string | null; backfill: string | null }
  >();
  for (const r of rows) {
    const { position, result, overlay_thumbnail, overlay_backfill, ...truth } = r;
    latest.set(position, {
      truth,
      result: JSON.parse(result) as ResultFigures,
      overlay: overlay_thumbnail,
      backfill: overlay_backfill,
    });
  }
  return latest;
}

/** The full-size overlay kept with item `position` of the caller's run `id`, or null (also for another user's run). */
export async function runItemOverlay(db: DB, userId: number, id: string, position: number) {
  const row = await db
    .selectFrom('run_items')
    .innerJoin('runs', 'runs.id', 'run_items.run_id')
    .select(['run_items.overlay_image', 'run_items.overlay_image_type'])
    .where('runs.id', '=', id)
    .where('runs.user_id', '=', userId)
    .where('run_items.position', '=', position)
    .executeTakeFirst();
  if (!row?.overlay_image || !row.overlay_image_type) return null;
  return { bytes: new Uint8Array(row.overlay_image), type: row.overlay_image_type };
}
export type { StoredRun };

/**
 * Deletes run `id` and its items in transaction `trx` (runs/service.ts deleteRun cancels its jobs
 * in the same transaction first); false when it is not the user's.
 */
export async function deleteRunRows(trx: DB, userId: number, id: string): Promise<boolean> {
  if (!(await isOwnedRun(trx, userId, id))) return false;
  await trx.deleteFrom('run_photos').where('run_id', '=', id).execute();
  await trx.deleteFrom('run_items').where('run_id', '=', id).execute();
  await trx.updateTable('actions').set({ run_id: null }).where('run_id', '=', id).execute();
  await trx.deleteFrom('runs').where('id', '=', id).execute();
  return true;
}

/** True when the run exists and is the user's (POST /user/action {run_id} checks it). */
export const ownsRun = (db: DB, userId: number, id: string): Promise<boolean> => isOwnedRun(db, userId, id);

/** Whether run `id` is the user's, read through `db` (the app's connection or a transaction). */
export async function isOwnedRun(db: DB, userId: number, id: string): Promise<boolean> {
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
      inputs: run.items.map((i) => ({
        filename: i.filename,
        sha256: i.sha256,
        ...(typeof i.result.error === 'string' ? { error: i.result.error } : {}),
      })),
      ...(run.meta ? { meta: run.meta } : {}),
    },
    { method: run.method_used, version: run.plugin_version, model_id: run.model_id, model_sha256: run.model_sha256 },
  );
}

/** The run as the shared results file (the CLI's `--out results.json` has the same schema). */
export function resultsFileOf(run: StoredRun): ResultsFile {
  return {
    schema: RESULTS_SCHEMA,
    provenance: provenanceOf(run),
    // A photo that could not be scored is listed on the run with its error, not in the results file.
    photos: run.items
      .filter((i) => !isFailedItem(i.result))
      .map((i) => ({
        filename: i.filename,
        sha256: i.sha256,
        width: i.width,
        height: i.height,
        result: i.result,
        overlay_thumbnail: i.overlay_thumbnail,
        photo_thumbnail: i.photo_thumbnail,
        ...(i.meta ? { meta: i.meta } : {}),
      })),
  };
}
