/**
 * A batch job sent as the web app sends one (issue 24 item 2): the bruise page's options with its
 * grades, and `keep_overlays=true`. The run's items are graded like /api-py's answer for the same
 * photos, and each keeps its overlay at the size /api-py answers it (not the 256 px thumbnail), read
 * from GET /runs/{id}/items/{position}/overlay by its owner only and deleted with the run.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import sharp from 'sharp';
import { followJob } from '@mango/core/jobs';
import { encodeImage } from '@mango/core/node';
import { bruisedPairScene } from '@mango/core/testing';
import { THUMBNAIL_MAX_SIDE } from '@mango/core/results';
import { startTestServer, TEST_DATABASES, type TestServer } from '../../testing/index.ts';
import { client, signUp, type Client, type SignedIn } from '../../testing/accounts.ts';

/** The bruise page's options for a batch: its scale fields and grades (no method: the default, as /api-py's DeepLearning). */
const WEB_OPTIONS = JSON.stringify({ grades: 'percent' });

interface Fruit {
  bruise_percent: number;
  grade?: string | null;
}
interface Figures {
  filename: string;
  bruise_percent: number;
  total_mango_pixels: number;
  grades?: string;
  fruits: Fruit[];
}
interface Run {
  items: { position: number; result: Figures; overlay_thumbnail: string | null; full_overlay: boolean }[];
}

async function sizeOf(bytes: Uint8Array) {
  const { width, height, format } = await sharp(bytes).metadata();
  return { width, height, format };
}

describe.each(TEST_DATABASES)('full-size overlays of a web batch job on %s', (database) => {
  let server: TestServer;
  let api: Client;
  let alice: SignedIn;
  let bob: SignedIn;
  let photos: [string, Uint8Array][];

  async function submitJob(token: string, fields: Record<string, string>) {
    const fd = new FormData();
    for (const [k, v] of Object.entries(fields)) fd.append(k, v);
    for (const [name, bytes] of photos) fd.append('images', new Blob([bytes as BlobPart]), name);
    const res = await fetch(`${server.url}/api-node/jobs`, {
      method: 'POST',
      body: fd,
      headers: { Authorization: `Bearer ${token}` },
    });
    return { status: res.status, body: (await res.json()) as { id?: string; error?: string } };
  }

  async function jobRun(fields: Record<string, string>) {
    const sent = await submitJob(alice.accessToken, fields);
    expect(sent.status, sent.body.error).toBe(202);
    const end = await followJob(server.url, sent.body.id!, alice.accessToken);
    expect(end).toMatchObject({ state: 'done', done: photos.length, failed: 0 });
    const run = await api.get<Run>(`/api-node/runs/${end.run_id}`, alice.accessToken);
    expect(run.status).toBe(200);
    return { id: end.run_id!, run: run.body };
  }

  const overlay = (runId: string, position: number | string, token?: string) =>
    fetch(`${server.url}/api-node/runs/${runId}/items/${position}/overlay`, {
      headers: token ? { Authorization: `Bearer ${token}` } : {},
    });

  beforeAll(async () => {
    server = await startTestServer({ workerThreads: 1 }, { database });
    api = client(server);
    alice = await signUp(api, 'Alice Farms');
    bob = await signUp(api, 'Bob Exports');
    // Photos larger than the overlay's 1600 px cap, as a camera takes them.
    const scene = await encodeImage(bruisedPairScene().image, 'png');
    photos = [
      ['crate-a.jpg', new Uint8Array(await sharp(scene).resize(1920).jpeg({ quality: 90 }).toBuffer())],
      ['crate-b.jpg', new Uint8Array(await sharp(scene).resize(1200).jpeg({ quality: 90 }).toBuffer())],
    ];
  });
  afterAll(() => server.close());

  it('grades the fruit and keeps the overlay /api-py answers for the same photo, for its owner only', async () => {
    const { id, run } = await jobRun({ operation: 'bruise', options: WEB_OPTIONS, keep_overlays: 'true' });

    const fd = new FormData();
    for (const [name, bytes] of photos) fd.append('images', new Blob([bytes as BlobPart]), name);
    fd.append('grades', 'percent');
    const res = await fetch(`${server.url}/api-py/python/bruise_detection/DeepLearning`, {
      method: 'POST',
      body: fd,
      headers: { Authorization: `Bearer ${alice.accessToken}` },
    });
    expect(res.status).toBe(200);
    const answer = (await res.json()) as (Figures & { overlay_img: string })[];

    expect(run.items).toHaveLength(photos.length);
    for (const [i, item] of run.items.entries()) {
      const single = answer[i];
      // the same figures and the same grades, fruit by fruit
      expect(item.result).toMatchObject({
        filename: single.filename,
        bruise_percent: single.bruise_percent,
        total_mango_pixels: single.total_mango_pixels,
        grades: 'percent',
      });
      expect(item.result.fruits.length).toBeGreaterThan(0);
      expect(item.result.fruits.map((f) => f.grade)).toEqual(single.fruits.map((f) => f.grade));
      expect(item.result.fruits.every((f) => typeof f.grade === 'string')).toBe(true);
      expect(item.full_overlay).toBe(true);

      const got = await overlay(id, item.position, alice.accessToken);
      expect(got.status).toBe(200);
      expect(got.headers.get('content-type')).toBe('image/jpeg');
      const bytes = new Uint8Array(await got.arrayBuffer());
      const fromApiPy = new Uint8Array(
        Buffer.from(single.overlay_img.replace(/^data:image\/jpeg;base64,/, ''), 'base64'),
      );
      // the overlay /api-py answers, byte for byte, at its size, not the run's thumbnail
      expect(await sizeOf(bytes)).toEqual(await sizeOf(fromApiPy));
      expect(bytes).toEqual(fromApiPy);
      const thumbnail = await sizeOf(Buffer.from(item.overlay_thumbnail!.split(',')[1], 'base64'));
      expect(Math.max(thumbnail.width!, thumbnail.height!)).toBe(THUMBNAIL_MAX_SIDE);
    }
    // the plugin's working size (its detection side), the 1920 px photo's 2:1 kept
    const first = await sizeOf(new Uint8Array(await (await overlay(id, 0, alice.accessToken)).arrayBuffer()));
    expect(first.width).toBeGreaterThan(THUMBNAIL_MAX_SIDE);
    expect(first.width).toBe(first.height! * 2);

    // Another user's run answers exactly as a missing one; no token is a 401.
    const missing = await overlay('00000000-0000-4000-8000-000000000000', 0, alice.accessToken);
    const others = await overlay(id, 0, bob.accessToken);
    expect(others.status).toBe(404);
    expect(missing.status).toBe(404);
    expect(await others.json()).toEqual(await missing.json());
    expect((await overlay(id, photos.length, alice.accessToken)).status).toBe(404);
    expect((await overlay(id, 'first', alice.accessToken)).status).toBe(404);
    expect((await overlay(id, 0)).status).toBe(401);

    // Deleted with its run.
    expect((await api.del(`/api-node/runs/${id}`, alice.accessToken)).status).toBe(200);
    expect((await overlay(id, 0, alice.accessToken)).status).toBe(404);
    const left = await server.ctx.db
      .selectFrom('run_items')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .where('run_id', '=', id)
      .executeTakeFirstOrThrow();
    expect(Number(left.n)).toBe(0);
  });

  it('keeps the full overlay of a run an /api-py call stored, byte for byte as the call answered it', async () => {
    const fd = new FormData();
    for (const [name, bytes] of photos) fd.append('images', new Blob([bytes as BlobPart]), name);
    const res = await fetch(`${server.url}/api-py/python/bruise_detection/Classical`, {
      method: 'POST',
      body: fd,
      headers: { Authorization: `Bearer ${alice.accessToken}` },
    });
    expect(res.status).toBe(200);
    const answer = (await res.json()) as (Figures & { overlay_img: string; run_id: string })[];
    const runId = answer[0].run_id;
    expect(runId).toMatch(/^[0-9a-f-]{36}$/);
    const run = await api.get<Run>(`/api-node/runs/${runId}`, alice.accessToken);
    expect(run.status).toBe(200);
    expect(run.body.items.map((i) => i.full_overlay)).toEqual([true, true]);
    for (const [i, single] of answer.entries()) {
      const got = await overlay(runId, i, alice.accessToken);
      expect(got.status).toBe(200);
      expect(got.headers.get('content-type')).toBe('image/jpeg');
      const fromApiPy = new Uint8Array(Buffer.from(single.overlay_img.split(',')[1], 'base64'));
      expect(fromApiPy.length).toBeGreaterThan(1000);
      expect(new Uint8Array(await got.arrayBuffer())).toEqual(fromApiPy);
    }
    expect((await overlay(runId, 0, bob.accessToken)).status).toBe(404);

    // remove_background: the stored overlay is the PNG the call answered
    const one = new FormData();
    one.append('image', new Blob([photos[1][1] as BlobPart]), photos[1][0]);
    const removed = await fetch(`${server.url}/api-py/python/remove_background`, {
      method: 'POST',
      body: one,
      headers: { Authorization: `Bearer ${alice.accessToken}` },
    });
    expect(removed.status).toBe(200);
    const png = new Uint8Array(await removed.arrayBuffer());
    const removedRun = removed.headers.get('x-run-id');
    expect(removedRun).toMatch(/^[0-9a-f-]{36}$/);
    const kept = await overlay(removedRun!, 0, alice.accessToken);
    expect(kept.status).toBe(200);
    expect(kept.headers.get('content-type')).toBe('image/png');
    const keptBytes = new Uint8Array(await kept.arrayBuffer());
    expect(await sizeOf(keptBytes)).toEqual({ ...(await sizeOf(png)), format: 'png' });
    expect(keptBytes).toEqual(png);
  });

  it('keeps no full overlay unless asked, and refuses keep_overlays where there is none or it is not a boolean', async () => {
    const { id, run } = await jobRun({ operation: 'bruise', options: WEB_OPTIONS });
    expect(run.items.map((i) => i.full_overlay)).toEqual([false, false]);
    expect((await overlay(id, 0, alice.accessToken)).status).toBe(404);
    const stored = await server.ctx.db
      .selectFrom('run_items')
      .select(['overlay_image', 'overlay_image_type'])
      .where('run_id', '=', id)
      .execute();
    expect(stored.every((r) => r.overlay_image === null && r.overlay_image_type === null)).toBe(true);

    const features = await submitJob(alice.accessToken, {
      operation: 'features',
      options: JSON.stringify({ features: ['rgb'] }),
      keep_overlays: 'true',
    });
    expect(features).toEqual({
      status: 400,
      body: { error: 'field `keep_overlays`: a features job has no overlay to keep' },
    });
    const notBoolean = await submitJob(alice.accessToken, { operation: 'bruise', keep_overlays: 'yes' });
    expect(notBoolean).toEqual({ status: 400, body: { error: 'field `keep_overlays` must be true or false' } });
  });
});
