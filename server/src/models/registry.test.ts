/**
 * The model registry (issue 28 item 4): versions kept with the deployment, the gate on held-out
 * figures, activation that reaches a running server's new photos within 10 s without a restart, a
 * batch job that keeps the model it was given, rollback, and GET /api-node/models.
 *
 * The server-wide test runs on SQLite (its own data directory): on the PostgreSQL database the
 * suite shares, activating a bruise model would change what every other test file scores. There the
 * registry is tested on a task of its own: the version's file is kept in the database and written
 * out, byte for byte, for onnxruntime to load.
 */
import { randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { followJob } from '@mango/core/jobs';
import { createEntriesLoader, MODELS_DIR, readManifest } from '@mango/models';
import { startTestServer, type TestServer } from '../testing/index.ts';
import { client, signUp, type Client, type SignedIn } from '../testing/accounts.ts';
import { openRegistry, type OpenedRegistry } from './open.ts';
import { CACHE_MS, gate, MIN_HELD_OUT, type Evaluation } from './registry.ts';

const shipped = readManifest(MODELS_DIR).models.find((m) => m.task === 'bruise-segmentation')!;
const shippedBytes = new Uint8Array(readFileSync(join(MODELS_DIR, shipped.file)));
const photo = readFileSync(join(MODELS_DIR, 'fixtures/sample-1.png'));

const evaluation = (held_out: number, p90: number, ccc: number, baseline = shipped.id): Evaluation => ({
  held_out,
  candidate: { error_p90: p90, ccc },
  baseline: { model_id: baseline, error_p90: 5, ccc: 0.9 },
});

describe('the activation gate', () => {
  it('refuses fewer than 10 held-out photos, a worse p90 or CCC, a stale baseline; passes no worse', () => {
    expect(gate(null, shipped.id)).toMatchObject({ passed: false, reason: 'it has no held-out evaluation' });
    expect(gate(evaluation(MIN_HELD_OUT - 1, 1, 0.99), shipped.id).reason).toBe(
      'too few held-out photos: 9 (at least 10 are needed)',
    );
    expect(gate(evaluation(12, 5.5, 0.95), shipped.id)).toMatchObject({
      passed: false,
      reason: `it is worse than ${shipped.id} on the held-out photos: lesion % error p90 5.5 > 5`,
    });
    expect(gate(evaluation(12, 4, 0.89), shipped.id).reason).toMatch(/CCC 0.89 < 0.9$/);
    expect(gate(evaluation(12, 4, 0.95, 'older'), shipped.id).reason).toBe(
      `it was evaluated against older, but ${shipped.id} is in force`,
    );
    expect(gate(evaluation(12, 5, 0.9), shipped.id)).toMatchObject({ passed: true, held_out: 12 });
  });
});

describe('a SQLite deployment: activation reaches a running server without a restart', () => {
  let server: TestServer;
  let api: Client;
  let alice: SignedIn;
  let operator: OpenedRegistry;
  const copy = `bruise-copy-${randomUUID().slice(0, 8)}`;

  beforeAll(async () => {
    server = await startTestServer({ workerThreads: 1 });
    api = client(server);
    alice = await signUp(api);
    // The operator's own connection to the deployment, as `mango models --data-dir` opens it.
    operator = await openRegistry({ dataDir: server.dataDir });
  });
  afterAll(async () => {
    await operator?.close();
    await server?.close();
  });

  async function score(): Promise<{ model_id: string; bruise_percent: number }> {
    const fd = new FormData();
    fd.append('images', new Blob([photo]), 'sample-1.png');
    const res = await fetch(`${server.url}/api-py/python/bruise_detection/DeepLearning`, {
      method: 'POST',
      body: fd,
      headers: { Authorization: `Bearer ${alice.accessToken}` },
    });
    expect(res.status).toBe(200);
    return ((await res.json()) as { model_id: string; bruise_percent: number }[])[0];
  }

  async function jobRun(): Promise<string> {
    const fd = new FormData();
    fd.append('operation', 'bruise');
    fd.append('images', new Blob([photo]), 'sample-1.png');
    const res = await fetch(`${server.url}/api-node/jobs`, {
      method: 'POST',
      body: fd,
      headers: { Authorization: `Bearer ${alice.accessToken}` },
    });
    expect(res.status).toBe(202);
    return ((await res.json()) as { id: string }).id;
  }

  async function runModel(jobId: string): Promise<string> {
    const job = await followJob(server.url, jobId, alice.accessToken);
    const run = await api.get<{ items: { result: { model_id: string } }[] }>(
      `/api-node/runs/${job.run_id}`,
      alice.accessToken,
    );
    return run.body.items[0].result.model_id;
  }

  it('lists the shipped model as built in and in force; signed-in users only', async () => {
    expect((await api.get('/api-node/models')).status).toBe(401);
    const res = await api.get<{ active: Record<string, string>; versions: { id: string; builtin: boolean }[] }>(
      '/api-node/models',
      alice.accessToken,
    );
    expect(res.status).toBe(200);
    expect(res.body.active).toEqual({ [shipped.task]: shipped.id });
    expect(res.body.versions).toContainEqual(expect.objectContaining({ id: shipped.id, builtin: true, active: true }));
    expect((await score()).model_id).toBe(shipped.id);
  });

  it('refuses a version without held-out figures, activates it with --force (recorded), within 10 s', async () => {
    await operator.registry.add({
      id: copy,
      entry: shipped,
      file: shippedBytes,
      base_id: shipped.id,
      card: '# a copy of the shipped model',
      evaluation: evaluation(4, 1, 0.99),
      created_by: 'test',
    });
    const refused = await operator.registry.activate(copy, 'test');
    expect(refused).toMatchObject({ passed: false, reason: 'too few held-out photos: 4 (at least 10 are needed)' });
    expect((await operator.registry.show(copy)).active).toBe(false);

    const before = await jobRun(); // made before the activation: keeps the shipped model
    const forced = await operator.registry.activate(copy, 'test', { force: true });
    expect(forced.passed).toBe(false);
    const [last] = await operator.registry.history(shipped.task);
    expect(last).toMatchObject({ model_id: copy, action: 'activate', forced: true, activated_by: 'test' });

    const t0 = Date.now();
    let seen = (await score()).model_id;
    while (seen !== copy && Date.now() - t0 < 12_000) {
      await new Promise((r) => setTimeout(r, 250));
      seen = (await score()).model_id;
    }
    expect(seen).toBe(copy);
    expect(Date.now() - t0).toBeLessThan(CACHE_MS + 5000);
    expect(await runModel(before)).toBe(shipped.id);
    expect(await runModel(await jobRun())).toBe(copy);

    const listed = await api.get<{ active: Record<string, string> }>('/api-node/models', alice.accessToken);
    expect(listed.body.active[shipped.task]).toBe(copy);
    // The widget's local mode is offered the version in force.
    const manifest = await api.get<{ models: { id: string }[] }>('/widget/models/manifest.json');
    expect(manifest.body.models.map((m) => m.id)).toEqual([copy]);
  });

  it('rolls back to the version in force before', async () => {
    expect(await operator.registry.rollback(shipped.task, 'test')).toEqual({ from: copy, to: shipped.id });
    await new Promise((r) => setTimeout(r, CACHE_MS + 200));
    expect((await score()).model_id).toBe(shipped.id);
  });
});

describe.skipIf(!process.env.TEST_DATABASE_URL)('a PostgreSQL deployment keeps version files in the database', () => {
  it('stores the file in its row and writes it out byte for byte for onnxruntime', async () => {
    const opened = await openRegistry({ databaseUrl: process.env.TEST_DATABASE_URL });
    try {
      // A task of its own: the shared test database's bruise model stays as it is for other files.
      const task = `registry-test-${randomUUID().slice(0, 8)}`;
      const id = `pg-${randomUUID().slice(0, 8)}`;
      await opened.registry.add({
        id,
        entry: { ...shipped, task },
        file: shippedBytes,
        base_id: null,
        card: null,
        evaluation: evaluation(12, 4, 0.95),
        created_by: 'test',
      });
      const verdict = await opened.registry.activate(id, 'test');
      expect(verdict.passed).toBe(true);
      const entries = (await opened.registry.inForce()).filter((m) => m.task === task);
      expect(entries.map((m) => m.id)).toEqual([id]);
      expect(new Uint8Array(readFileSync(entries[0].file))).toEqual(shippedBytes);
      const loaded = await createEntriesLoader(entries).load(id);
      expect(loaded.entry.sha256).toBe(shipped.sha256);
    } finally {
      await opened.close();
    }
  });
});
