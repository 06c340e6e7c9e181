/**
 * The photos a stored run keeps (KEEP_RUN_PHOTOS, default on; issue 27 item 6, issue 28): each
 * scored photo as it was uploaded, so a run can be exported at full resolution (re-scored from its
 * photos) and corrected later. On SQLite the bytes are files under DATA_DIR/run-photos/<run>/<position>;
 * on PostgreSQL they are in the database (`run_photos.data`), so the machines share nothing else.
 * Either way a `run_photos` row says the photo is kept (its size and media type); it is inserted in
 * the same transaction as the photo's item and deleted with the run (and with the account: the
 * rows cascade, and `sweepRunPhotos` removes the files of runs that are gone).
 */
import { copyFile, mkdir, open, readdir, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { ServerConfig } from '../config.ts';
import type { DB } from '../db/index.ts';
import type { Dialect } from '../db/migrations.ts';
import { PRIVATE_DIR_MODE, PRIVATE_FILE_MODE } from '../db/private-files.ts';
import type { RunPhotosTable } from '../db/schema.ts';

/** A photo to keep: spooled to disk by a request, or its bytes (a job's photo store). */
export interface PhotoSource {
  path?: string;
  bytes?: Uint8Array;
}

export type RunPhotoRow = RunPhotosTable;

/** The media type of an image's bytes, read from its signature. */
export function imageTypeOf(b: Uint8Array): string {
  if (b[0] === 0xff && b[1] === 0xd8 && b[2] === 0xff) return 'image/jpeg';
  if (b[0] === 0x89 && b[1] === 0x50 && b[2] === 0x4e && b[3] === 0x47) return 'image/png';
  if (b[0] === 0x52 && b[1] === 0x49 && b[2] === 0x46 && b[3] === 0x46 && b[8] === 0x57) return 'image/webp';
  if ((b[0] === 0x49 && b[1] === 0x49 && b[2] === 0x2a) || (b[0] === 0x4d && b[1] === 0x4d && b[3] === 0x2a))
    return 'image/tiff';
  return 'application/octet-stream';
}

export interface RunPhotoStore {
  /** true: the bytes go in run_photos.data (PostgreSQL) */
  readonly inDatabase: boolean;
  /**
   * Makes the photo's `run_photos` row, to insert with its item; a directory store writes the file
   * first (so a row never names a missing file). `discard` undoes it when the row is not inserted.
   */
  prepare(runId: string, position: number, source: PhotoSource): Promise<RunPhotoRow>;
  /** the file of a row that was not inserted (a directory store; nothing for the database) */
  discard(runId: string, position: number): Promise<void>;
  /** the kept photo of the run's item, or null (read after the caller's ownership was checked) */
  read(db: DB, runId: string, position: number): Promise<{ bytes: Uint8Array; type: string } | null>;
  /** removes the files of a run whose rows were deleted (nothing for the database) */
  removeRun(runId: string): Promise<void>;
}

const bytesOf = async (source: PhotoSource): Promise<Uint8Array> => {
  if (source.bytes) return source.bytes;
  if (source.path) return new Uint8Array(await readFile(source.path));
  throw new Error('a kept photo needs its bytes or a path');
};

/** The head of a file: enough for its signature. */
async function head(source: PhotoSource): Promise<Uint8Array> {
  if (source.bytes) return source.bytes.subarray(0, 16);
  const file = await open(source.path!, 'r');
  try {
    const buf = Buffer.alloc(16);
    const { bytesRead } = await file.read(buf, 0, 16, 0);
    return new Uint8Array(buf.subarray(0, bytesRead));
  } finally {
    await file.close();
  }
}

async function rowMeta(source: PhotoSource): Promise<{ size: number; type: string }> {
  if (source.bytes) return { size: source.bytes.length, type: imageTypeOf(source.bytes) };
  return { size: (await stat(source.path!)).size, type: imageTypeOf(await head(source)) };
}

async function selectRow(db: DB, runId: string, position: number) {
  return db
    .selectFrom('run_photos')
    .select(['type', 'data'])
    .where('run_id', '=', runId)
    .where('position', '=', position)
    .executeTakeFirst();
}

export function databaseRunPhotoStore(): RunPhotoStore {
  return {
    inDatabase: true,
    async prepare(runId, position, source) {
      const data = await bytesOf(source);
      return { run_id: runId, position, size: data.length, type: imageTypeOf(data), data };
    },
    async discard() {},
    async read(db, runId, position) {
      const row = await selectRow(db, runId, position);
      return row?.data ? { bytes: new Uint8Array(row.data), type: row.type } : null;
    },
    async removeRun() {},
  };
}

/** SQLite: DATA_DIR/run-photos/<run>/<position>, owner-only. */
export function directoryRunPhotoStore(root: string): RunPhotoStore {
  const dirOf = (runId: string) => join(root, runId);
  const fileOf = (runId: string, position: number) => join(dirOf(runId), String(position));
  return {
    inDatabase: false,
    async prepare(runId, position, source) {
      await mkdir(dirOf(runId), { recursive: true, mode: PRIVATE_DIR_MODE });
      const target = fileOf(runId, position);
      // The request's spool is removed when it ends: the photo is copied, not moved.
      if (source.bytes) await writeFile(target, source.bytes, { mode: PRIVATE_FILE_MODE });
      else await copyFile(source.path!, target);
      return { run_id: runId, position, ...(await rowMeta(source)), data: null };
    },
    async discard(runId, position) {
      await rm(fileOf(runId, position), { force: true });
    },
    async read(db, runId, position) {
      const row = await selectRow(db, runId, position);
      if (!row) return null;
      const bytes = await readFile(fileOf(runId, position)).catch(() => null);
      return bytes ? { bytes: new Uint8Array(bytes), type: row.type } : null;
    },
    async removeRun(runId) {
      await rm(dirOf(runId), { recursive: true, force: true });
    },
  };
}

/**
 * Where this server's runs keep their photos: the database on PostgreSQL, DATA_DIR/run-photos on
 * SQLite. With KEEP_RUN_PHOTOS=0 new runs keep none (the callers pass no store to storeRun), and
 * the photos kept before are still served and deleted with their runs.
 */
export function runPhotoStoreFor(config: Pick<ServerConfig, 'dataDir'>, dialect: Dialect): RunPhotoStore {
  return dialect === 'postgres' ? databaseRunPhotoStore() : directoryRunPhotoStore(runPhotosDir(config.dataDir));
}

export const runPhotosDir = (dataDir: string) => join(dataDir, 'run-photos');

/** A folder younger than this may belong to a run being stored (its files go first). */
const SWEEP_MIN_AGE_MS = 10 * 60_000;

/**
 * Removes the photo folders of runs that are gone (an account deleted with its runs, a crash
 * between a run's deletion and its files' removal), at server start. SQLite only: PostgreSQL's
 * rows cascade. Answers how many folders were removed.
 */
export async function sweepRunPhotos(db: DB, dataDir: string, minAgeMs = SWEEP_MIN_AGE_MS): Promise<number> {
  const root = runPhotosDir(dataDir);
  const dirs = await readdir(root).catch(() => [] as string[]);
  let removed = 0;
  for (const id of dirs) {
    const run = await db.selectFrom('runs').select('id').where('id', '=', id).executeTakeFirst();
    if (run) continue;
    const age = Date.now() - (await stat(join(root, id))).mtimeMs;
    if (age < minAgeMs) continue;
    await rm(join(root, id), { recursive: true, force: true });
    removed++;
  }
  return removed;
}
