/**
 * The backfill of corrected overlays (issue 28; runs/overlay-backfill.ts): a correction saved before
 * truth versions stored the overlay of their masks (migration 0020) showed the model's overlay. The
 * rows are written as that code wrote them (the version without `overlay_thumbnail`); a server then
 * starts on the same database and draws the overlay from the stored masks and the kept photo, once.
 * A photo that was not kept keeps the model's overlay and says so. A real photo of the shared set,
 * over real HTTP, on SQLite and PostgreSQL; two backfills at once draw each overlay once.
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { encodeCocoRle } from '@mango/core';
import { SHARED_MISSING, sharedDir } from '@mango/core/testing/node';
import {
  asSavedBeforeOverlays,
  backfillOverlays,
  startTestServer,
  startWithUser,
  TEST_DATABASES,
  type TestServer,
} from '../../testing/index.ts';
import { maskOf, pixelsOf, tintCounts } from '../../testing/overlays.ts';

const shared = sharedDir();
const set = shared && join(shared, 'data/bruise-dev/synthetic_composites');
const STEM = 'syn_mangodc_3-Center_4';
const present = Boolean(set && existsSync(join(set, 'images', `${STEM}.jpg`)));

interface Item {
  overlay_thumbnail: string | null;
  model_overlay_thumbnail?: string | null;
  corrected_overlay?: string;
  truth: { version: number } | null;
  result: { bruise_percent: number };
}

describe.skipIf(!present).each(TEST_DATABASES)(
  `corrected overlays of corrections saved before they were stored, drawn at start, on %s${present ? '' : ` (${SHARED_MISSING})`}`,
  (database) => {
    let t: Awaited<ReturnType<typeof startWithUser>>;
    let restarted: TestServer | undefined;

    beforeAll(async () => {
      t = await startWithUser(database);
    }, 60_000);
    afterAll(async () => {
      await restarted?.close();
      await t?.server.close();
    });

    it('draws the overlay of the stored masks on the kept photo; a photo not kept keeps the model overlay', async () => {
      const photo = readFileSync(join(set!, 'images', `${STEM}.jpg`));
      const fruit = await maskOf(join(set!, 'fruit_masks', `${STEM}.png`));
      const lesion = await maskOf(join(set!, 'bruise_masks', `${STEM}.png`));
      const db = t.server.ctx.db;

      // Two runs of the photo (scored over HTTP, the photo kept), each corrected: every lesion erased.
      const score = async () => {
        const fd = new FormData();
        fd.append('images', new Blob([photo]), `${STEM}.jpg`);
        const res = await t.call('/api-py/python/bruise_detection/Classical', { method: 'POST', body: fd });
        expect(res.status).toBe(200);
        return ((await res.json()) as { run_id: string }[])[0].run_id;
      };
      const itemOf = async (call: typeof t.call, id: string) =>
        ((await (await call(`/api-node/runs/${id}`)).json()) as { items: Item[] }).items[0];
      const kept = await score();
      const lost = await score();
      const model = await itemOf(t.call, kept);
      const modelTint = tintCounts(await pixelsOf(model.overlay_thumbnail!), lesion);
      expect(modelTint.insideTinted / modelTint.inside).toBeGreaterThan(0.5);
      for (const id of [kept, lost]) {
        const put = await t.call(`/api-node/runs/${id}/items/0/truth`, {
          method: 'PUT',
          headers: { 'Content-Type': 'application/json' },
          body: JSON.stringify({
            fruit: encodeCocoRle(fruit.mask, fruit.width, fruit.height),
            bruise: encodeCocoRle(new Uint8Array(fruit.mask.length), fruit.width, fruit.height),
            model_id: null,
          }),
        });
        expect(put.status).toBe(201);
      }
      // What a save draws today, to compare the backfill's drawing with.
      const savedNow = (await itemOf(t.call, kept)).overlay_thumbnail!;

      // The rows as the code before migration 0020 wrote them: the version has no overlay.
      await asSavedBeforeOverlays(db, [kept, lost]);
      // The second run's photo was not kept.
      await db.deleteFrom('run_photos').where('run_id', '=', lost).execute();
      const old = await itemOf(t.call, kept);
      expect(old.truth?.version).toBe(1);
      expect(old.result.bruise_percent).toBe(0);
      expect(old.overlay_thumbnail).toBe(model.overlay_thumbnail);
      expect(old.model_overlay_thumbnail).toBeUndefined();
      expect(old.corrected_overlay).toBe('pending');

      // A server starts on that database: its start draws the missing overlays in the background.
      const started = performance.now();
      restarted = await startTestServer({ dataDir: t.server.dataDir, overlayBackfill: true }, { database });
      const startMs = performance.now() - started;
      const report = await restarted.ctx.overlayBackfill;
      console.log(`${database}: server started in ${Math.round(startMs)} ms; backfill`, report);
      expect(report).not.toBeNull();
      expect(report!.drawn).toBeGreaterThanOrEqual(1);
      expect(report!.photoNotKept).toBeGreaterThanOrEqual(1);
      const call = (path: string) =>
        fetch(restarted!.url + path, { headers: { Authorization: `Bearer ${t.user.accessToken}` } });

      const drawn = await itemOf(call, kept);
      expect(drawn.corrected_overlay).toBe('drawn');
      expect(drawn.model_overlay_thumbnail).toBe(model.overlay_thumbnail);
      expect(drawn.overlay_thumbnail).not.toBe(model.overlay_thumbnail);
      // the same drawing a save makes, pixel for pixel (the same JPEG)
      expect(drawn.overlay_thumbnail).toBe(savedNow);
      const img = await pixelsOf(drawn.overlay_thumbnail!);
      const tint = tintCounts(img, lesion);
      console.log(
        `model overlay: ${modelTint.insideTinted}/${modelTint.inside} lesion px tinted; backfilled: ${tint.insideTinted} inside, ${tint.outsideTinted} outside`,
      );
      expect(tint.insideTinted).toBe(0);
      expect(tint.outsideTinted).toBe(0);

      const notKept = await itemOf(call, lost);
      expect(notKept.corrected_overlay).toBe('photo-not-kept');
      expect(notKept.overlay_thumbnail).toBe(model.overlay_thumbnail);
      expect(notKept.model_overlay_thumbnail).toBeUndefined();

      // Once: another pass finds nothing to do.
      const again = await backfillOverlays(restarted);
      expect(again.drawn + again.photoNotKept + again.failed).toBe(0);

      // Two instances at once (two passes on one database): each overlay drawn by one of them.
      await asSavedBeforeOverlays(db, [kept, lost]);
      const [a, b] = await Promise.all([
        backfillOverlays(t.server, { batch: 1 }),
        backfillOverlays(restarted, { batch: 1 }),
      ]);
      console.log('two at once:', a, b);
      expect(a.drawn + b.drawn).toBe(1);
      expect(a.photoNotKept + b.photoNotKept).toBe(1);
      expect(a.failed + b.failed).toBe(0);
      const states = await db
        .selectFrom('photo_truths')
        .select(['run_id', 'overlay_backfill'])
        .where('run_id', 'in', [kept, lost])
        .execute();
      expect(Object.fromEntries(states.map((s) => [s.run_id === kept ? 'kept' : 'lost', s.overlay_backfill]))).toEqual({
        kept: 'drawn',
        lost: 'photo-not-kept',
      });
      expect((await itemOf(call, kept)).overlay_thumbnail).toBe(savedNow);
    }, 240_000);
  },
);
