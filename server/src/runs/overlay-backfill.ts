/**
 * The backfill of corrected overlays (issue 28): a truth version saved before versions stored the
 * overlay of their masks (migration 0020) still shows the model's overlay. When the server starts it
 * draws, in the background and in batches, the overlay of every such version in force (the latest of
 * its photo) from its stored masks and the kept photo, once, with the same drawing a save uses
 * (truth.ts `correctedThumbnail`). A photo that was not kept cannot be drawn on: its version is
 * marked `photo-not-kept` and the run keeps showing the model's overlay and says so
 * (`corrected_overlay` of the run's item).
 *
 * Several instances may start at once on one database: each version is claimed first by a
 * conditional update (`overlay_backfill` null, or a claim older than `staleClaimMs` from an instance
 * that died), and written only while that claim is its own, so no version is drawn twice at the
 * same time and a later save is never overwritten (a save inserts a new version). Nothing here names
 * a plugin.
 */
import { randomUUID } from 'node:crypto';
import { runKindOf, type ImageBackend, type Logger, type PluginRegistry, type ResultFigures } from '@mango/core';
import type { DB } from '../db/index.ts';
import type { RunPhotoStore } from './photos.ts';
import { correctedThumbnail, decodeMask, isLatestTruth } from './truth.ts';

export interface OverlayBackfillDeps {
  db: DB;
  registry: PluginRegistry;
  runPhotos: RunPhotoStore;
  images: ImageBackend;
  logger: Logger;
}

/** What became of a truth version the backfill looked at (`photo_truths.overlay_backfill`). */
export const BACKFILL = {
  drawn: 'drawn',
  photoNotKept: 'photo-not-kept',
  notDrawn: 'not-drawn',
  claimed: 'claimed:',
  failed: 'failed: ',
} as const;

export type OverlayBackfillReport = {
  /** overlays drawn and stored */
  drawn: number;
  /** versions whose photo was not kept (the model's overlay stays) */
  photoNotKept: number;
  /** versions of a kind of run that draws no corrected overlay */
  notDrawn: number;
  /** versions that could not be drawn (their reason is stored and logged) */
  failed: number;
  /** versions another instance had claimed */
  skipped: number;
  ms: number;
};

export interface OverlayBackfillOptions {
  /** versions read per query */
  batch?: number;
  /** a claim older than this is taken as an instance that died (ms) */
  staleClaimMs?: number;
  /** checked between photos: true stops the backfill (the server is closing) */
  stopped?: () => boolean;
}

const STALE_CLAIM_MS = 10 * 60_000;
/** how long after the server's start the backfill begins (ms) */
const START_DELAY_MS = 1000;

/** Lets the event loop answer requests between two photos. */
const yieldToRequests = () => new Promise<void>((resolve) => setImmediate(resolve));

/** The latest truth versions without an overlay that no live claim holds, `batch` at a time. */
function candidates(db: DB, staleBefore: string, batch: number) {
  return db
    .selectFrom('photo_truths as t')
    .innerJoin('runs', 'runs.id', 't.run_id')
    .innerJoin('run_items as i', (j) => j.onRef('i.run_id', '=', 't.run_id').onRef('i.position', '=', 't.position'))
    .select([
      't.id',
      't.run_id',
      't.position',
      't.width',
      't.height',
      't.fruit_rle',
      't.bruise_rle',
      'runs.operation',
      'runs.options',
      'i.filename',
      'i.result',
    ])
    .where('t.overlay_thumbnail', 'is', null)
    .where((eb) =>
      eb.or([
        eb('t.overlay_backfill', 'is', null),
        eb.and([
          eb('t.overlay_backfill', 'like', `${BACKFILL.claimed}%`),
          eb('t.overlay_backfill', '<', `${BACKFILL.claimed}${staleBefore}`),
        ]),
      ]),
    )
    .where(isLatestTruth)
    .orderBy('t.id')
    .limit(batch)
    .execute();
}

/**
 * Draws the missing corrected overlays (see the file's comment) until none is left or `stopped()`;
 * answers what it did. Safe to run on several instances at once.
 */
export async function backfillTruthOverlays(
  deps: OverlayBackfillDeps,
  opts: OverlayBackfillOptions = {},
): Promise<OverlayBackfillReport> {
  const started = performance.now();
  const batch = opts.batch ?? 25;
  const instance = randomUUID().slice(0, 8);
  const report: OverlayBackfillReport = { drawn: 0, photoNotKept: 0, notDrawn: 0, failed: 0, skipped: 0, ms: 0 };
  const seen = new Set<number>();
  for (;;) {
    const staleBefore = new Date(Date.now() - (opts.staleClaimMs ?? STALE_CLAIM_MS)).toISOString();
    const rows = (await candidates(deps.db, staleBefore, batch)).filter((r) => !seen.has(r.id));
    if (rows.length === 0 || opts.stopped?.()) break;
    for (const row of rows) {
      if (opts.stopped?.()) break;
      seen.add(row.id);
      const claim = `${BACKFILL.claimed}${new Date().toISOString()}:${instance}`;
      const claimed = await deps.db
        .updateTable('photo_truths')
        .set({ overlay_backfill: claim })
        .where('id', '=', row.id)
        .where('overlay_thumbnail', 'is', null)
        .where((eb) =>
          eb.or([
            eb('overlay_backfill', 'is', null),
            eb.and([
              eb('overlay_backfill', 'like', `${BACKFILL.claimed}%`),
              eb('overlay_backfill', '<', `${BACKFILL.claimed}${staleBefore}`),
            ]),
          ]),
        )
        .executeTakeFirst();
      if (Number(claimed.numUpdatedRows) !== 1) {
        report.skipped++;
        continue;
      }
      // Written only while the claim is still this instance's.
      const finish = (set: { overlay_thumbnail?: string; overlay_backfill: string }) =>
        deps.db
          .updateTable('photo_truths')
          .set(set)
          .where('id', '=', row.id)
          .where('overlay_backfill', '=', claim)
          .executeTakeFirst();
      try {
        const kind = runKindOf(deps.registry, row.operation);
        const photo = kind?.runs.correctedOverlay ? await deps.runPhotos.read(deps.db, row.run_id, row.position) : null;
        if (!kind?.runs.correctedOverlay) {
          await finish({ overlay_backfill: BACKFILL.notDrawn });
          report.notDrawn++;
        } else if (!photo) {
          await finish({ overlay_backfill: BACKFILL.photoNotKept });
          report.photoNotKept++;
        } else {
          const image = await deps.images.decode(photo.bytes, row.filename);
          const masks = {
            width: row.width,
            height: row.height,
            fruit: decodeMask(row.fruit_rle, row.width, row.height),
            bruise: decodeMask(row.bruise_rle, row.width, row.height),
          };
          const model = JSON.parse(row.result) as ResultFigures;
          const overlay = await correctedThumbnail(kind, model, masks, image, JSON.parse(row.options));
          await finish({ overlay_thumbnail: overlay!, overlay_backfill: BACKFILL.drawn });
          report.drawn++;
        }
      } catch (err) {
        const reason = err instanceof Error ? err.message : String(err);
        deps.logger.warn(`corrected overlay of run ${row.run_id} photo ${row.position} not drawn: ${reason}`);
        await finish({ overlay_backfill: `${BACKFILL.failed}${reason}`.slice(0, 500) });
        report.failed++;
      }
      await yieldToRequests();
    }
  }
  report.ms = Math.round(performance.now() - started);
  return report;
}

/**
 * Starts the backfill in the background (the server's start does not wait for it); `stop()` asks it
 * to stop after the photo in hand and resolves when it has.
 */
export function startOverlayBackfill(
  deps: OverlayBackfillDeps,
  opts: Omit<OverlayBackfillOptions, 'stopped'> & { delayMs?: number } = {},
) {
  let stopping = false;
  let wake: () => void = () => {};
  // Begun a moment after the start, so the server's first requests do not wait for its first photo.
  const delayed = new Promise<void>((resolve) => {
    const timer = setTimeout(resolve, opts.delayMs ?? START_DELAY_MS);
    wake = () => {
      clearTimeout(timer);
      resolve();
    };
  });
  const done = delayed
    .then(() => backfillTruthOverlays(deps, { ...opts, stopped: () => stopping }))
    .then((r) => {
      if (r.drawn + r.photoNotKept + r.notDrawn + r.failed > 0)
        deps.logger.info(
          `corrected overlays backfilled in ${r.ms} ms: ${r.drawn} drawn, ${r.photoNotKept} photo not kept (model's overlay kept), ${r.notDrawn} not drawn by their kind, ${r.failed} failed, ${r.skipped} taken by another instance`,
        );
      return r;
    })
    .catch((err: unknown) => {
      deps.logger.error('corrected overlay backfill failed', err);
      return null;
    });
  return {
    done,
    stop: async () => {
      stopping = true;
      wake();
      await done;
    },
  };
}
