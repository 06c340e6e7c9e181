/**
 * Stored runs with experiment metadata for tests (issue 27): a copy of a run scored through the API,
 * same owner, figures and thumbnails, with `meta` on its items (kept in the item's result, where the
 * metadata upload keeps it), written through the run store. It stands for a run uploaded with
 * metadata, and lets a test choose any metadata for real figures.
 */
import { randomUUID } from 'node:crypto';
import { now, type DB } from '../db/index.ts';
import { insertRun, type RunItemRow } from '../runs/store.ts';

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
