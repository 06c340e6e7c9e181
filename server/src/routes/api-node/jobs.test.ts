import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import JSZip from 'jszip';
import { silentLogger } from '@mango/core';
import { followJob, type JobProgress } from '@mango/core/jobs';
import { encodeImage } from '@mango/core/node';
import { bruisedPairScene } from '@mango/core/testing';
import { bruise } from '@mango/plugins';
import { loadConfig } from '../../config.ts';
import { startServer } from '../../server.ts';
import { startTestServer, TEST_DATABASES, type TestServer } from '../../testing/index.ts';
import { client, signUp, type Client, type SignedIn } from '../../testing/accounts.ts';

const classical = JSON.stringify({ method: 'classical' });

/** POSTs a job; files go as `images` unless `field` says otherwise. */
async function submit(
  url: string,
  token: string,
  files: [string, Uint8Array][],
  fields: Record<string, string> = { operation: 'bruise', options: classical },
  field = 'images',
) {
  const fd = new FormData();
  for (const [k, v] of Object.entries(fields)) fd.append(k, v);
  for (const [name, bytes] of files) fd.append(field, new Blob([bytes as BlobPart]), name);
  const res = await fetch(`${url}/api-node/jobs`, {
    method: 'POST',
    body: fd,
    headers: { Authorization: `Bearer ${token}` },
  });
  return { status: res.status, body: (await res.json()) as { id?: string; error?: string } };
}

describe.each(TEST_DATABASES)('batch jobs on %s', (database) => {
  let server: TestServer;
  let api: Client;
  let alice: SignedIn;
  let bob: SignedIn;
  let png: Uint8Array;
  beforeAll(async () => {
    server = await startTestServer({ workerThreads: 1 }, { database });
    api = client(server);
    alice = await signUp(api, 'Alice Farms');
    bob = await signUp(api, 'Bob Exports');
    png = await encodeImage(bruisedPairScene().image, 'png');
  });
  afterAll(() => server.close());

  it('answers { id } at once, streams progress, and stores every photo once, a bad one with its error', async () => {
    const files: [string, Uint8Array][] = Array.from({ length: 11 }, (_, i) => [`mango-${i}.png`, png]);
    files.splice(5, 0, ['broken.jpg', new TextEncoder().encode('not a photo')]);
    const sent = await submit(server.url, alice.accessToken, files);
    expect(sent.status).toBe(202);
    const id = sent.body.id!;
    expect(id).toMatch(/^[0-9a-f-]{36}$/);

    const seen: JobProgress[] = [];
    const end = await followJob(server.url, id, alice.accessToken, (p) => seen.push(p));
    expect(end).toMatchObject({ id, state: 'done', total: 12, done: 11, failed: 1 });
    expect(seen.length).toBeGreaterThanOrEqual(2);
    for (let i = 1; i < seen.length; i++)
      expect(seen[i].done + seen[i].failed).toBeGreaterThanOrEqual(seen[i - 1].done + seen[i - 1].failed);

    const got = await api.get<JobProgress>(`/api-node/jobs/${id}`, alice.accessToken);
    expect(got.body).toEqual(end);
    const run = await api.get<{
      item_count: number;
      operation: string;
      method_used: string;
      items: { position: number; filename: string; result: Record<string, unknown> }[];
    }>(`/api-node/runs/${end.run_id}`, alice.accessToken);
    expect(run.status).toBe(200);
    expect(run.body.operation).toBe('bruise');
    expect(run.body.method_used).toBe('classical');
    expect(run.body.item_count).toBe(12);
    expect(run.body.items.map((i) => i.position)).toEqual([...Array(12).keys()]);
    expect(run.body.items[5].filename).toBe('broken.jpg');
    expect(run.body.items[5].result.error).toMatch(/broken\.jpg/);
    expect(run.body.items[0].result.bruise_percent).toBeGreaterThan(1);
    expect(run.body.items[0].result.scale_status).toBe('none');

    // The failed photo is a row of the per-photo table (its error, its figures blank) and an
    // entry of the provenance with its error.
    const download = async (query: string) => {
      const r = await fetch(`${server.url}/api-node/runs/${end.run_id}/export?${query}`, {
        headers: { Authorization: `Bearer ${alice.accessToken}` },
      });
      expect(r.status).toBe(200);
      return r.text();
    };
    const lines = (await download('format=csv&table=images')).trim().split(/\r?\n/);
    expect(lines).toHaveLength(13);
    expect(lines[0].split(',').slice(-8)).toEqual([
      'scale_status',
      'scale_source',
      'quality',
      'error',
      'corrected',
      'model_fruit_pixels',
      'model_bruise_pixels',
      'model_bruise_percent',
    ]);
    expect(lines[6]).toMatch(/^broken\.jpg,(,){15}[^,]*broken\.jpg[^,]*,,,,$/);
    expect(lines[1]).toMatch(/^mango-0\.png,2,.*,none,,[^,]*,,false,\d+,\d+,[\d.]+$/);
    const provenance = JSON.parse(await download('format=provenance'));
    expect(provenance.inputs).toHaveLength(12);
    expect(provenance.inputs[5]).toMatchObject({ filename: 'broken.jpg', error: expect.stringMatching(/broken\.jpg/) });
    expect(provenance.inputs[0].error).toBeUndefined();
  });

  it('takes one zip of photos and a features job; an API key may call; others see 404', async () => {
    const zip = new JSZip();
    zip.file('crate/a.png', png);
    zip.file('crate/b.png', png);
    zip.file('__MACOSX/crate/._a.png', 'junk');
    zip.file('notes.txt', 'skip me');
    const bytes = await zip.generateAsync({ type: 'uint8array' });
    const key = await api.post<{ key: string }>(
      '/api-node/api-keys',
      { name: 'lab batch', kind: 'server', allowedOrigins: [], rateLimitPerMinute: 100 },
      alice.accessToken,
    );
    expect(key.status).toBe(201);
    const fields = { operation: 'features', options: JSON.stringify({ features: ['rgb', 'area'] }) };
    const sent = await submit(server.url, key.body.key, [['photos.zip', bytes]], fields, 'zip');
    expect(sent.status).toBe(202);
    const end = await followJob(server.url, sent.body.id!, key.body.key);
    expect(end).toMatchObject({ state: 'done', total: 2, done: 2, failed: 0 });
    const run = await api.get<{ operation: string; items: { filename: string; result: { features: object } }[] }>(
      `/api-node/runs/${end.run_id}`,
      key.body.key,
    );
    expect(run.body.operation).toBe('analyze');
    expect(run.body.items.map((i) => i.filename)).toEqual(['a.png', 'b.png']);
    expect(Object.keys(run.body.items[0].result.features).sort()).toEqual(['area', 'rgb']);

    expect((await api.get(`/api-node/jobs/${sent.body.id}`, bob.accessToken)).status).toBe(404);
    expect((await api.get(`/api-node/jobs/${sent.body.id}`)).status).toBe(401);
    const stream = await fetch(`${server.url}/api-node/jobs/${sent.body.id}/events?token=${alice.accessToken}`);
    expect(stream.status).toBe(401);

    // A browser key (the widget's, from a partner page) reaches neither jobs nor runs.
    const shop = 'https://shop.example';
    const browserKey = await api.post<{ key: string }>(
      '/api-node/api-keys',
      { name: 'widget', kind: 'browser', allowedOrigins: [shop], rateLimitPerMinute: 100 },
      alice.accessToken,
    );
    expect(browserKey.status).toBe(201);
    for (const path of [`/api-node/jobs/${sent.body.id}`, `/api-node/runs/${end.run_id}`, '/api-node/runs']) {
      const res = await api.call('GET', path, { token: browserKey.body.key, headers: { origin: shop } });
      expect(res.status).toBe(403);
    }
  });

  it('strict_quality in a job: a flagged photo is stored as failed with the reason, the others are scored', async () => {
    const q10 = await encodeImage(bruisedPairScene().image, 'jpeg', { quality: 10 });
    const sent = await submit(
      server.url,
      alice.accessToken,
      [
        ['pair.png', png],
        ['pair-q10.jpg', q10],
      ],
      { operation: 'bruise', options: JSON.stringify({ method: 'classical', strict_quality: true }) },
    );
    expect(sent.status).toBe(202);
    const end = await followJob(server.url, sent.body.id!, alice.accessToken, () => {});
    expect(end).toMatchObject({ state: 'done', total: 2, done: 1, failed: 1 });
    const run = await api.get<{ options: Record<string, unknown>; items: { result: Record<string, unknown> }[] }>(
      `/api-node/runs/${end.run_id}`,
      alice.accessToken,
    );
    expect(run.body.options).toMatchObject({ strictQuality: true });
    expect(run.body.items[0].result.quality).toEqual({ flags: [] });
    expect(run.body.items[1].result.error).toMatch(
      /^pair-q10\.jpg: refused by strict quality: heavy JPEG compression: the file was saved at quality 10 /,
    );
  });

  it('refuses a bad operation, bad options and no photos with 400', async () => {
    expect((await submit(server.url, alice.accessToken, [['a.png', png]], { operation: 'resize' })).status).toBe(400);
    const badOptions = await submit(server.url, alice.accessToken, [['a.png', png]], {
      operation: 'bruise',
      options: JSON.stringify({ method: 'magic' }),
    });
    expect(badOptions.status).toBe(400);
    expect(badOptions.body.error).toMatch(/options/);
    expect((await submit(server.url, alice.accessToken, [])).status).toBe(400);
  });

  it('checks the options by the plugin schema (400 with the reason) and stores the parsed options, not those sent', async () => {
    const refused = async (options: object) => {
      const sent = await submit(server.url, alice.accessToken, [['a.png', png]], {
        operation: 'bruise',
        options: JSON.stringify(options),
      });
      expect(sent.status).toBe(400);
      return sent.body.error!;
    };
    const tooLarge = await refused({ method: 'classical', pxPerCm: 1e308 });
    expect(tooLarge).toMatch(/pxPerCm/);
    expect(tooLarge).toMatch(/<=100000/);
    // the wire name is checked the same way, and named as it was sent
    const wireTooLarge = await refused({ method: 'classical', px_per_cm: 1e308 });
    expect(wireTooLarge).toMatch(/px_per_cm/);
    expect(wireTooLarge).toMatch(/<=100000/);
    // the two spellings of one option with different values
    expect(await refused({ px_per_cm: 40, pxPerCm: 41 })).toContain(
      '`px_per_cm` and `pxPerCm` are two spellings of one option with different values: send it once, as `px_per_cm`',
    );
    // not an option of the plugin by either spelling: refused rather than silently dropped
    expect(await refused({ method: 'classical', pixels_per_cm: 40 })).toMatch(/pixels_per_cm/);
    expect(await refused({ method: 'classical', notes: 'x'.repeat(60_000) })).toMatch(/notes/);
    const features = await submit(server.url, alice.accessToken, [['a.png', png]], {
      operation: 'features',
      options: JSON.stringify({ features: ['rgb'], maxSide: 1e9 }),
    });
    expect(features.status).toBe(400);
    expect(features.body.error).toMatch(/maxSide/);

    const sent = await submit(server.url, alice.accessToken, [['a.png', png]], {
      operation: 'bruise',
      options: JSON.stringify({ method: 'classical', pxPerCm: 40 }),
    });
    expect(sent.status).toBe(202);
    const parsed = bruise.options.parse({ method: 'classical', pxPerCm: 40 });
    // the defaults filled in: what the job runs with
    expect(parsed).toMatchObject({ method: 'classical', pxPerCm: 40, detectMaxSide: 640, overlayMaxSide: 1600 });
    const stored = await server.ctx.db
      .selectFrom('jobs')
      .select('options')
      .where('id', '=', sent.body.id!)
      .executeTakeFirstOrThrow();
    expect(JSON.parse(stored.options)).toEqual(parsed);
    const end = await followJob(server.url, sent.body.id!, alice.accessToken);
    expect(end.state).toBe('done');
    const results = await api.get<{ provenance: { options: object } }>(
      `/api-node/runs/${end.run_id}/export?format=json`,
      alice.accessToken,
    );
    expect(results.body.provenance.options).toEqual(parsed);
  });

  it('takes the options by wire name (px_per_cm) or by their earlier camelCase name (pxPerCm): the same stored options', async () => {
    const storedOptions = async (operation: string, options: object) => {
      const sent = await submit(server.url, alice.accessToken, [['a.png', png]], {
        operation,
        options: JSON.stringify(options),
      });
      expect(sent.status).toBe(202);
      const row = await server.ctx.db
        .selectFrom('jobs')
        .select('options')
        .where('id', '=', sent.body.id!)
        .executeTakeFirstOrThrow();
      await followJob(server.url, sent.body.id!, alice.accessToken);
      return JSON.parse(row.options) as Record<string, unknown>;
    };
    const wire = await storedOptions('bruise', {
      method: 'classical',
      px_per_cm: 40,
      reference_mm: 25,
      detect_max_side: 512,
    });
    const alias = await storedOptions('bruise', {
      method: 'classical',
      pxPerCm: 40,
      referenceMm: 25,
      detectMaxSide: 512,
    });
    expect(wire).toEqual(
      bruise.options.parse({ method: 'classical', pxPerCm: 40, referenceMm: 25, detectMaxSide: 512 }),
    );
    expect(alias).toEqual(wire);
    // both spellings with the same value: one option
    expect(
      await storedOptions('bruise', {
        method: 'classical',
        px_per_cm: 40,
        pxPerCm: 40,
        reference_mm: 25,
        detectMaxSide: 512,
      }),
    ).toEqual(wire);
    const features = await storedOptions('features', { features: ['rgb'], max_side: 256 });
    expect(features).toEqual({ features: ['rgb'], maxSide: 256 });
    expect(await storedOptions('features', { features: ['rgb'], maxSide: 256 })).toEqual(features);
    // per fruit (mango measure's analysis): the bruise options by their wire names too
    expect(
      await storedOptions('features', { features: ['area'], per_fruit: true, px_per_cm: 30, method: 'classical' }),
    ).toEqual({ features: ['area'], maxSide: 1024, perFruit: true, pxPerCm: 30, method: 'classical' });
  });

  it('DELETE cancels a job: no more photos are scored and its photos are deleted', async () => {
    const files: [string, Uint8Array][] = Array.from({ length: 40 }, (_, i) => [`m${i}.png`, png]);
    const sent = await submit(server.url, alice.accessToken, files);
    const cancelled = await api.del<JobProgress>(`/api-node/jobs/${sent.body.id}`, alice.accessToken);
    expect(cancelled.status).toBe(200);
    expect(cancelled.body.state).toBe('cancelled');
    const end = await followJob(server.url, sent.body.id!, alice.accessToken);
    expect(end.state).toBe('cancelled');
    expect(end.done + end.failed).toBeLessThan(40);
    const left = await server.ctx.db
      .selectFrom('job_files')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .where('job_id', '=', sent.body.id!)
      .executeTakeFirstOrThrow();
    expect(Number(left.n)).toBe(0);
  });
});

describe('batch jobs on SQLite survive a restart of the server', () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'mango-jobs-restart-'));
  afterAll(() => rmSync(dataDir, { recursive: true, force: true }));

  it('a job cut off by a restart goes on and every photo is stored once', async () => {
    const config = loadConfig({}, { port: 0, host: '127.0.0.1', dataDir, logRequests: false, workerThreads: 1 });
    const png = await encodeImage(bruisedPairScene().image, 'png');
    let server = await startServer(config, { logger: silentLogger });
    const alice = await signUp(client(server), 'Alice Farms');
    const files: [string, Uint8Array][] = Array.from({ length: 24 }, (_, i) => [`m${i}.png`, png]);
    const sent = await submit(server.url, alice.accessToken, files);
    expect(sent.status).toBe(202);
    // Stop once a few photos are in, while the rest wait.
    for (let p = await followUntil(server.url, sent.body.id!, alice.accessToken, 3); p.state !== 'running';) break;
    await server.close();
    const before = await countItems(dataDir, sent.body.id!);
    expect(before).toBeLessThan(24);

    server = await startServer(config, { logger: silentLogger });
    try {
      const end = await followJob(server.url, sent.body.id!, alice.accessToken);
      expect(end).toMatchObject({ state: 'done', total: 24, done: 24, failed: 0 });
      const items = await server.ctx.db
        .selectFrom('run_items')
        .select('position')
        .where('run_id', '=', end.run_id!)
        .orderBy('position')
        .execute();
      expect(items.map((i) => i.position)).toEqual([...Array(24).keys()]);
    } finally {
      await server.close();
    }
  });
});

/** Follows the job until at least `n` photos are in; answers that progress. */
async function followUntil(url: string, id: string, token: string, n: number): Promise<JobProgress> {
  const stop = new AbortController();
  let last: JobProgress | null = null;
  await followJob(
    url,
    id,
    token,
    (p) => {
      last = p;
      if (p.done + p.failed >= n) stop.abort();
    },
    stop.signal,
  ).catch(() => {});
  return last!;
}

async function countItems(dataDir: string, jobId: string): Promise<number> {
  const { openDatabase } = await import('../../db/index.ts');
  const opened = openDatabase({ dataDir });
  try {
    const job = await opened.db
      .selectFrom('jobs')
      .select(['done', 'failed'])
      .where('id', '=', jobId)
      .executeTakeFirstOrThrow();
    return job.done + job.failed;
  } finally {
    await opened.close();
  }
}

describe.each(TEST_DATABASES)('a job stored but never queued, on %s', (database) => {
  it('is reported as stuck and its photos are queued again, so it completes', async () => {
    const server = await startTestServer({ workerThreads: 1, jobStuckAfterMs: 1000 }, { database });
    try {
      const api = client(server);
      const alice = await signUp(api, 'Alice Farms');
      const user = await server.ctx.db
        .selectFrom('users')
        .select('id')
        .where('username', '=', alice.username)
        .executeTakeFirstOrThrow();
      const png = await encodeImage(bruisedPairScene().image, 'png');
      const uploads = [0, 1].map((i) => {
        const path = join(server.dataDir, `spooled-${i}`);
        writeFileSync(path, png);
        return { name: `m${i}.png`, path, size: png.length };
      });
      // As if the server had stopped right after storing the job, before handing it to the queue.
      const { createJob } = await import('../../jobs/store.ts');
      const { planRun } = await import('../../runs/service.ts');
      const id = await createJob(
        server.ctx.db,
        server.ctx.jobs.store,
        { userId: user.id, organization: 'Alice Farms' },
        { operation: 'bruise', ...planRun(server.ctx.registry, 'bruise', { method: 'classical' }) },
        uploads,
      );
      const end = await followJob(server.url, id, alice.accessToken);
      expect(end).toMatchObject({ state: 'done', total: 2, done: 2, failed: 0 });
    } finally {
      await server.close();
    }
  }, 60_000);
});
