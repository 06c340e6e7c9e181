/**
 * `mango rescore --server URL --run ID --model MODEL_ID` against a real server (its job worker and the
 * shipped ONNX model): a run of two real photos scored by the shipped model is re-scored with a second
 * version (the same network reading each photo once, no test-time augmentation: other figures); the
 * command follows the job, prints the new run's id and both models' figures per photo with the
 * differences and their median, and writes them as JSON. Refusals: usage errors (2), an unknown
 * model or run (1, with the server's reason).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { execFile } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';
import { MODELS_DIR } from '@mango/models';
import {
  addOneViewBruiseModel,
  client,
  serverApiKey,
  shippedBruiseModel,
  signUp,
  startTestServer,
  type TestServer,
} from '@mango/server/testing';

const exec = promisify(execFile);
const BIN = resolve(import.meta.dirname, '../bin/mango.js');
const shipped = shippedBruiseModel();
const PHOTOS = ['sample-1.png', 'sample-2.png'];

interface Run {
  id: string;
  model_id: string | null;
  model_sha256: string | null;
  rescored_from: string | null;
  items: { filename: string; result: { bruise_percent: number } }[];
}

describe('mango rescore --server URL --run ID --model MODEL_ID', () => {
  let server: TestServer;
  let token = '';
  let key = '';
  let first: Run;
  let dir: string;
  const copy = `bruise-one-view-${randomUUID().slice(0, 8)}`;
  const mango = (args: string[], env: Record<string, string> = { MANGO_API_KEY: key }) =>
    exec(process.execPath, [BIN, 'rescore', ...args], { env: { ...process.env, ...env } }).then(
      (r) => ({ code: 0, stdout: r.stdout, stderr: r.stderr }),
      (e: { code: number; stdout: string; stderr: string }) => e,
    );
  const getRun = async (id: string) =>
    (await (
      await fetch(`${server.url}/api-node/runs/${id}`, { headers: { Authorization: `Bearer ${token}` } })
    ).json()) as Run;

  beforeAll(async () => {
    server = await startTestServer({ workerThreads: 1 });
    dir = mkdtempSync(join(tmpdir(), 'mango-rescore-'));
    const api = client(server);
    ({ accessToken: token } = await signUp(api, 'Lab'));
    key = await serverApiKey(api, token, 'cli');
    const fd = new FormData();
    for (const f of PHOTOS) fd.append('images', new Blob([readFileSync(join(MODELS_DIR, 'fixtures', f))]), f);
    const res = await fetch(`${server.url}/api-py/python/bruise_detection/DeepLearning`, {
      method: 'POST',
      body: fd,
      headers: { Authorization: `Bearer ${token}` },
    });
    expect(res.status).toBe(200);
    first = await getRun(((await res.json()) as { run_id: string }[])[0].run_id);
    expect(first.model_id).toBe(shipped.id);
    // A second version in the server's registry (not activated): one view of each photo.
    await addOneViewBruiseModel(server, copy);
  }, 120_000);
  afterAll(async () => {
    await server?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('re-scores the run, follows the job, prints the new run and both models per photo with the median difference', async () => {
    const out = join(dir, 'rescore.json');
    const r = await mango(['--server', server.url, '--run', first.id, '--model', copy, '--out', out]);
    expect(r.code, r.stderr).toBe(0);
    // The progress (stderr, not a terminal: a line as it moves) up to both photos done.
    expect(r.stderr).toContain(`re-scored with ${copy}`);
    expect(r.stderr).toMatch(/: 2\/2 \(0 failed\)/);

    const lines = r.stdout.trim().split('\n');
    const newId = /^new run: (\S+)$/.exec(lines[0])?.[1];
    expect(newId).toBeTruthy();
    const second = await getRun(newId!);
    expect(second.rescored_from).toBe(first.id);
    expect(second.model_id).toBe(copy);
    expect(lines[1]).toBe(`first model:  ${shipped.id} (sha256 ${shipped.sha256.slice(0, 8)}), run ${first.id}`);
    expect(lines[2]).toBe(`second model: ${copy} (sha256 ${shipped.sha256.slice(0, 8)}), run ${second.id}`);

    // Per photo: each model's figure as its run stores it, and the difference.
    const differences: number[] = [];
    for (const [k, name] of PHOTOS.entries()) {
      const a = first.items[k].result.bruise_percent;
      const b = second.items[k].result.bruise_percent;
      expect(second.items[k].filename).toBe(name);
      const d = b - a;
      differences.push(d);
      const row = lines
        .find((l) => l.startsWith(name))!
        .trim()
        .split(/\s+/);
      expect(row).toEqual([name, a.toFixed(2), b.toFixed(2), `${d > 0 ? '+' : ''}${d.toFixed(2)}`]);
    }
    // one view instead of the shipped model's several: other figures on at least one photo
    expect(differences.some((d) => Math.abs(d) > 0)).toBe(true);
    const median = (differences[0] + differences[1]) / 2;
    expect(r.stdout).toContain('photos in both: 2');
    expect(r.stdout).toContain(`median difference: ${median > 0 ? '+' : ''}${median.toFixed(2)} points`);

    const json = JSON.parse(readFileSync(out, 'utf8')) as {
      first: { run_id: string; model_id: string };
      second: { run_id: string; model_id: string };
      n: number;
      median_difference: number;
      photos: { filename: string; first: number; second: number; difference: number }[];
    };
    expect(json.first).toMatchObject({ run_id: first.id, model_id: shipped.id });
    expect(json.second).toMatchObject({ run_id: second.id, model_id: copy });
    expect(json.n).toBe(2);
    expect(json.median_difference).toBeCloseTo(median, 10);
    expect(json.photos.map((p) => [p.filename, p.first, p.second])).toEqual(
      PHOTOS.map((f, k) => [f, first.items[k].result.bruise_percent, second.items[k].result.bruise_percent]),
    );
  }, 180_000);

  it('refuses: no --model or no key (2), a model or run the server does not have (1, its reason)', async () => {
    const noModel = await mango(['--server', server.url, '--run', first.id]);
    expect(noModel.code).toBe(2);
    expect(noModel.stderr).toContain("required option '--model <id>' not specified");
    const noKey = await mango(['--server', server.url, '--run', first.id, '--model', copy], { MANGO_API_KEY: '' });
    expect(noKey.code).toBe(2);
    expect(noKey.stderr).toContain('--server needs --api-key KEY (or MANGO_API_KEY)');
    const badUrl = await mango(['--server', 'ftp://x', '--run', first.id, '--model', copy]);
    expect(badUrl.code).toBe(2);
    const unknownModel = await mango(['--server', server.url, '--run', first.id, '--model', 'no-such-model']);
    expect(unknownModel.code).toBe(1);
    expect(unknownModel.stderr).toMatch(/error: the server refused the re-scoring: 4\d\d: \S+/);
    const unknownRun = await mango(['--server', server.url, '--run', 'no-such-run', '--model', copy]);
    expect(unknownRun.code).toBe(1);
    expect(unknownRun.stderr).toContain('404: Run not found');
  }, 60_000);
});
