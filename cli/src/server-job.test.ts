import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { execFile } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';
import { encodeImage } from '@mango/core/node';
import { bruisedPairScene } from '@mango/core/testing';
import { ResultsFile } from '@mango/core/results';
import { client, signUp, startTestServer, type TestServer } from '@mango/server/testing';

const run = promisify(execFile);
const BIN = resolve(import.meta.dirname, '../bin/mango.js');

describe('mango bruise --server URL --api-key KEY DIR (a batch job on a real server)', () => {
  let server: TestServer;
  let dir: string;
  let key: string;
  beforeAll(async () => {
    server = await startTestServer({ workerThreads: 1 });
    dir = mkdtempSync(join(tmpdir(), 'mango-cli-server-'));
    mkdirSync(join(dir, 'crate'), { recursive: true });
    const png = await encodeImage(bruisedPairScene().image, 'png');
    for (let i = 0; i < 12; i++) writeFileSync(join(dir, 'crate', `m${String(i).padStart(2, '0')}.png`), png);
    writeFileSync(join(dir, 'crate', 'broken.jpg'), 'not a photo');
    const api = client(server);
    const { accessToken } = await signUp(api, 'Lab');
    const created = await api.post<{ key: string }>(
      '/api-node/api-keys',
      { name: 'cli', kind: 'server', allowedOrigins: [], rateLimitPerMinute: 100 },
      accessToken,
    );
    key = created.body.key;
  });
  afterAll(async () => {
    await server?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('submits the directory as one job, shows progress, writes the results file and lists the failed photo', async () => {
    const out = join(dir, 'results.json');
    const r = await run(process.execPath, [
      BIN,
      'bruise',
      '--server',
      server.url,
      '--api-key',
      key,
      '--method',
      'classical',
      '--px-per-cm',
      '40',
      '--out',
      out,
      join(dir, 'crate'),
    ]).then(
      () => ({ code: 0, stderr: '' }),
      (e: { code: number; stderr: string }) => e,
    );
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/job [0-9a-f-]{36}: 13 photo\(s\) sent/);
    expect(r.stderr).toMatch(/13\/13 \(1 failed\)/);
    expect(r.stderr).toMatch(/failed: broken\.jpg: /);
    const file = ResultsFile.parse(JSON.parse(readFileSync(out, 'utf8')));
    expect(file.photos).toHaveLength(12);
    expect(file.provenance.source).toBe('api');
    // --px-per-cm went as the jobs API's px_per_cm and was stored as the option pxPerCm
    expect(file.provenance.options).toMatchObject({ method: 'classical', pxPerCm: 40 });
    expect(file.photos.every((p) => (p.result as { bruise_percent: number }).bruise_percent > 1)).toBe(true);
  });

  it('refuses --server without a key (usage error, exit 2)', async () => {
    const r = await run(process.execPath, [BIN, 'bruise', '--server', server.url, join(dir, 'crate')], {
      env: { ...process.env, MANGO_API_KEY: '' },
    }).then(
      () => ({ code: 0, stderr: '' }),
      (e: { code: number; stderr: string }) => e,
    );
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/--api-key/);
  });
});

describe('answerError: a refused request says its status, reason and when to retry', () => {
  it('reads {error} and {detail} and Retry-After', async () => {
    const { answerError } = await import('./server-job.ts');
    const json = (body: unknown, status: number, headers: Record<string, string> = {}) =>
      new Response(JSON.stringify(body), { status, headers });
    expect(await answerError(json({ error: 'Too many queued photos' }, 429, { 'retry-after': '30' }))).toBe(
      '429: Too many queued photos; retry after 30 s',
    );
    expect(await answerError(json({ detail: 'big.png: file is larger than the limit of 25 MB' }, 413))).toBe(
      '413: big.png: file is larger than the limit of 25 MB',
    );
    expect(await answerError(new Response('<html>bad gateway</html>', { status: 502 }))).toBe(
      '502 <html>bad gateway</html>',
    );
  });
});
