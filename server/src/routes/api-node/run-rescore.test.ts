/**
 * Re-scoring a stored run with another model (issue 28 item 4), on SQLite and PostgreSQL, with the
 * server's real job worker and the shipped ONNX model: a second version is registered (the shipped
 * file under another id, as `mango train` would add one, not activated), a run of two real photos is
 * re-scored with it, and the new run has the same photos, records the version, links to the first
 * and, the model being the same network, has the same figures. The refusals: 404, 400, 409.
 */
import { decodeCocoRle } from '@mango/core';
import { randomUUID } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { followJob } from '@mango/core/jobs';
import { MODELS_DIR, readManifest } from '@mango/models';
import { startTestServer, TEST_DATABASES, type TestServer } from '../../testing/index.ts';
import { client, signUp, type Client, type SignedIn } from '../../testing/accounts.ts';
import { createJob, jobView } from '../../jobs/store.ts';
import { planRescore } from '../../runs/rescore.ts';

const shipped = readManifest(MODELS_DIR).models.find((m) => m.task === 'bruise-segmentation')!;
const shippedBytes = new Uint8Array(readFileSync(join(MODELS_DIR, shipped.file)));
const photos: [string, Uint8Array][] = ['sample-1.png', 'sample-2.png'].map((f) => [
  f,
  new Uint8Array(readFileSync(join(MODELS_DIR, 'fixtures', f))),
]);

interface Item {
  position: number;
  filename: string;
  sha256: string;
  photo_kept: boolean;
  result: { bruise_percent?: number; bruise_pixels?: number; model_id?: string; model_sha256?: string; error?: string };
}
interface Run {
  id: string;
  created_at: string;
  model_id: string | null;
  model_sha256: string | null;
  options: Record<string, unknown>;
  rescored_from: string | null;
  rescores: { id: string; model_id: string | null; model_sha256: string | null; created_at: string }[];
  items: Item[];
}

describe.each(TEST_DATABASES)('re-scoring a stored run on %s', (database) => {
  let server: TestServer;
  let api: Client;
  let alice: SignedIn;
  let bob: SignedIn;
  let original: Run;
  const copy = `bruise-copy-${randomUUID().slice(0, 8)}`;

  async function job(files: [string, Uint8Array][], options: Record<string, unknown> = {}): Promise<string> {
    const fd = new FormData();
    fd.append('operation', 'bruise');
    fd.append('options', JSON.stringify(options));
    for (const [name, bytes] of files) fd.append('images', new Blob([bytes as BlobPart]), name);
    const res = await fetch(`${server.url}/api-node/jobs`, {
      method: 'POST',
      body: fd,
      headers: { Authorization: `Bearer ${alice.accessToken}` },
    });
    expect(res.status).toBe(202);
    const { id } = (await res.json()) as { id: string };
    const end = await followJob(server.url, id, alice.accessToken);
    expect(end.state).toBe('done');
    return end.run_id!;
  }

  const getRun = async (id: string) => (await api.get<Run>(`/api-node/runs/${id}`, alice.accessToken)).body;
  const rescore = (id: string, body: unknown, token = alice.accessToken) =>
    api.post<{ id?: string; error?: string; details?: Record<string, unknown> }>(
      `/api-node/runs/${id}/rescore`,
      body,
      token,
    );

  beforeAll(async () => {
    server = await startTestServer({ workerThreads: 1 }, { database });
    api = client(server);
    alice = await signUp(api, 'Alice Farms');
    bob = await signUp(api, 'Bob Exports');
    // A second version of the bruise model in the server's registry (not activated: nothing else changes).
    await server.ctx.jobs.models.add({
      id: copy,
      entry: shipped,
      file: shippedBytes,
      base_id: shipped.id,
      card: null,
      evaluation: null,
      created_by: 'test',
    });
    // Two real photos and one that is no image (stored as failed, so not kept and not re-scored).
    original = await getRun(
      await job([photos[0], ['broken.jpg', new TextEncoder().encode('not a photo')], photos[1]], { grades: 'percent' }),
    );
    expect(original.model_id).toBe(shipped.id);
    expect(original.rescored_from).toBeNull();
    expect(original.rescores).toEqual([]);
  }, 240_000);
  afterAll(() => server?.close());

  it('re-scores the kept photos with the asked version into a new run linked to the first', async () => {
    const sent = await rescore(original.id, { model_id: copy });
    expect(sent.status).toBe(202);
    expect(Object.keys(sent.body)).toEqual(['id']);
    expect(sent.headers.get('location')).toBe(`/api-node/jobs/${sent.body.id}`);
    const end = await followJob(server.url, sent.body.id!, alice.accessToken);
    expect(end).toMatchObject({ state: 'done', total: 2, done: 2, failed: 0 });

    const again = await getRun(end.run_id!);
    expect(again.rescored_from).toBe(original.id);
    expect(again.model_id).toBe(copy);
    expect(again.model_sha256).toBe(shipped.sha256);
    // The run's own options (grades included), its scored photos in order, byte for byte.
    expect(again.options).toEqual(original.options);
    const scored = original.items.filter((i) => !i.result.error);
    expect(again.items.map((i) => [i.filename, i.sha256])).toEqual(scored.map((i) => [i.filename, i.sha256]));
    expect(again.items.every((i) => i.photo_kept)).toBe(true);
    for (const [k, item] of again.items.entries()) {
      expect(item.result.model_id).toBe(copy);
      // The same network: the same figures.
      expect(item.result.bruise_percent).toBe(scored[k].result.bruise_percent);
      expect(typeof item.result.bruise_percent).toBe('number');
    }
    // The new run's photos are its own: the original's photo and the new one are the same bytes.
    const a = await fetch(`${server.url}/api-node/runs/${again.id}/items/1/photo`, {
      headers: { Authorization: `Bearer ${alice.accessToken}` },
    });
    expect(new Uint8Array(await a.arrayBuffer())).toEqual(photos[1][1]);

    const first = await getRun(original.id);
    expect(first.rescores).toEqual([
      { id: again.id, model_id: copy, model_sha256: shipped.sha256, created_at: again.created_at },
    ]);
    // The list shows the link too.
    const list = await api.get<{ runs: { id: string; rescored_from: string | null }[] }>(
      '/api-node/runs',
      alice.accessToken,
    );
    expect(list.body.runs.find((r) => r.id === again.id)?.rescored_from).toBe(original.id);
    expect(list.body.runs.find((r) => r.id === original.id)?.rescored_from).toBeNull();
  }, 240_000);

  /** A re-scoring job of alice's run `runId` with `modelId`, made as the route makes it, not queued yet. */
  async function unqueuedRescore(runId: string, modelId: string) {
    const { ctx } = server;
    const user = await ctx.db
      .selectFrom('users')
      .select(['id', 'organization'])
      .where('username', '=', alice.username)
      .executeTakeFirstOrThrow();
    const deps = { db: ctx.db, registry: ctx.registry, models: ctx.jobs.models };
    const planned = await planRescore(deps, user.id, runId, modelId);
    expect(planned.job.models[0]).toBe(modelId);
    const owner = { userId: user.id, organization: user.organization };
    return createJob(ctx.db, ctx.jobs.store, owner, planned.job, planned.photos);
  }

  it("refers to the run's kept photos: the job holds no bytes of its own", async () => {
    const { ctx } = server;
    const id = await unqueuedRescore(original.id, copy);
    const files = await ctx.db
      .selectFrom('job_files')
      .select(['position', 'name', 'data', 'source_run_id', 'source_position'])
      .where('job_id', '=', id)
      .orderBy('position')
      .execute();
    // The scored photos (positions 0 and 2 of the first run; 1 could not be read), referenced.
    expect(files).toEqual([
      { position: 0, name: 'sample-1.png', data: null, source_run_id: original.id, source_position: 0 },
      { position: 1, name: 'sample-2.png', data: null, source_run_id: original.id, source_position: 2 },
    ]);
    expect(existsSync(join(server.dataDir, 'jobs', id))).toBe(false);
    // The worker reads them from the run's photo store.
    expect(await ctx.jobs.store.read(ctx.db, id, 1)).toEqual(photos[1][1]);
    const { run_id } = (await jobView(ctx.db, id))!;
    expect((await api.del(`/api-node/runs/${run_id}`, alice.accessToken)).status).toBe(200);
    expect((await jobView(ctx.db, id))?.state).toBe('cancelled');
  });

  it('scores with the version asked for: one that reads the photo once (no test-time augmentation) gives its own figures', async () => {
    const oneView = `bruise-one-view-${randomUUID().slice(0, 8)}`;
    await server.ctx.jobs.models.add({
      id: oneView,
      entry: { ...shipped, tta: ['identity'] },
      file: shippedBytes,
      base_id: shipped.id,
      card: null,
      evaluation: null,
      created_by: 'test',
    });
    const sent = await rescore(original.id, { model_id: oneView });
    expect(sent.status).toBe(202);
    const end = await followJob(server.url, sent.body.id!, alice.accessToken);
    const other = await getRun(end.run_id!);
    const before = original.items.filter((i) => !i.result.error).map((i) => i.result.bruise_percent!);
    const after = other.items.map((i) => i.result.bruise_percent!);
    expect(other.items.map((i) => i.result.model_id)).toEqual([oneView, oneView]);
    expect(after.every((v) => typeof v === 'number' && v >= 0 && v <= 100)).toBe(true);
    // Four views averaged against one: not the same figures.
    expect(after).not.toEqual(before);
    // The mask editor's start of a photo of this run is this run's model's (one view), not the model
    // in force (the shipped one, four views): the masks count what the run stored.
    const masks = (await (
      await fetch(`${server.url}/api-node/runs/${other.id}/items/0/model-masks`, {
        headers: { Authorization: `Bearer ${alice.accessToken}` },
      })
    ).json()) as { bruise: { size: [number, number]; counts: string }; model_id: string };
    expect(masks.model_id).toBe(oneView);
    const lesion = decodeCocoRle(masks.bruise).mask.reduce((a, v) => a + v, 0);
    expect(lesion).toBe(other.items[0].result.bruise_pixels);
    expect(lesion).not.toBe(original.items[0].result.bruise_pixels);
    // Not listed among the first run's re-scorings once deleted (the later checks count them).
    expect((await api.del(`/api-node/runs/${other.id}`, alice.accessToken)).status).toBe(200);
  }, 240_000);

  it('refuses an unknown model (listing the known ones), a run of another user or none (404), a run without a model (400)', async () => {
    const unknown = await rescore(original.id, { model_id: 'no-such-model' });
    expect(unknown.status).toBe(400);
    expect(unknown.body.error).toMatch(/^Unknown model_id no-such-model: the known models are /);
    expect(unknown.body.details?.known).toEqual(expect.arrayContaining([shipped.id, copy]));

    const theirs = await rescore(original.id, { model_id: copy }, bob.accessToken);
    const none = await rescore('no-such-run', { model_id: copy });
    expect(theirs.status).toBe(404);
    expect(none.status).toBe(404);
    expect(theirs.body).toEqual(none.body);
    expect(theirs.body).toEqual({ error: 'Run not found' });

    expect((await rescore(original.id, {})).status).toBe(400);
    expect((await api.post(`/api-node/runs/${original.id}/rescore`, { model_id: copy })).status).toBe(401);

    const classical = await job([photos[0]], { method: 'classical' });
    const noModel = await rescore(classical, { model_id: copy });
    expect(noModel.status).toBe(400);
    expect(noModel.body.error).toBe(
      'This bruise run used no model (method classical), so it cannot be re-scored with one',
    );
  }, 240_000);

  it('answers 409 for a run whose photos were not kept', async () => {
    const run = await job([photos[1]]);
    await server.ctx.db.deleteFrom('run_photos').where('run_id', '=', run).execute();
    const res = await rescore(run, { model_id: shipped.id });
    expect(res.status).toBe(409);
    expect(res.body.error).toMatch(/^The photos of this run were not kept \(1 of 1: /);
    expect(res.body.details).toEqual({ missing: ['sample-2.png'] });
  }, 240_000);

  it('with the same model the figures are the same; deleting either run leaves the other', async () => {
    const sent = await rescore(original.id, { model_id: shipped.id });
    expect(sent.status).toBe(202);
    const end = await followJob(server.url, sent.body.id!, alice.accessToken);
    const same = await getRun(end.run_id!);
    expect(same.model_id).toBe(shipped.id);
    const scored = original.items.filter((i) => !i.result.error);
    expect(same.items.map((i) => i.result.bruise_percent)).toEqual(scored.map((i) => i.result.bruise_percent));
    expect((await getRun(original.id)).rescores.map((r) => r.model_id)).toEqual([copy, shipped.id]);

    // Deleting the re-scoring: the first run loses it from its list, nothing else.
    expect((await api.del(`/api-node/runs/${same.id}`, alice.accessToken)).status).toBe(200);
    const first = await getRun(original.id);
    expect(first.rescores.map((r) => r.model_id)).toEqual([copy]);
    expect(first.items).toEqual(original.items);

    // Deleting the first: the re-scoring keeps its photos, figures and link.
    const kept = await getRun(first.rescores[0].id);
    expect((await api.del(`/api-node/runs/${original.id}`, alice.accessToken)).status).toBe(200);
    expect(await getRun(kept.id)).toEqual(kept);
    const photo = await fetch(`${server.url}/api-node/runs/${kept.id}/items/0/photo`, {
      headers: { Authorization: `Bearer ${alice.accessToken}` },
    });
    expect(photo.status).toBe(200);
    expect(new Uint8Array(await photo.arrayBuffer())).toEqual(photos[0][1]);
  }, 240_000);

  it('a re-scoring whose first run is deleted before its photos are read stores them as failed, with the reason', async () => {
    const first = await job([photos[0]]);
    const id = await unqueuedRescore(first, copy);
    expect((await api.del(`/api-node/runs/${first}`, alice.accessToken)).status).toBe(200);
    await server.ctx.jobs.queue.enqueue(id);
    const end = await followJob(server.url, id, alice.accessToken);
    expect(end).toMatchObject({ state: 'done', total: 1, done: 0, failed: 1 });
    const left = await getRun(end.run_id!);
    expect(left.rescored_from).toBe(first);
    expect(left.items[0].result.error).toBe(
      `sample-1.png: the photo is gone: run ${first}, whose kept photo it was, was deleted`,
    );
  }, 120_000);
});
