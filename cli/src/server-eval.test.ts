/**
 * `mango eval bruise --run ID --server URL --api-key KEY` against a real server: a run with no
 * corrected photo is a usage error (2); once a photo's masks are corrected (PUT truth), the run's
 * model figures are scored against them and printed as `--truth` prints them.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { execFile } from 'node:child_process';
import { readFileSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';
import { decodeCocoRle, encodeCocoRle, type CocoRle } from '@mango/core';
import { encodeImage } from '@mango/core/node';
import { bruisedPairScene } from '@mango/core/testing';
import { client, signUp, startTestServer, type TestServer } from '@mango/server/testing';

const exec = promisify(execFile);
const BIN = resolve(import.meta.dirname, '../bin/mango.js');

const scene = bruisedPairScene().image;
const W = scene.width;
const H = scene.height;
const rects = (...rs: number[][]) => {
  const m = new Uint8Array(W * H);
  for (const r of rs)
    for (let y = r[1]; y < r[1] + r[3]; y++) for (let x = r[0]; x < r[0] + r[2]; x++) m[y * W + x] = 1;
  return m;
};
const iou = (a: Uint8Array, b: Uint8Array) => {
  let both = 0;
  let either = 0;
  for (let i = 0; i < a.length; i++) {
    both += a[i] & b[i];
    either += a[i] | b[i];
  }
  return either ? both / either : 1;
};

describe('mango eval bruise --run ID --server URL (a stored run against its corrections)', () => {
  let server: TestServer;
  let token: string;
  let key: string;
  let runId: string;
  let dir: string;
  const mango = (...args: string[]) =>
    exec(process.execPath, [BIN, 'eval', 'bruise', ...args], { env: { ...process.env, MANGO_API_KEY: key } }).then(
      (r) => ({ code: 0, stdout: r.stdout, stderr: r.stderr }),
      (e: { code: number; stdout: string; stderr: string }) => e,
    );

  beforeAll(async () => {
    server = await startTestServer({ workerThreads: 1 });
    dir = mkdtempSync(join(tmpdir(), 'mango-eval-run-'));
    const api = client(server);
    ({ accessToken: token } = await signUp(api, 'Lab'));
    key = (
      await api.post<{ key: string }>(
        '/api-node/api-keys',
        { name: 'cli', kind: 'server', allowedOrigins: [], rateLimitPerMinute: 100 },
        token,
      )
    ).body.key;
    const fd = new FormData();
    fd.append('images', new Blob([(await encodeImage(scene, 'png')) as BlobPart]), 'pair.png');
    fd.append('images', new Blob([(await encodeImage(scene, 'png')) as BlobPart]), 'second.png');
    const res = await fetch(`${server.url}/api-py/python/bruise_detection/Classical`, {
      method: 'POST',
      body: fd,
      headers: { Authorization: `Bearer ${token}` },
    });
    runId = ((await res.json()) as { run_id: string }[])[0].run_id;
  }, 60_000);
  afterAll(async () => {
    await server?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('refuses a run with no corrected photo (2), and an unknown run (1)', async () => {
    const none = await mango('--run', runId, '--server', server.url);
    expect(none.code).toBe(2);
    expect(none.stderr).toContain(`run ${runId} has no corrected photo`);
    const missing = await mango('--run', 'no-such-run', '--server', server.url);
    expect(missing.code).toBe(1);
    expect(missing.stderr).toContain('404: Run not found');
    const noServer = await mango('--run', runId);
    expect(noServer.code).toBe(2);
    expect(noServer.stderr).toContain('--run ID and --server URL go together');
  });

  it("scores the run's model masks against the corrected masks and prints the --truth evaluation", async () => {
    // The person draws the left fruit as a 160 x 120 box with a 20 x 16 lesion: 320 of 19,200 px.
    const fruit = rects([40, 60, 160, 120]);
    const bruise = rects([80, 100, 20, 16]);
    const put = await fetch(`${server.url}/api-node/runs/${runId}/items/0/truth`, {
      method: 'PUT',
      body: JSON.stringify({ fruit: encodeCocoRle(fruit, W, H), bruise: encodeCocoRle(bruise, W, H) }),
      headers: { Authorization: `Bearer ${token}`, 'Content-Type': 'application/json' },
    });
    expect(put.status).toBe(201);
    // What the printout must say, from the model's masks the server gives.
    const model = (await (
      await fetch(`${server.url}/api-node/runs/${runId}/items/0/model-masks`, {
        headers: { Authorization: `Bearer ${token}` },
      })
    ).json()) as { fruit: CocoRle; bruise: CocoRle };
    const mf = decodeCocoRle(model.fruit).mask;
    const mb = decodeCocoRle(model.bruise).mask;
    const sum = (m: Uint8Array) => m.reduce((a, v) => a + v, 0);
    const predicted = (100 * sum(mb)) / sum(mf);
    const truthPercent = (100 * 320) / 19200;
    const error = Math.abs(predicted - truthPercent);

    const out = join(dir, 'eval.json');
    const r = await mango('--run', runId, '--server', server.url, '--out', out);
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    expect(r.stdout).toContain(`run ${runId}: the model's figures against 1 corrected of 2 photo(s)`);
    expect(r.stdout).toContain('pixel truth (coco): 1 images');
    expect(r.stdout).toMatch(new RegExp(`fruit IoU median \\(min\\)\\s+${iou(mf, fruit).toFixed(3)}`));
    expect(r.stdout).toMatch(new RegExp(`bruise IoU median \\(images with bruise\\)\\s+${iou(mb, bruise).toFixed(3)}`));
    expect(r.stdout).toMatch(
      new RegExp(
        `\\|bruise_percent error\\| median / p90 / max\\s+${error.toFixed(2)} / ${error.toFixed(2)} / ${error.toFixed(2)}`,
      ),
    );
    expect(r.stdout).toContain("Lin's concordance");
    const ev = JSON.parse(readFileSync(out, 'utf8')) as {
      method: string;
      pixel: { images: number; fruit_iou_median: number };
    };
    expect(ev.method).toBe('classical');
    expect(ev.pixel.images).toBe(1);
    expect(ev.pixel.fruit_iou_median).toBeCloseTo(iou(mf, fruit), 3);
    // The model found the scene's fruit: a real overlap, not a trivial one.
    expect(ev.pixel.fruit_iou_median).toBeGreaterThan(0.2);
    expect(ev.pixel.fruit_iou_median).toBeLessThan(1);
  }, 60_000);
});
