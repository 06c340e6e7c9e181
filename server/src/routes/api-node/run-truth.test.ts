/**
 * The stored truth of a run's photo (issue 28 item 1): PUT /runs/{id}/items/{position}/truth saves
 * corrected masks as a new version, counted on the kept photo; the run then shows the corrected
 * figures (marked corrected) with the model's beside them, in its page and its CSV tables; GET
 * answers the latest masks; owner only (one 404); a photo not kept is refused. SQLite and PostgreSQL.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import Papa from 'papaparse';
import { encodeCocoRle, decodeCocoRle } from '@mango/core';
import { decodeImage, encodeImage } from '@mango/core/node';
import { bruisedPairScene } from '@mango/core/testing';
import { startTestServer, TEST_DATABASES, type TestServer } from '../../testing/index.ts';
import { client, signUp, type SignedIn } from '../../testing/accounts.ts';

interface Result {
  total_mango_pixels: number;
  bruise_pixels: number;
  bruise_percent: number;
  corrected?: boolean;
  model_fruit_pixels?: number;
  model_bruise_pixels?: number;
  model_bruise_percent?: number;
  fruits: { pixels: number; bruise_pixels: number; model_pixels?: number | null }[];
}
interface Item {
  position: number;
  result: Result;
  model_result?: Result;
  truth: { version: number; created_by: string; model_id: string | null; source: string } | null;
}

/** Masks of width x height: fruit in the rectangle `f`, bruise in `b` ([x, y, w, h]). */
function rectMasks(width: number, height: number, f: number[], b: number[]) {
  const fill = (r: number[]) => {
    const m = new Uint8Array(width * height);
    for (let y = r[1]; y < r[1] + r[3]; y++) for (let x = r[0]; x < r[0] + r[2]; x++) m[y * width + x] = 1;
    return m;
  };
  return { fruit: encodeCocoRle(fill(f), width, height), bruise: encodeCocoRle(fill(b), width, height) };
}

describe.each(TEST_DATABASES)('the truth of a run photo, on %s', (database) => {
  let server: TestServer;
  let noPhotos: TestServer;
  let alice: SignedIn;
  let bob: SignedIn;
  let png: Uint8Array;
  const scene = bruisedPairScene().image;

  const call = (s: TestServer, path: string, token: string, init: RequestInit = {}) =>
    fetch(s.url + path, { ...init, headers: { Authorization: `Bearer ${token}`, ...init.headers } });
  const put = (s: TestServer, path: string, token: string, body: unknown) =>
    call(s, path, token, {
      method: 'PUT',
      body: JSON.stringify(body),
      headers: { 'Content-Type': 'application/json' },
    });

  async function scoredRun(s: TestServer, token: string): Promise<string> {
    const fd = new FormData();
    fd.append('images', new Blob([png as BlobPart]), 'pair scene.png');
    const res = await call(s, '/api-py/python/bruise_detection/Classical', token, { method: 'POST', body: fd });
    expect(res.status).toBe(200);
    return ((await res.json()) as { run_id: string }[])[0].run_id;
  }

  beforeAll(async () => {
    server = await startTestServer({}, { database });
    noPhotos = await startTestServer({ keepRunPhotos: false }, { database });
    alice = await signUp(client(server), 'Alice Farms');
    bob = await signUp(client(server), 'Bob Farms');
    png = await encodeImage(scene, 'png');
  }, 60_000);
  afterAll(async () => {
    await server?.close();
    await noPhotos?.close();
  });

  it('saves versions, shows the corrected figures beside the model figures, in the run and its CSV', async () => {
    const runId = await scoredRun(server, alice.accessToken);
    const path = `/api-node/runs/${runId}/items/0/truth`;
    expect((await call(server, path, alice.accessToken)).status).toBe(404);
    const before = (
      (await (await call(server, `/api-node/runs/${runId}`, alice.accessToken)).json()) as { items: Item[] }
    ).items[0];
    expect(before.truth).toBeNull();
    const model = before.result;

    // One fruit of 40 x 30 px with a 10 x 6 lesion: 1200 fruit pixels, 60 bruised, 5 %.
    const masks = rectMasks(scene.width, scene.height, [80, 90, 40, 30], [90, 100, 10, 6]);
    const saved = await put(server, path, alice.accessToken, { ...masks, model_id: null });
    expect(saved.status).toBe(201);
    const body = (await saved.json()) as { version: number; source: string; created_by: string; result: Result };
    expect(body.version).toBe(1);
    expect(body.source).toBe('editor');
    expect(body.created_by).toBe(alice.username);
    expect(body.result.total_mango_pixels).toBe(1200);
    expect(body.result.bruise_pixels).toBe(60);
    expect(body.result.bruise_percent).toBe(5);
    expect(body.result.corrected).toBe(true);
    expect(body.result.model_fruit_pixels).toBe(model.total_mango_pixels);
    expect(body.result.model_bruise_percent).toBe(model.bruise_percent);

    const run = (await (await call(server, `/api-node/runs/${runId}`, alice.accessToken)).json()) as {
      items: Item[];
      summary: { mean_bruise_percent: number };
    };
    expect(run.items[0].result.bruise_percent).toBe(5);
    expect(run.items[0].model_result?.bruise_percent).toBe(model.bruise_percent);
    expect(run.items[0].truth?.version).toBe(1);
    expect(run.summary.mean_bruise_percent).toBe(5);

    // The masks come back as they were saved.
    const got = (await (await call(server, path, alice.accessToken)).json()) as {
      fruit: { size: [number, number]; counts: string };
      bruise: { size: [number, number]; counts: string };
      version: number;
    };
    expect(got.version).toBe(1);
    expect(got.fruit).toEqual(masks.fruit);
    expect(decodeCocoRle(got.bruise).mask.reduce((a, v) => a + v, 0)).toBe(60);

    // Both tables carry the figures in force, `corrected` and the model's.
    for (const table of ['images', 'fruits']) {
      const csv = await (await call(server, `/api-node/runs/${runId}/export?table=${table}`, alice.accessToken)).text();
      const rows = Papa.parse<Record<string, string>>(csv.trim(), { header: true }).data;
      expect(rows[0].corrected, table).toBe('true');
      expect(rows[0].fruit_pixels).toBe('1200');
      expect(rows[0].bruise_percent).toBe('5');
      if (table === 'images') {
        expect(rows[0].model_fruit_pixels).toBe(String(model.total_mango_pixels));
        expect(rows[0].model_bruise_percent).toBe(String(model.bruise_percent));
      } else {
        // The corrected fruit overlaps the model's first fruit (the scene's left fruit).
        expect(rows[0].model_fruit_pixels).toBe(String(model.fruits[0].pixels));
      }
    }

    // A second save is version 2; the first is kept.
    const second = rectMasks(scene.width, scene.height, [80, 90, 40, 30], [90, 100, 10, 3]);
    const v2 = await put(server, path, alice.accessToken, second);
    expect(v2.status).toBe(201);
    expect(((await v2.json()) as { version: number; result: Result }).version).toBe(2);
    const rows = await server.ctx.db.selectFrom('photo_truths').select('version').where('run_id', '=', runId).execute();
    expect(rows.map((r) => r.version).sort()).toEqual([1, 2]);
  });

  it("gives the model's masks of a kept photo, counting what the run stored, and 404 to another user", async () => {
    const runId = await scoredRun(server, alice.accessToken);
    const res = await call(server, `/api-node/runs/${runId}/items/0/model-masks`, alice.accessToken);
    expect(res.status).toBe(200);
    const masks = (await res.json()) as {
      model_id: string | null;
      fruit: { size: [number, number]; counts: string };
      bruise: { size: [number, number]; counts: string };
      probability?: string;
    };
    expect(masks.fruit.size).toEqual([scene.height, scene.width]);
    // The magic wand's ground: the lesion probability (a classical run: the colour distance from the
    // healthy peel) at the photo's size, high on the model's lesion, low on its healthy peel, 0 outside.
    expect(masks.probability).toMatch(/^data:image\/png;base64,/);
    const prob = await decodeImage(Buffer.from(masks.probability!.split(',')[1], 'base64'));
    expect([prob.width, prob.height]).toEqual([scene.width, scene.height]);
    const fruitMask = decodeCocoRle(masks.fruit).mask;
    const bruiseMask = decodeCocoRle(masks.bruise).mask;
    const mean = (keep: (i: number) => boolean) => {
      let sum = 0;
      let n = 0;
      for (let i = 0; i < fruitMask.length; i++)
        if (keep(i)) {
          sum += prob.data[i * 4];
          n++;
        }
      return sum / n;
    };
    const onLesion = mean((i) => bruiseMask[i] === 1);
    const onPeel = mean((i) => fruitMask[i] === 1 && bruiseMask[i] === 0);
    expect(onLesion, `lesion ${onLesion}, peel ${onPeel}`).toBeGreaterThan(2 * onPeel);
    expect(mean((i) => fruitMask[i] === 0)).toBe(0);
    const run = (await (await call(server, `/api-node/runs/${runId}`, alice.accessToken)).json()) as { items: Item[] };
    const sum = (m: Uint8Array) => m.reduce((a, v) => a + v, 0);
    expect(sum(decodeCocoRle(masks.fruit).mask)).toBe(run.items[0].result.total_mango_pixels);
    expect(sum(decodeCocoRle(masks.bruise).mask)).toBe(run.items[0].result.bruise_pixels);
    expect(run.items[0].result.bruise_pixels).toBeGreaterThan(0);
    // Saved back unchanged, they give the model's own figures.
    const saved = await put(server, `/api-node/runs/${runId}/items/0/truth`, alice.accessToken, masks);
    const result = ((await saved.json()) as { result: Result }).result;
    expect(result.total_mango_pixels).toBe(run.items[0].result.total_mango_pixels);
    expect(result.bruise_percent).toBe(run.items[0].result.bruise_percent);
    expect((await call(server, `/api-node/runs/${runId}/items/0/model-masks`, bob.accessToken)).status).toBe(404);
  });

  it('answers 404 to another user, 400 to masks of another size, 409 when the photo was not kept', async () => {
    const runId = await scoredRun(server, alice.accessToken);
    const path = `/api-node/runs/${runId}/items/0/truth`;
    const masks = rectMasks(scene.width, scene.height, [80, 90, 40, 30], [90, 100, 10, 6]);
    for (const res of [await call(server, path, bob.accessToken), await put(server, path, bob.accessToken, masks)])
      expect(res.status).toBe(404);
    expect((await put(server, `/api-node/runs/${runId}/items/7/truth`, alice.accessToken, masks)).status).toBe(404);
    const wrong = await put(server, path, alice.accessToken, rectMasks(20, 20, [0, 0, 5, 5], [1, 1, 2, 2]));
    expect(wrong.status).toBe(400);
    expect(((await wrong.json()) as { error: string }).error).toMatch(/masks are 20x20, the photo .* is \d+x\d+/);
    const broken = await put(server, path, alice.accessToken, { ...masks, bruise: { size: [3, 3], counts: [1, 2] } });
    expect(broken.status).toBe(400);

    const carol = await signUp(client(noPhotos), 'Carol Farms');
    const notKept = await scoredRun(noPhotos, carol.accessToken);
    const refused = await put(noPhotos, `/api-node/runs/${notKept}/items/0/truth`, carol.accessToken, masks);
    expect(refused.status).toBe(409);
    expect(((await refused.json()) as { error: string }).error).toMatch(/was not kept/);
  });
});
