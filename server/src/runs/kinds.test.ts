/**
 * Runs of any plugin that declares them (issue 24 item 4): K-Means and remove-background runs are
 * stored, listed, exported and deleted by the same run code as bruise runs, which names no plugin.
 * Through the jobs API (both) and /api-py/python/remove_background, over real HTTP.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import JSZip from 'jszip';
import { followJob } from '@mango/core/jobs';
import type { StoredRun } from '@mango/core/results';
import { encodeImage } from '@mango/core/node';
import { bruisedPairScene, imageFromText } from '@mango/core/testing';
import { startTestServer, TEST_DATABASES, type TestServer } from '../testing/index.ts';
import { client, signUp, type Client, type SignedIn } from '../testing/accounts.ts';

async function post(
  server: TestServer,
  path: string,
  token: string,
  fields: Record<string, string>,
  files: [string, Uint8Array][],
) {
  const fd = new FormData();
  for (const [k, v] of Object.entries(fields)) fd.append(k, v);
  for (const [name, bytes] of files) fd.append('images', new Blob([bytes as BlobPart]), name);
  return fetch(`${server.url}${path}`, { method: 'POST', body: fd, headers: { Authorization: `Bearer ${token}` } });
}

/** 40 x 20: the left half red, the right half green. */
const halves = () =>
  encodeImage(
    imageFromText(
      Array.from({ length: 20 }, () => 'r'.repeat(20) + 'g'.repeat(20)),
      {
        r: [200, 30, 30, 255],
        g: [30, 180, 40, 255],
      },
    ),
    'png',
  );

const KMEANS = {
  classes: [
    { name: 'red', color: [255, 0, 0], regions: [{ x: 2, y: 2, width: 6, height: 6 }] },
    { name: 'green', color: [0, 255, 0], regions: [{ x: 30, y: 2, width: 6, height: 6 }] },
  ],
};

describe.each(TEST_DATABASES)('runs of any plugin on %s', (database) => {
  let server: TestServer;
  let api: Client;
  let alice: SignedIn;
  beforeAll(async () => {
    server = await startTestServer({ workerThreads: 1 }, { database });
    api = client(server);
    alice = await signUp(api, 'Alice Farms');
  });
  afterAll(() => server.close());

  const text = async (path: string) => {
    const res = await fetch(server.url + path, { headers: { Authorization: `Bearer ${alice.accessToken}` } });
    return {
      status: res.status,
      body: res.status === 200 ? Buffer.from(await res.arrayBuffer()) : Buffer.from(await res.text()),
    };
  };

  it('stores a K-Means job as a run: classes and area % per photo, its table and zip, no labels', async () => {
    const png = await halves();
    const res = await post(
      server,
      '/api-node/jobs',
      alice.accessToken,
      { operation: 'kmeans', options: JSON.stringify(KMEANS) },
      [
        ['halves.png', png],
        ['broken.jpg', new TextEncoder().encode('not a photo')],
      ],
    );
    expect(res.status).toBe(202);
    const { id } = (await res.json()) as { id: string };
    const end = await followJob(server.url, id, alice.accessToken);
    expect(end).toMatchObject({ state: 'done', total: 2, done: 1, failed: 1 });

    const run = (await api.get<StoredRun>(`/api-node/runs/${end.run_id}`, alice.accessToken)).body;
    expect(run).toMatchObject({ operation: 'kmeans', item_count: 2, summary: { n: 2, classes: 2 } });
    expect(run.options).toMatchObject({ classes: KMEANS.classes });
    const [scored, failed] = run.items;
    expect(scored.result).toEqual({
      filename: 'halves.png',
      classes: [
        { name: 'red', color: [255, 0, 0], percent: '50.00' },
        { name: 'green', color: [0, 255, 0], percent: '50.00' },
      ],
    });
    expect(scored.photo_thumbnail).toMatch(/^data:image\/jpeg;base64,/);
    expect(failed.result).toMatchObject({ filename: 'broken.jpg', error: expect.stringContaining('broken.jpg') });

    const listed = await api.get<{ runs: { id: string }[] }>('/api-node/runs?operation=kmeans', alice.accessToken);
    expect(listed.body.runs.map((r) => r.id)).toEqual([end.run_id]);

    const csv = await text(`/api-node/runs/${end.run_id}/export?format=csv`);
    expect(csv.status).toBe(200);
    expect(csv.body.toString('utf8').trim().split(/\r?\n/)).toEqual([
      'image,class,red,green,blue,percent,error',
      'halves.png,red,255,0,0,50.00,',
      'halves.png,green,0,255,0,50.00,',
      expect.stringMatching(/^broken\.jpg,,,,,,.*broken\.jpg/),
    ]);
    const zip = await JSZip.loadAsync((await text(`/api-node/runs/${end.run_id}/export?format=zip`)).body);
    expect(Object.keys(zip.files).sort()).toEqual(['classes.csv', 'provenance.json']);
    expect(JSON.parse(await zip.file('provenance.json')!.async('string'))).toMatchObject({ operation: 'kmeans' });
    // No report is declared for K-Means runs; a table it does not have is named.
    expect((await text(`/api-node/runs/${end.run_id}/export?format=html`)).status).toBe(400);
    const wrong = await text(`/api-node/runs/${end.run_id}/export?format=csv&table=fruits`);
    expect(wrong.status).toBe(400);
    expect(wrong.body.toString()).toContain('classes');
  });

  it('refuses K-Means options its schema does not know, and an operation no plugin declares', async () => {
    const png = await halves();
    const unknown = await post(
      server,
      '/api-node/jobs',
      alice.accessToken,
      { operation: 'kmeans', options: JSON.stringify({ ...KMEANS, rounds: 3 }) },
      [['halves.png', png]],
    );
    expect(unknown.status).toBe(400);
    expect(JSON.stringify(await unknown.json())).toContain('rounds');
    const none = await post(server, '/api-node/jobs', alice.accessToken, { operation: 'resize' }, [
      ['halves.png', png],
    ]);
    expect(none.status).toBe(400);
    const said = JSON.stringify(await none.json());
    for (const op of ['`bruise`', '`features`', '`kmeans`', '`remove-background`']) expect(said).toContain(op);
  });

  it('stores background removals from /api-py/python/remove_background and from a job, with the cut-out thumbnail', async () => {
    const png = await encodeImage(bruisedPairScene().image, 'png');
    const res = await post(server, '/api-py/python/remove_background', alice.accessToken, {}, [['pair.png', png]]);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('image/png');
    const runId = res.headers.get('x-run-id');
    expect(runId).toMatch(/^[0-9a-f-]{36}$/);
    const run = (await api.get<StoredRun>(`/api-node/runs/${runId}`, alice.accessToken)).body;
    expect(run).toMatchObject({ operation: 'remove-background', item_count: 1, summary: { n: 1, fruits: 2 } });
    expect(run.items[0].result).toMatchObject({ filename: 'pair.png', fruits: 2 });
    expect(run.items[0].result.fruit_pixels).toBeGreaterThan(1000);
    expect(run.items[0].overlay_thumbnail).toMatch(/^data:image\/jpeg;base64,/);
    expect(run.items[0].photo_thumbnail).toBeNull();

    const job = await post(server, '/api-node/jobs', alice.accessToken, { operation: 'remove-background' }, [
      ['pair.png', png],
    ]);
    const end = await followJob(server.url, ((await job.json()) as { id: string }).id, alice.accessToken);
    const fromJob = (await api.get<StoredRun>(`/api-node/runs/${end.run_id}`, alice.accessToken)).body;
    expect(fromJob.items[0].result).toEqual(run.items[0].result);
    const csv = await text(`/api-node/runs/${end.run_id}/export?format=csv`);
    expect(csv.body.toString('utf8').trim().split(/\r?\n/)).toEqual([
      'image,fruits,fruit_pixels,error',
      `pair.png,2,${run.items[0].result.fruit_pixels},`,
    ]);
    expect((await api.del(`/api-node/runs/${end.run_id}`, alice.accessToken)).status).toBe(200);
    expect((await api.get(`/api-node/runs/${end.run_id}`, alice.accessToken)).status).toBe(404);
  });
});
