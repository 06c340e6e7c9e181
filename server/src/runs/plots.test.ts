/**
 * Experiment metadata on stored runs (issue 27): items keep `meta`, the run and its results file
 * give it back, and the HTML report plots bruise % by it (n and mean per group from the run's own
 * figures). Runs scored over real HTTP, then stored with metadata through the run store.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { encodeImage } from '@mango/core/node';
import { lesionScene } from '@mango/core/testing';
import { ResultsFile, StoredRun } from '@mango/core/results';
import { describeGroup } from '@mango/core';
import { copyRunWithMeta, startTestServer, TEST_DATABASES, type TestServer } from '../testing/index.ts';
import { client, signUp, type SignedIn } from '../testing/accounts.ts';

const META: Record<string, Record<string, string | null>> = {
  'p0.png': { treatment: 'hot', day: '0' },
  'p1.png': { treatment: 'hot', day: '3' },
  'p2.png': { treatment: 'cold', day: '0' },
  'p3.png': { treatment: 'cold', day: '3' },
  'p4.png': { treatment: null, day: '3' },
};

describe.each(TEST_DATABASES)('run items with metadata on %s', (database) => {
  let server: TestServer;
  let alice: SignedIn;
  let runId = '';
  beforeAll(async () => {
    server = await startTestServer({ workerThreads: 1 }, { database });
    alice = await signUp(client(server), 'Alice Farms');
    const fd = new FormData();
    for (const [i, r] of [0, 14, 22, 30, 38].entries())
      fd.append('images', new Blob([(await encodeImage(lesionScene(r, i + 1).image, 'png')) as BlobPart]), `p${i}.png`);
    const res = await fetch(`${server.url}/api-py/python/bruise_detection/Classical`, {
      method: 'POST',
      body: fd,
      headers: { Authorization: `Bearer ${alice.accessToken}` },
    });
    expect(res.status).toBe(200);
    const scored = (await res.json()) as { run_id: string }[];
    runId = await copyRunWithMeta(server.ctx.db, scored[0].run_id, (name) => META[name]);
  });
  afterAll(() => server?.close());

  const get = (path: string) => fetch(server.url + path, { headers: { Authorization: `Bearer ${alice.accessToken}` } });

  it("keeps each item's meta with its result, in the run and in the results file", async () => {
    const run = StoredRun.parse(await (await get(`/api-node/runs/${runId}`)).json());
    expect(run.items.map((i) => [i.filename, i.result.meta])).toEqual(Object.entries(META));
    const raw: unknown = await (await get(`/api-node/runs/${runId}/export?format=json`)).json();
    expect(ResultsFile.safeParse(raw).success).toBe(true);
    const photos = (raw as { photos: { meta?: unknown; result: { meta?: unknown } }[] }).photos;
    expect(photos.map((p) => p.meta ?? p.result.meta)).toEqual(Object.values(META));
  });

  it('reports bruise % by treatment: n and mean per group from the run figures, (none) for the missing value', async () => {
    const run = StoredRun.parse(await (await get(`/api-node/runs/${runId}`)).json());
    const percent = (name: string) => run.items.find((i) => i.filename === name)!.result.bruise_percent as number;
    // the photos differ: the lesions grow
    expect(percent('p0.png')).toBeLessThan(percent('p1.png'));
    expect(percent('p3.png')).toBeGreaterThan(percent('p2.png'));
    const html = await (await get(`/api-node/runs/${runId}/export?format=html`)).text();
    const rows = [
      ...(html.match(/<table class="groups">.*?<tbody>(.*?)<\/tbody>/s)?.[1] ?? '').matchAll(
        /<tr><th>(.*?)<\/th><td class="num">(\d+)<\/td><td class="num">([\d.]+)<\/td>/g,
      ),
    ].map((m) => [m[1], Number(m[2]), Number(m[3])]);
    const expected = (names: string[]) => Number(describeGroup(names.map(percent)).mean!.toFixed(2));
    expect(rows).toEqual([
      ['cold', 2, expected(['p2.png', 'p3.png'])],
      ['hot', 2, expected(['p0.png', 'p1.png'])],
      ['(none)', 1, expected(['p4.png'])],
    ]);
    expect(html).toContain('Mean bruise % over day, per group');
    expect(html.match(/<svg role="img"/g)).toHaveLength(3);
  });
});
