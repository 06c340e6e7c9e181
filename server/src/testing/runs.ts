/**
 * Stored runs with experiment metadata for tests (issue 27): a copy of a run scored through the API,
 * same owner, figures and thumbnails, with `meta` on its items (kept in the item's result, where the
 * metadata upload keeps it), written through the run store. It stands for a run uploaded with
 * metadata, and lets a test choose any metadata for real figures.
 */
import { randomUUID } from 'node:crypto';
import { now, type DB } from '../db/index.ts';
import { insertRun, type RunItemRow } from '../runs/store.ts';
import { backfillTruthOverlays, type OverlayBackfillOptions } from '../runs/overlay-backfill.ts';
import type { RunningServer } from '../server.ts';

export type PhotoMeta = Record<string, string | null>;

/** Stores a copy of run `sourceId` whose items carry `metaOf(filename, position)`; answers the new run's id. */
export async function copyRunWithMeta(
  db: DB,
  sourceId: string,
  metaOf: (filename: string, position: number) => PhotoMeta | undefined,
): Promise<string> {
  const run = await db.selectFrom('runs').selectAll().where('id', '=', sourceId).executeTakeFirstOrThrow();
  const rows = await db
    .selectFrom('run_items')
    .selectAll()
    .where('run_id', '=', sourceId)
    .orderBy('position')
    .execute();
  const id = randomUUID();
  const items: RunItemRow[] = rows.map(({ id: _id, ...row }) => {
    const meta = metaOf(row.filename, row.position);
    const result = JSON.parse(row.result) as Record<string, unknown>;
    return { ...row, run_id: id, result: JSON.stringify(meta ? { ...result, meta } : result) };
  });
  await insertRun(db, { ...run, id, created_at: now() } as Parameters<typeof insertRun>[1], items);
  return id;
}

/**
 * The corrections of runs `runIds` made as they were before truth versions stored their overlay
 * (migration 0020; issue 28): the versions lose their overlay and what the backfill made of them.
 */
export async function asSavedBeforeOverlays(db: DB, runIds: string[]): Promise<void> {
  await db
    .updateTable('photo_truths')
    .set({ overlay_thumbnail: null, overlay_backfill: null })
    .where('run_id', 'in', runIds)
    .execute();
}

/** One pass of the corrected-overlay backfill (runs/overlay-backfill.ts) on a running server's database. */
export const backfillOverlays = (server: RunningServer, opts?: OverlayBackfillOptions) =>
  backfillTruthOverlays(
    {
      db: server.ctx.db,
      registry: server.ctx.registry,
      runPhotos: server.ctx.jobs.runPhotos,
      images: server.ctx.images,
      logger: server.ctx.logger,
    },
    opts,
  );
