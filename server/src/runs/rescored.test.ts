/**
 * Kept photos scored again, cached (issue 28): GET .../model-masks and the full-resolution export
 * score a kept photo once, and answer from the cache after (the same bytes); the cache is bounded
 * (least recently used let go first) and a deleted run's images leave it. A real photo of the shared
 * set over real HTTP, on SQLite and PostgreSQL; the times of a first and a second call are printed.
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import JSZip from 'jszip';
import { SHARED_MISSING, sharedDir } from '@mango/core/testing/node';
import { startWithUser, TEST_DATABASES } from '../testing/index.ts';
import { createRescoredCache } from './rescored.ts';

const shared = sharedDir();
const photoPath = shared && join(shared, 'data/bruise-dev/synthetic_composites/images/syn_mangodc_3-Center_4.jpg');
const present = Boolean(photoPath && existsSync(photoPath));

describe('the re-scored images cache', () => {
  const image = (n: number, fill = 0) => ({ bytes: new Uint8Array(n).fill(fill), mime: 'image/png' as const });

  it('lets the least recently used go past its bound, and a deleted run all of its images', () => {
    const cache = createRescoredCache(100);
    cache.set('a\n0\nm\nx', image(40, 1));
    cache.set('a\n1\nm\nx', image(40, 2));
    expect(cache.get('a\n0\nm\nx')?.bytes[0]).toBe(1); // now the most recently used
    cache.set('b\n0\nm\nx', image(40, 3)); // 120 bytes: a/1 goes
    expect(cache.get('a\n1\nm\nx')).toBeUndefined();
    expect(cache.stats()).toMatchObject({ bytes: 80, entries: 2 });
    cache.set('c\n0\nm\nx', image(101)); // larger than the bound: not kept, nothing let go
    expect(cache.stats()).toMatchObject({ bytes: 80, entries: 2 });
    cache.set('b\n0\nm\nx', image(10, 4)); // replaced: its bytes counted once
    expect(cache.stats()).toMatchObject({ bytes: 50, entries: 2 });
    cache.dropRun('a');
    expect(cache.get('a\n0\nm\nx')).toBeUndefined();
    expect(cache.get('b\n0\nm\nx')?.bytes[0]).toBe(4);
    expect(cache.stats()).toMatchObject({ bytes: 10, entries: 1 });
  });
});

describe.skipIf(!present).each(TEST_DATABASES)(
  `a kept photo scored again once, on %s${present ? '' : ` (${SHARED_MISSING})`}`,
  (database) => {
    let t: Awaited<ReturnType<typeof startWithUser>>;

    beforeAll(async () => {
      t = await startWithUser(database);
    }, 60_000);
    afterAll(async () => {
      await t?.server.close();
    });

    it('answers model-masks and the full export from the cache after the first call; drops the run on delete', async () => {
      const cache = t.server.ctx.jobs.rescored;
      const fd = new FormData();
      fd.append('images', new Blob([readFileSync(photoPath!)]), 'center-4.jpg');
      const scored = await t.call('/api-py/python/bruise_detection/Classical', { method: 'POST', body: fd });
      expect(scored.status).toBe(200);
      const runId = ((await scored.json()) as { run_id: string }[])[0].run_id;
      const timed = async (path: string) => {
        const start = performance.now();
        const res = await t.call(path);
        expect(res.status).toBe(200);
        const body = new Uint8Array(await res.arrayBuffer());
        return { ms: performance.now() - start, body };
      };

      const start = cache.stats();
      const first = await timed(`/api-node/runs/${runId}/items/0/model-masks`);
      const afterFirst = cache.stats();
      // fruit mask, bruise mask, probability: scored once
      expect(afterFirst.misses - start.misses).toBe(3);
      expect(afterFirst.entries - start.entries).toBe(3);
      const second = await timed(`/api-node/runs/${runId}/items/0/model-masks`);
      const afterSecond = cache.stats();
      expect(afterSecond.hits - afterFirst.hits).toBe(3);
      expect(afterSecond.misses).toBe(afterFirst.misses);
      expect(second.body).toEqual(first.body);

      // The full export shares the masks, and scores the photo once for its full-size overlay.
      const full1 = await timed(`/api-node/runs/${runId}/export?format=zip&resolution=full`);
      const afterFull = cache.stats();
      expect(afterFull.misses - afterSecond.misses).toBe(1);
      expect(afterFull.hits - afterSecond.hits).toBe(2);
      const full2 = await timed(`/api-node/runs/${runId}/export?format=zip&resolution=full`);
      expect(cache.stats().misses).toBe(afterFull.misses);
      const names = async (b: Uint8Array) => Object.keys((await JSZip.loadAsync(b)).files).sort();
      expect(await names(full2.body)).toEqual(await names(full1.body));
      const overlay = async (b: Uint8Array) =>
        (await JSZip.loadAsync(b)).file('overlays/center-4.overlay.jpg')!.async('uint8array');
      expect(await overlay(full2.body)).toEqual(await overlay(full1.body));
      console.log(
        `${database}: model-masks ${first.ms.toFixed(0)} ms, again ${second.ms.toFixed(0)} ms; ` +
          `full export ${full1.ms.toFixed(0)} ms, again ${full2.ms.toFixed(0)} ms; cache ${(cache.stats().bytes / 1e6).toFixed(2)} MB`,
      );

      // Deleting the run lets go of its images.
      expect((await t.call(`/api-node/runs/${runId}`, { method: 'DELETE' })).status).toBe(200);
      expect(cache.stats().entries).toBe(start.entries);
      expect(cache.stats().bytes).toBe(start.bytes);
    }, 180_000);
  },
);
