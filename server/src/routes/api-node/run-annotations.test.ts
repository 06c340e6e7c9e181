/**
 * Truth as data (issue 28 item 2): GET /runs/{id}/annotations exports the corrected photos of a run
 * as COCO (RLE, `fruit` per fruit and `bruise`), POST imports COCO, a CVAT "Segmentation mask 1.1"
 * zip and Label Studio JSON onto the run's photos by file name, each match a new truth version;
 * what matched nothing, or has another size than its photo, is listed with the reason. The
 * exported COCO re-imports to the same masks (IoU 1.0). Owner only. SQLite and PostgreSQL.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import JSZip from 'jszip';
import { decodeCocoRle, encodeCocoRle, exportStems, type CocoRle } from '@mango/core';
import { decodeImage, encodeImage } from '@mango/core/node';
import { bruisedPairScene, fruitScene } from '@mango/core/testing';
import { cvatZip, startTestServer, TEST_DATABASES, type TestServer } from '../../testing/index.ts';
import { client, signUp, type SignedIn } from '../../testing/accounts.ts';

interface Coco {
  images: { id: number; file_name: string; width: number; height: number }[];
  annotations: { image_id: number; category_id: number; segmentation: CocoRle; attributes: { fruit: number } }[];
  categories: { id: number; name: string }[];
}
interface Imported {
  source: string;
  matched: { filename: string; position: number; version: number }[];
  unmatched: { name: string; reason: string }[];
}
interface Truth {
  version: number;
  source: string;
  created_by: string;
  fruit: CocoRle;
  bruise: CocoRle;
}

const scene = bruisedPairScene().image;
const W = scene.width;
const H = scene.height;

/** A 0/1 mask of W x H with the rectangles [x, y, w, h] set. */
function rects(...rs: number[][]): Uint8Array {
  const m = new Uint8Array(W * H);
  for (const r of rs)
    for (let y = r[1]; y < r[1] + r[3]; y++) for (let x = r[0]; x < r[0] + r[2]; x++) m[y * W + x] = 1;
  return m;
}
/** Two fruits (left 60 x 50, right 50 x 40) and a lesion of 12 x 8 on the left one. */
const FRUIT = rects([40, 60, 60, 50], [300, 80, 50, 40]);
const BRUISE = rects([50, 70, 12, 8]);

const count = (m: Uint8Array) => m.reduce((a, v) => a + v, 0);
function iou(a: Uint8Array, b: Uint8Array): number {
  let both = 0;
  let either = 0;
  for (let i = 0; i < a.length; i++) {
    if (a[i] && b[i]) both++;
    if (a[i] || b[i]) either++;
  }
  return either ? both / either : 1;
}

describe.each(TEST_DATABASES)('a run photo truth as COCO, CVAT and Label Studio files, on %s', (database) => {
  let server: TestServer;
  let alice: SignedIn;
  let bob: SignedIn;
  let png: Uint8Array;
  let small: Uint8Array;

  const call = (path: string, token: string, init: RequestInit = {}) =>
    fetch(server.url + path, { ...init, headers: { Authorization: `Bearer ${token}`, ...init.headers } });
  const post = (runId: string, body: BodyInit, type: string, token = alice.accessToken) =>
    call(`/api-node/runs/${runId}/annotations`, token, { method: 'POST', body, headers: { 'Content-Type': type } });
  const truthOf = async (runId: string, position: number) => {
    const res = await call(`/api-node/runs/${runId}/items/${position}/truth`, alice.accessToken);
    expect(res.status).toBe(200);
    const t = (await res.json()) as Truth;
    return { ...t, fruitMask: decodeCocoRle(t.fruit).mask, bruiseMask: decodeCocoRle(t.bruise).mask };
  };

  /** A run of alice's of the scene (`pair scene.png`, W x H) and a 160 x 120 photo of one fruit (`small.png`). */
  async function scoredRun(): Promise<string> {
    const fd = new FormData();
    fd.append('images', new Blob([png as BlobPart]), 'pair scene.png');
    fd.append('images', new Blob([small as BlobPart]), 'small.png');
    const res = await call('/api-py/python/bruise_detection/Classical', alice.accessToken, {
      method: 'POST',
      body: fd,
    });
    expect(res.status).toBe(200);
    return ((await res.json()) as { run_id: string }[])[0].run_id;
  }

  beforeAll(async () => {
    server = await startTestServer({}, { database });
    alice = await signUp(client(server), 'Alice Farms');
    bob = await signUp(client(server), 'Bob Farms');
    png = await encodeImage(scene, 'png');
    small = await encodeImage(
      fruitScene({
        width: 160,
        height: 120,
        background: [200, 200, 205],
        seed: 5,
        fruits: [{ cx: 80, cy: 60, rx: 50, ry: 40, peel: [235, 170, 40], shade: () => 1 }],
      }).image,
      'png',
    );
  }, 60_000);
  afterAll(() => server?.close());

  it('exports the corrected photo as COCO, per fruit, and re-imports it to the same masks (IoU 1.0)', async () => {
    const runId = await scoredRun();
    const empty = (await (await call(`/api-node/runs/${runId}/annotations`, alice.accessToken)).json()) as Coco;
    expect(empty.images).toEqual([]);

    const saved = await call(`/api-node/runs/${runId}/items/0/truth`, alice.accessToken, {
      method: 'PUT',
      body: JSON.stringify({ fruit: encodeCocoRle(FRUIT, W, H), bruise: encodeCocoRle(BRUISE, W, H) }),
      headers: { 'Content-Type': 'application/json' },
    });
    expect(saved.status).toBe(201);

    const res = await call(`/api-node/runs/${runId}/annotations?format=coco`, alice.accessToken);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-disposition')).toBe(`attachment; filename="run-${runId}.coco.json"`);
    const coco = (await res.json()) as Coco;
    // Only the corrected photo, under its file name; fruit and bruise as `mango bruise --export-coco` writes them.
    expect(coco.images).toEqual([{ id: 1, file_name: 'pair scene.png', width: W, height: H }]);
    expect(coco.categories.map((c) => c.name)).toEqual(['fruit', 'bruise']);
    const fruits = coco.annotations.filter((a) => a.category_id === 1);
    const bruises = coco.annotations.filter((a) => a.category_id === 2);
    expect(fruits.map((a) => count(decodeCocoRle(a.segmentation).mask)).sort((a, b) => a - b)).toEqual([2000, 3000]);
    expect(bruises).toHaveLength(1);
    expect(bruises[0].attributes.fruit).toBe(
      fruits.find((f) => count(decodeCocoRle(f.segmentation).mask) === 3000)!.attributes.fruit,
    );
    const union = new Uint8Array(W * H);
    for (const f of fruits) decodeCocoRle(f.segmentation).mask.forEach((v, i) => (union[i] |= v));
    expect(iou(union, FRUIT)).toBe(1);
    expect(iou(decodeCocoRle(bruises[0].segmentation).mask, BRUISE)).toBe(1);

    // Imported back onto the same run: version 2, from import:coco, the same masks.
    const back = await post(runId, JSON.stringify(coco), 'application/json');
    expect(back.status).toBe(200);
    const imported = (await back.json()) as Imported;
    expect(imported).toEqual({
      source: 'import:coco',
      matched: [{ filename: 'pair scene.png', position: 0, version: 2 }],
      unmatched: [],
    });
    const truth = await truthOf(runId, 0);
    expect(truth.version).toBe(2);
    expect(truth.source).toBe('import:coco');
    expect(truth.created_by).toBe(alice.username);
    expect(iou(truth.fruitMask, FRUIT)).toBe(1);
    expect(iou(truth.bruiseMask, BRUISE)).toBe(1);
    expect(count(truth.fruitMask)).toBe(5000);
    expect(count(truth.bruiseMask)).toBe(96);
    // The run's figures in force follow: 96 of 5000 px.
    const run = (await (await call(`/api-node/runs/${runId}`, alice.accessToken)).json()) as {
      items: { result: { bruise_percent: number; corrected?: boolean } }[];
    };
    expect(run.items[0].result.corrected).toBe(true);
    expect(run.items[0].result.bruise_percent).toBeCloseTo(1.92, 2);
  });

  it('imports a CVAT "Segmentation mask 1.1" zip by file stem; a mask file of no photo is unmatched', async () => {
    const runId = await scoredRun();
    const empty = new Uint8Array(8 * 8);
    const bytes = await cvatZip([
      { stem: 'pair scene', width: W, height: H, fruit: FRUIT, bruise: BRUISE },
      { stem: 'nowhere', width: 8, height: 8, fruit: empty, bruise: empty },
    ]);

    const res = await post(runId, bytes as BlobPart as Blob, 'application/zip');
    expect(res.status).toBe(200);
    expect((await res.json()) as Imported).toEqual({
      source: 'import:cvat',
      matched: [{ filename: 'pair scene.png', position: 0, version: 1 }],
      unmatched: [{ name: 'SegmentationClass/nowhere.png', reason: 'no photo of the run has this file name' }],
    });
    const truth = await truthOf(runId, 0);
    expect(truth.source).toBe('import:cvat');
    expect(iou(truth.fruitMask, FRUIT)).toBe(1);
    expect(iou(truth.bruiseMask, BRUISE)).toBe(1);
  });

  it('imports Label Studio JSON (upload prefix, polygons in percent); another size than the photo is unmatched with the reason', async () => {
    const runId = await scoredRun();
    /** a rectangle [x, y, w, h] of an image of iw x ih as a Label Studio polygon result */
    const polygon = (label: string, r: number[], iw = W, ih = H) => ({
      type: 'polygonlabels',
      original_width: iw,
      original_height: ih,
      value: {
        points: [
          [r[0], r[1]],
          [r[0] + r[2], r[1]],
          [r[0] + r[2], r[1] + r[3]],
          [r[0], r[1] + r[3]],
        ].map(([x, y]) => [(x / iw) * 100, (y / ih) * 100]),
        polygonlabels: [label],
      },
    });
    const tasks = [
      {
        data: { image: '/data/upload/3/1a2b3c4d-pair%20scene.png' },
        annotations: [
          {
            result: [
              polygon('fruit', [40, 60, 60, 50]),
              polygon('Mango', [300, 80, 50, 40]),
              polygon('bruise', [50, 70, 12, 8]),
            ],
          },
        ],
      },
      // drawn on a copy of the scene: not the 160 x 120 photo it names
      { data: { image: '/data/upload/3/small.png' }, annotations: [{ result: [polygon('fruit', [4, 4, 10, 10])] }] },
      {
        data: { image: '/data/upload/3/elsewhere.jpg' },
        annotations: [{ result: [polygon('fruit', [4, 4, 10, 10])] }],
      },
    ];
    const res = await post(runId, JSON.stringify(tasks), 'application/json');
    expect(res.status).toBe(200);
    const body = (await res.json()) as Imported;
    expect(body.source).toBe('import:labelstudio');
    expect(body.matched).toEqual([{ filename: 'pair scene.png', position: 0, version: 1 }]);
    expect(body.unmatched).toEqual([
      { name: 'small.png', reason: `the masks are ${W}x${H}, the photo small.png is 160x120` },
      { name: 'elsewhere.jpg', reason: 'no photo of the run has this file name' },
    ]);
    const truth = await truthOf(runId, 0);
    expect(truth.source).toBe('import:labelstudio');
    expect(iou(truth.fruitMask, FRUIT)).toBe(1);
    expect(iou(truth.bruiseMask, BRUISE)).toBe(1);
    expect((await call(`/api-node/runs/${runId}/items/1/truth`, alice.accessToken)).status).toBe(404);
  });

  it("exports the masks in force of a corrected photo in the zips (the model's beside them at full resolution) and marks it in the report", async () => {
    const runId = await scoredRun();
    const put = await call(`/api-node/runs/${runId}/items/0/truth`, alice.accessToken, {
      method: 'PUT',
      body: JSON.stringify({ fruit: encodeCocoRle(FRUIT, W, H), bruise: encodeCocoRle(BRUISE, W, H) }),
      headers: { 'Content-Type': 'application/json' },
    });
    expect(put.status).toBe(201);
    const run = (await (await call(`/api-node/runs/${runId}`, alice.accessToken)).json()) as {
      items: { result: { model_fruit_pixels: number; model_bruise_percent: number; bruise_percent: number } }[];
    };
    const model = run.items[0].result;
    const [pair, smallStem] = exportStems(['pair scene.png', 'small.png']);
    const maskOf = async (zip: JSZip, name: string) => {
      const file = zip.file(`masks/${name}`);
      expect(file, name).not.toBeNull();
      const img = await decodeImage(await file!.async('uint8array'));
      expect([img.width, img.height]).toEqual([W, H]);
      return Uint8Array.from({ length: W * H }, (_, i) => (img.data[i * 4] >= 128 ? 1 : 0));
    };
    const zipOf = async (query: string) => {
      const res = await call(`/api-node/runs/${runId}/export?format=zip${query}`, alice.accessToken);
      expect(res.status).toBe(200);
      return JSZip.loadAsync(new Uint8Array(await res.arrayBuffer()));
    };

    // The 256 px zip: the corrected photo's masks from its truth; the other photo has none.
    const thumbs = await zipOf('');
    expect(iou(await maskOf(thumbs, `${pair}.fruit.png`), FRUIT)).toBe(1);
    expect(iou(await maskOf(thumbs, `${pair}.bruise.png`), BRUISE)).toBe(1);
    expect(
      Object.keys(thumbs.files)
        .filter((n) => n.startsWith('masks/') && !n.endsWith('/'))
        .sort(),
    ).toEqual([`masks/${pair}.bruise.png`, `masks/${pair}.fruit.png`]);

    // Full resolution: the masks in force under the usual names, the model's as .model.*.png.
    const full = await zipOf('&resolution=full');
    expect(iou(await maskOf(full, `${pair}.fruit.png`), FRUIT)).toBe(1);
    expect(iou(await maskOf(full, `${pair}.bruise.png`), BRUISE)).toBe(1);
    expect(count(await maskOf(full, `${pair}.model.fruit.png`))).toBe(model.model_fruit_pixels);
    expect(full.file(`masks/${pair}.model.bruise.png`)).not.toBeNull();
    expect(full.file(`masks/${smallStem}.fruit.png`)).not.toBeNull();
    expect(full.file(`masks/${smallStem}.model.fruit.png`)).toBeNull();

    // The report marks the corrected photo, the model's figure beside it.
    const html = await (await call(`/api-node/runs/${runId}/export?format=html`, alice.accessToken)).text();
    const row = html.split('<tr>').find((r) => r.startsWith('<td>pair scene.png</td>'))!;
    expect(row).toContain(
      `${model.bruise_percent.toFixed(2)} <span class="corrected">corrected</span> <span class="model">(model: ${model.model_bruise_percent.toFixed(2)} %)</span>`,
    );
    const smallRow = html.split('<tr>').find((r) => r.startsWith('<td>small.png</td>'))!;
    expect(smallRow).not.toContain('corrected');
  }, 60_000);

  it("answers 404 for another user's run, and a clear refusal of what is not an annotation file", async () => {
    const runId = await scoredRun();
    const coco = JSON.stringify({ images: [], annotations: [], categories: [{ id: 1, name: 'fruit' }] });
    const missing = '00000000-0000-4000-8000-000000000000';
    for (const id of [runId, missing]) {
      const token = id === runId ? bob.accessToken : alice.accessToken;
      const got = await call(`/api-node/runs/${id}/annotations`, token);
      expect(got.status).toBe(404);
      expect(await got.json()).toEqual({ error: 'Run not found' });
      const sent = await post(id, coco, 'application/json', token);
      expect(sent.status).toBe(404);
      expect(await sent.json()).toEqual({ error: 'Run not found' });
    }
    const plain = await post(runId, coco, 'text/plain');
    expect(plain.status).toBe(415);
    expect(((await plain.json()) as { error: string }).error).toMatch(/application\/json .* or application\/zip/);
    const other = await post(runId, JSON.stringify({ hello: 'world' }), 'application/json');
    expect(other.status).toBe(400);
    expect(((await other.json()) as { error: string }).error).toMatch(
      /neither a COCO file .* nor a Label Studio export/,
    );
    const notZip = await post(runId, 'PK but not a zip', 'application/zip');
    expect(notZip.status).toBe(400);
    expect(((await notZip.json()) as { error: string }).error).toMatch(/neither JSON nor a zip/);
    const noLabels = new JSZip();
    noLabels.file('photo.png', png);
    const zipRes = await post(
      runId,
      (await noLabels.generateAsync({ type: 'uint8array' })) as BlobPart as Blob,
      'application/zip',
    );
    expect(zipRes.status).toBe(400);
    expect(((await zipRes.json()) as { error: string }).error).toMatch(
      /not a truth folder .*CVAT "Segmentation mask 1.1"/,
    );
    const badQuery = await call(`/api-node/runs/${runId}/annotations?format=cvat`, alice.accessToken);
    expect(badQuery.status).toBe(400);
    // A kind of run without masks (a feature analysis) has no annotations: 409 with the reason.
    const fd = new FormData();
    fd.append('images', new Blob([png as BlobPart]), 'pair scene.png');
    fd.append('features', '["rgb"]');
    const analysed = await call('/api-py/python/analyze', alice.accessToken, { method: 'POST', body: fd });
    expect(analysed.status).toBe(200);
    const analysisRun = ((await analysed.json()) as { run_id: string }[])[0].run_id;
    const none = await call(`/api-node/runs/${analysisRun}/annotations`, alice.accessToken);
    expect(none.status).toBe(409);
    expect(await none.json()).toEqual({ error: 'a analyze run has no annotations' });
  });
});
