/**
 * The run keeps its photos (issue 28) and its complete export (issue 27 item 6): each photo a
 * stored run scored is kept as it was uploaded (byte for byte), read by its owner only
 * (GET /runs/{id}/items/{position}/photo, one 404 for anything else), deleted with the run, and
 * none kept with KEEP_RUN_PHOTOS=0; export?format=zip&resolution=full scores the kept photos again
 * and zips the tables, the provenance, overlays at the photo's size and the two masks. On /api-py's
 * runs and on batch jobs' runs, on SQLite and (TEST_DATABASE_URL) PostgreSQL.
 */
import { createHash } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import JSZip from 'jszip';
import sharp from 'sharp';
import { followJob } from '@mango/core/jobs';
import { encodeImage } from '@mango/core/node';
import { bruisedPairScene } from '@mango/core/testing';
import { sharedDir, SHARED_MISSING } from '@mango/core/testing/node';
import { startTestServer, TEST_DATABASES, type TestServer } from '../../testing/index.ts';
import { client, signUp, type SignedIn } from '../../testing/accounts.ts';

interface Item {
  position: number;
  filename: string;
  sha256: string;
  width: number;
  height: number;
  photo_kept: boolean;
  result: { total_mango_pixels: number; bruise_pixels: number; fruits: unknown[] };
}

const shared = sharedDir();
/** A real tray photo, 1280x720 (decoded reduced for the analysis: the full overlay needs the full decode). */
const REAL = shared && join(shared, 'data/bruise-dev/aicup_defect_boxes/images/00595.jpg');
if (!REAL || !existsSync(REAL)) console.warn(`run-photos.test: the real photo is ${SHARED_MISSING}`);

const sha256 = (b: Uint8Array) => createHash('sha256').update(b).digest('hex');

/** The photos sent: a synthetic PNG, and the real photo when ../shared is there. */
async function photosToSend(): Promise<[string, Uint8Array][]> {
  const png = await encodeImage(bruisedPairScene().image, 'png');
  const photos: [string, Uint8Array][] = [['pair scene.png', png]];
  if (REAL && existsSync(REAL)) photos.push(['tray.jpg', new Uint8Array(readFileSync(REAL))]);
  return photos;
}

function form(fields: Record<string, string>, photos: [string, Uint8Array][]) {
  const fd = new FormData();
  for (const [k, v] of Object.entries(fields)) fd.append(k, v);
  for (const [name, bytes] of photos) fd.append('images', new Blob([bytes as BlobPart]), name);
  return fd;
}

/** This file's own job queue on PostgreSQL: its jobs are scored by its servers only. */
const QUEUE = { jobQueueSchema: 'pgboss_run_photos_test' };

describe.each(TEST_DATABASES)('the run keeps its photos, on %s', (database) => {
  let server: TestServer;
  let alice: SignedIn;
  let bob: SignedIn;
  let photos: [string, Uint8Array][];

  const get = (path: string, token = alice.accessToken) =>
    fetch(server.url + path, { headers: { Authorization: `Bearer ${token}` } });

  async function apiPyRun(): Promise<string> {
    const res = await fetch(`${server.url}/api-py/python/bruise_detection/Classical`, {
      method: 'POST',
      headers: { Authorization: `Bearer ${alice.accessToken}` },
      body: form({}, photos),
    });
    expect(res.status).toBe(200);
    const [{ run_id }] = (await res.json()) as { run_id: string }[];
    return run_id;
  }

  async function jobRun(): Promise<string> {
    const fields = { operation: 'bruise', options: '{"method":"classical"}' };
    const res = await fetch(`${server.url}/api-node/jobs`, {
      method: 'POST',
      headers: { Authorization: `Bearer ${alice.accessToken}` },
      body: form(fields, photos),
    });
    expect(res.status).toBe(202);
    const { id } = (await res.json()) as { id: string };
    const end = await followJob(server.url, id, alice.accessToken);
    expect(end.state).toBe('done');
    return end.run_id!;
  }

  const itemsOf = async (runId: string) =>
    ((await (await get(`/api-node/runs/${runId}`)).json()) as { items: Item[] }).items;

  /** Where the run's photos are: files (SQLite) or rows (PostgreSQL). */
  async function keptCount(runId: string): Promise<number> {
    const rows = await server.ctx.db.selectFrom('run_photos').select('position').where('run_id', '=', runId).execute();
    if (database === 'sqlite') {
      const files = rows.filter((r) => existsSync(join(server.dataDir, 'run-photos', runId, String(r.position))));
      expect(files.length).toBe(rows.length);
    }
    return rows.length;
  }

  beforeAll(async () => {
    server = await startTestServer(QUEUE, { database });
    const api = client(server);
    alice = await signUp(api, 'Alice Farms');
    bob = await signUp(api, 'Bob Farms');
    photos = await photosToSend();
  }, 60_000);
  afterAll(() => server?.close());

  it.each(['/api-py', 'a batch job'])(
    'keeps each photo of a run made by %s, byte for byte, for its owner only',
    async (by) => {
      const runId = by === '/api-py' ? await apiPyRun() : await jobRun();
      const items = await itemsOf(runId);
      expect(items.map((i) => i.photo_kept)).toEqual(photos.map(() => true));
      expect(await keptCount(runId)).toBe(photos.length);
      for (const [k, [, bytes]] of photos.entries()) {
        const res = await get(`/api-node/runs/${runId}/items/${k}/photo`);
        expect(res.status).toBe(200);
        expect(res.headers.get('content-type')).toBe(k === 0 ? 'image/png' : 'image/jpeg');
        const served = new Uint8Array(await res.arrayBuffer());
        expect(served.length).toBe(bytes.length);
        expect(sha256(served)).toBe(sha256(bytes));
        expect(sha256(served)).toBe(items[k].sha256);
      }
      // Another user's request, a position out of range and a malformed one: one answer.
      for (const [path, token] of [
        [`/api-node/runs/${runId}/items/0/photo`, bob.accessToken],
        [`/api-node/runs/${runId}/items/${photos.length}/photo`, alice.accessToken],
        [`/api-node/runs/${runId}/items/x/photo`, alice.accessToken],
        ['/api-node/runs/no-such-run/items/0/photo', alice.accessToken],
      ] as const) {
        const res = await get(path, token);
        expect(res.status, path).toBe(404);
        expect(await res.json()).toEqual({ error: 'Photo not found' });
      }
      expect((await get(`/api-node/runs/${runId}/items/0/photo`, 'not-a-token')).status).toBe(401);
    },
    120_000,
  );

  it('exports the run at full resolution: tables, provenance, overlays at the photo size and binary masks', async () => {
    const runId = await apiPyRun();
    const items = await itemsOf(runId);
    const res = await get(`/api-node/runs/${runId}/export?format=zip&resolution=full`);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('application/zip');
    expect(res.headers.get('content-disposition')).toBe(`attachment; filename="run-${runId}-full.zip"`);
    const zip = await JSZip.loadAsync(await res.arrayBuffer());
    const stems = ['pair scene', 'tray'].slice(0, photos.length);
    expect(
      Object.keys(zip.files)
        .filter((n) => !n.endsWith('/'))
        .sort(),
    ).toEqual(
      [
        'fruits.csv',
        'images.csv',
        'provenance.json',
        ...stems.flatMap((s) => [`overlays/${s}.overlay.jpg`, `masks/${s}.fruit.png`, `masks/${s}.bruise.png`]),
      ].sort(),
    );
    const provenance = JSON.parse(await zip.file('provenance.json')!.async('string')) as { run_id: string };
    expect(provenance.run_id).toBe(runId);
    const images = (await zip.file('images.csv')!.async('string')).trim().split('\n');
    expect(images.length).toBe(1 + photos.length);
    for (const [k, stem] of stems.entries()) {
      const item = items[k];
      const overlay = await zip.file(`overlays/${stem}.overlay.jpg`)!.async('uint8array');
      const meta = await sharp(overlay).metadata();
      expect([meta.format, meta.width, meta.height]).toEqual(['jpeg', item.width, item.height]);
      for (const [mask, stored] of [
        ['fruit', item.result.total_mango_pixels],
        ['bruise', item.result.bruise_pixels],
      ] as const) {
        const png = await zip.file(`masks/${stem}.${mask}.png`)!.async('uint8array');
        const meta = await sharp(png).metadata();
        expect([meta.format, meta.width, meta.height, meta.channels]).toEqual(['png', item.width, item.height, 1]);
        const { data } = await sharp(png).extractChannel(0).raw().toBuffer({ resolveWithObject: true });
        const values = new Set(data);
        expect(
          [...values].every((v) => v === 0 || v === 255),
          `${stem} ${mask} mask values`,
        ).toBe(true);
        // The photo scored again gives the stored figures: the masks count them.
        expect(
          data.reduce((n, v) => n + (v ? 1 : 0), 0),
          `${stem} ${mask} pixels`,
        ).toBe(stored);
      }
    }
    // The default is still the 256 px thumbnails.
    const thumbs = await JSZip.loadAsync(await (await get(`/api-node/runs/${runId}/export?format=zip`)).arrayBuffer());
    const small = await thumbs.file(`overlays/${stems[0]}.overlay.jpg`)!.async('uint8array');
    expect(
      Math.max((await sharp(small).metadata()).width!, (await sharp(small).metadata()).height!),
    ).toBeLessThanOrEqual(256);
    expect(Object.keys(thumbs.files).some((n) => n.startsWith('masks/'))).toBe(false);
  }, 120_000);

  it('deletes the kept photos with the run', async () => {
    const runId = await jobRun();
    expect(await keptCount(runId)).toBe(photos.length);
    const res = await fetch(`${server.url}/api-node/runs/${runId}`, {
      method: 'DELETE',
      headers: { Authorization: `Bearer ${alice.accessToken}` },
    });
    expect(res.status).toBe(200);
    expect(await keptCount(runId)).toBe(0);
    if (database === 'sqlite') expect(existsSync(join(server.dataDir, 'run-photos', runId))).toBe(false);
    expect((await get(`/api-node/runs/${runId}/items/0/photo`)).status).toBe(404);
  }, 120_000);

  it('refuses a full-resolution export of a run without its photos, with the reason', async () => {
    const runId = await apiPyRun();
    // As a run made before runs kept their photos.
    await server.ctx.db.deleteFrom('run_photos').where('run_id', '=', runId).execute();
    const items = await itemsOf(runId);
    expect(items.map((i) => i.photo_kept)).toEqual(photos.map(() => false));
    const res = await get(`/api-node/runs/${runId}/export?format=zip&resolution=full`);
    expect(res.status).toBe(409);
    const body = (await res.json()) as { error: string; details: { missing: string[] } };
    expect(body.error).toMatch(/photos of this run were not kept/);
    expect(body.details.missing).toEqual(items.map((i) => i.filename));
    expect((await get(`/api-node/runs/${runId}/export?format=zip`)).status).toBe(200);
    expect((await get(`/api-node/runs/${runId}/export?format=zip&resolution=huge`)).status).toBe(400);
  }, 120_000);
});

describe.each(TEST_DATABASES)('KEEP_RUN_PHOTOS=0 on %s', (database) => {
  let server: TestServer;
  let alice: SignedIn;

  beforeAll(async () => {
    server = await startTestServer({ ...QUEUE, keepRunPhotos: false }, { database });
    alice = await signUp(client(server), 'Alice Farms');
  }, 60_000);
  afterAll(() => server?.close());

  it('keeps no photo, by /api-py or by a batch job', async () => {
    const png = await encodeImage(bruisedPairScene().image, 'png');
    const auth = { Authorization: `Bearer ${alice.accessToken}` };
    const res = await fetch(`${server.url}/api-py/python/bruise_detection/Classical`, {
      method: 'POST',
      headers: auth,
      body: form({}, [['a.png', png]]),
    });
    const [{ run_id: apiPyRun }] = (await res.json()) as { run_id: string }[];
    const sent = await fetch(`${server.url}/api-node/jobs`, {
      method: 'POST',
      headers: auth,
      body: form({ operation: 'bruise', options: '{"method":"classical"}' }, [['b.png', png]]),
    });
    const end = await followJob(server.url, ((await sent.json()) as { id: string }).id, alice.accessToken);
    for (const runId of [apiPyRun, end.run_id!]) {
      const run = (await (await fetch(`${server.url}/api-node/runs/${runId}`, { headers: auth })).json()) as {
        items: Item[];
      };
      expect(run.items.map((i) => i.photo_kept)).toEqual([false]);
      expect((await fetch(`${server.url}/api-node/runs/${runId}/items/0/photo`, { headers: auth })).status).toBe(404);
      const full = await fetch(`${server.url}/api-node/runs/${runId}/export?format=zip&resolution=full`, {
        headers: auth,
      });
      expect(full.status).toBe(409);
    }
    const rows = await server.ctx.db
      .selectFrom('run_photos')
      .select('run_id')
      .where('run_id', 'in', [apiPyRun, end.run_id!])
      .execute();
    expect(rows).toEqual([]);
    if (database === 'sqlite') expect(existsSync(join(server.dataDir, 'run-photos'))).toBe(false);
  }, 120_000);
});
