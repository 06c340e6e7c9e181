/**
 * A corrected photo's overlay on a stored run (issue 28): once a person saves corrected masks, the
 * run's overlay thumbnail of that photo is drawn from them (the model's kept beside it,
 * `model_overlay_thumbnail`), and so are the overlays of its exports: the thumbnail zip, the HTML
 * report and the full-resolution zip (`<stem>.overlay.jpg` from the truth at the photo's size, the
 * model's as `<stem>.model.overlay.jpg`). A real photo of the shared set, scored over real HTTP, on
 * SQLite and PostgreSQL.
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import JSZip from 'jszip';
import { encodeCocoRle } from '@mango/core';
import { decodeImage } from '@mango/core/node';
import { SHARED_MISSING, sharedDir } from '@mango/core/testing/node';
import { startWithUser, TEST_DATABASES } from '../../testing/index.ts';
import { maskOf, pixelsOf, tintCounts } from '../../testing/overlays.ts';

const shared = sharedDir();
const set = shared && join(shared, 'data/bruise-dev/synthetic_composites');
const STEM = 'syn_mangodc_3-Center_4';
const present = Boolean(set && existsSync(join(set, 'images', `${STEM}.jpg`)));

interface Item {
  position: number;
  overlay_thumbnail: string | null;
  model_overlay_thumbnail?: string | null;
  truth: { version: number } | null;
  result: { bruise_percent: number; corrected?: boolean };
}

describe.skipIf(!present).each(TEST_DATABASES)(
  `a corrected photo's overlay on its run and in its exports, on %s${present ? '' : ` (${SHARED_MISSING})`}`,
  (database) => {
    let t: Awaited<ReturnType<typeof startWithUser>>;

    const runOf = async (id: string) => (await (await t.call(`/api-node/runs/${id}`)).json()) as { items: Item[] };

    beforeAll(async () => {
      t = await startWithUser(database);
    }, 60_000);
    afterAll(async () => {
      await t?.server.close();
    });

    it('shows and exports the overlay of the corrected masks, the model overlay kept beside it', async () => {
      const photo = readFileSync(join(set!, 'images', `${STEM}.jpg`));
      const fruit = await maskOf(join(set!, 'fruit_masks', `${STEM}.png`));
      const lesion = await maskOf(join(set!, 'bruise_masks', `${STEM}.png`));
      const fd = new FormData();
      fd.append('images', new Blob([photo]), `${STEM}.jpg`);
      const scored = await t.call('/api-py/python/bruise_detection/Classical', { method: 'POST', body: fd });
      expect(scored.status).toBe(200);
      const runId = ((await scored.json()) as { run_id: string }[])[0].run_id;
      const before = (await runOf(runId)).items[0];
      expect(before.truth).toBeNull();
      expect(before.model_overlay_thumbnail).toBeUndefined();
      const model = await pixelsOf(before.overlay_thumbnail!);
      const modelTint = tintCounts(model, lesion);
      // the model found most of the painted lesions (19.85 % of the fruit)
      expect(modelTint.insideTinted / modelTint.inside).toBeGreaterThan(0.5);

      // 1. A person erases every lesion: the overlay shows none, the model's still shows its own.
      const put = (bruise: Uint8Array) =>
        t.call(`/api-node/runs/${runId}/items/0/truth`, {
          method: 'PUT',
          headers: { 'Content-Type': 'application/json' },
          body: JSON.stringify({
            fruit: encodeCocoRle(fruit.mask, fruit.width, fruit.height),
            bruise: encodeCocoRle(bruise, fruit.width, fruit.height),
            model_id: null,
          }),
        });
      expect((await put(new Uint8Array(fruit.mask.length))).status).toBe(201);
      const erased = (await runOf(runId)).items[0];
      expect(erased.truth?.version).toBe(1);
      expect(erased.result.bruise_percent).toBe(0);
      expect(erased.model_overlay_thumbnail).toBe(before.overlay_thumbnail);
      expect(erased.overlay_thumbnail).not.toBe(before.overlay_thumbnail);
      const clean = await pixelsOf(erased.overlay_thumbnail!);
      expect([clean.width, clean.height]).toEqual([model.width, model.height]);
      const cleanTint = tintCounts(clean, lesion);
      console.log(
        `${STEM}: model overlay ${modelTint.insideTinted}/${modelTint.inside} lesion px tinted; erased: ${cleanTint.insideTinted} inside, ${cleanTint.outsideTinted} outside`,
      );
      expect(cleanTint.insideTinted).toBe(0);
      expect(cleanTint.outsideTinted).toBe(0);

      // 2. The lesions as painted (the set's truth): tinted there and nowhere else.
      expect((await put(lesion.mask)).status).toBe(201);
      const fixed = (await runOf(runId)).items[0];
      expect(fixed.truth?.version).toBe(2);
      expect(fixed.result.bruise_percent).toBeCloseTo(19.85, 1);
      const truthTint = tintCounts(await pixelsOf(fixed.overlay_thumbnail!), lesion);
      console.log(
        `truth: ${truthTint.insideTinted}/${truthTint.inside} lesion px tinted, ${truthTint.outsideTinted} outside`,
      );
      expect(truthTint.insideTinted / truthTint.inside).toBeGreaterThan(0.97);
      expect(truthTint.outsideTinted).toBe(0);

      // 3. Its exports: the thumbnail zip and the report carry the corrected overlay, the model's beside it.
      const zip = await JSZip.loadAsync(
        await (await t.call(`/api-node/runs/${runId}/export?format=zip`)).arrayBuffer(),
      );
      const b64 = async (name: string) => (await zip.file(name)!.async('nodebuffer')).toString('base64');
      expect(await b64(`overlays/${STEM}.overlay.jpg`)).toBe(fixed.overlay_thumbnail!.split(',')[1]);
      expect(await b64(`overlays/${STEM}.model.overlay.jpg`)).toBe(before.overlay_thumbnail!.split(',')[1]);
      const report = await (await t.call(`/api-node/runs/${runId}/export?format=html`)).text();
      expect(report).toContain(fixed.overlay_thumbnail!);
      expect(report).not.toContain(before.overlay_thumbnail!);

      // 4. The full-resolution zip: the corrected overlay at the photo's size, the model's beside it.
      const full = await t.call(`/api-node/runs/${runId}/export?format=zip&resolution=full`);
      expect(full.status).toBe(200);
      const fullZip = await JSZip.loadAsync(await full.arrayBuffer());
      const image = async (name: string) => decodeImage(await fullZip.file(name)!.async('uint8array'), name);
      const drawn = await image(`overlays/${STEM}.overlay.jpg`);
      const theirs = await image(`overlays/${STEM}.model.overlay.jpg`);
      expect([drawn.width, drawn.height]).toEqual([fruit.width, fruit.height]);
      expect([theirs.width, theirs.height]).toEqual([fruit.width, fruit.height]);
      const fullTint = tintCounts(drawn, lesion, 3);
      console.log(
        `full size: ${fullTint.insideTinted}/${fullTint.inside} lesion px tinted, ${fullTint.outsideTinted} outside`,
      );
      expect(fullTint.insideTinted / fullTint.inside).toBeGreaterThan(0.97);
      expect(fullTint.outsideTinted / fullTint.inside).toBeLessThan(0.001);
    }, 180_000);
  },
);
