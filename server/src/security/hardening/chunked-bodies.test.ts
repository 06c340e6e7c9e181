/**
 * Issue 23, "memory exhaustion before sign-in": a body sent with `Transfer-Encoding: chunked` (no
 * Content-Length) was copied whole into memory by the body-size middleware before the route checked
 * credentials (up to MAX_REQUEST_MB on /api-py, MAX_JOB_MB on POST /api-node/jobs: 900 MB took the
 * server from 804 to 4,112 MB and /healthz to 1.7 s, and only then came the 401). Now credentials
 * come first and a chunked body is counted as it streams: a 300 MB chunked upload without
 * credentials is answered 401 after at most the bounded discard of its rest (REFUSED_BODY_READ_MB,
 * 64 MB), the server's RSS grows by less than 100 MB and /healthz answers within 200 ms meanwhile.
 * The server runs in its own process so that its RSS is measured apart from the test's. Then, on a
 * server in this process: chunked bodies past their limit are stopped with 413 as they stream, and
 * those within it reach the route intact.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { request } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startTestServer, TEST_DATABASES, type TestServer } from '../../testing/index.ts';
import { client, newUser, signUp, type SignedIn } from '../../testing/accounts.ts';
import { mangoPng, multipart, rssMb, startHealthProbe, startServerProcess, streamChunked } from './helpers.ts';

const MB = 1024 * 1024;
const SENT_MB = 300;

describe('issue 23: chunked bodies without credentials', () => {
  let dataDir: string;
  let server: { url: string; child: ChildProcess };
  beforeAll(async () => {
    dataDir = mkdtempSync(join(tmpdir(), 'mango-chunked-'));
    // The defaults that matter here: MAX_JOB_MB 10,240, MAX_REQUEST_MB 200, REFUSED_BODY_READ_MB 64.
    server = await startServerProcess(dataDir);
    // Warm up (first requests load and compile code), so that the RSS measured below is the upload's.
    for (let i = 0; i < 5; i++) await (await fetch(`${server.url}/healthz`)).text();
    for (const path of ['/api-node/jobs', '/api-py/python/analyze'])
      await streamChunked(`${server.url}${path}`, 2 * MB, {});
  });
  afterAll(async () => {
    if (server?.child.exitCode === null) {
      const exited = new Promise((r) => server.child.once('exit', r));
      server.child.kill('SIGTERM');
      await exited;
    }
    rmSync(dataDir, { recursive: true, force: true });
  });

  it.each([
    ['/api-node/jobs', 'error'],
    ['/api-py/python/analyze', 'detail'],
  ])(`a ${SENT_MB} MB chunked body to %s: 401 {%s}, RSS up < 100 MB, /healthz within 200 ms`, async (path, key) => {
    const pid = server.child.pid!;
    const rssStart = rssMb(pid);
    let rssPeak = rssStart;
    const rssTimer = setInterval(() => (rssPeak = Math.max(rssPeak, rssMb(pid))), 20);
    const probe = startHealthProbe(server.url);
    let answer: Awaited<ReturnType<typeof streamChunked>>;
    let health: Awaited<ReturnType<typeof probe.stop>>;
    try {
      await new Promise((r) => setTimeout(r, 200));
      answer = await streamChunked(`${server.url}${path}`, SENT_MB * MB, {});
      // Probes while the server discards the rest of the refused body and after.
      await new Promise((r) => setTimeout(r, 300));
    } finally {
      health = await probe.stop();
      clearInterval(rssTimer);
    }
    rssPeak = Math.max(rssPeak, rssMb(pid));

    const maxLatency = Math.max(...health.latencies);
    console.log(
      JSON.stringify({
        path,
        status: answer.status,
        sentBeforeAnswerMb: +(answer.sentBeforeAnswer / MB).toFixed(1),
        answeredAfterMs: Math.round(answer.answeredAfterMs),
        serverRssMb: { start: Math.round(rssStart), peak: Math.round(rssPeak), growth: Math.round(rssPeak - rssStart) },
        healthz: { probes: health.latencies.length, failures: health.failures.length, maxMs: +maxLatency.toFixed(1) },
      }),
    );
    expect(answer.status).toBe(401);
    expect(JSON.parse(answer.body)[key]).toMatch(/Not authenticated|Authentication required/);
    // Answered before the body was read: at most the discarded 64 MB and what the sockets hold.
    expect(answer.sentBeforeAnswer).toBeLessThan(100 * MB);
    expect(rssPeak - rssStart).toBeLessThan(100);
    expect(health.failures).toEqual([]);
    expect(health.latencies.length).toBeGreaterThan(3);
    expect(maxLatency).toBeLessThan(200);
    expect(server.child.exitCode).toBeNull();
  });
});

/** POSTs `body` with `Transfer-Encoding: chunked` (no Content-Length), in 16 KB writes. */
function postChunked(url: string, body: Uint8Array, headers: Record<string, string>) {
  return new Promise<{ status: number; body: unknown }>((resolve, reject) => {
    let answered = false;
    const req = request(url, { method: 'POST', headers });
    req.on('response', (res) => {
      answered = true;
      let text = '';
      res.on('data', (d: Buffer) => (text += d.toString()));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body: JSON.parse(text) as unknown }));
    });
    req.on('error', (e) => {
      if (!answered) reject(e);
    });
    for (let at = 0; at < body.length; at += 16 * 1024) req.write(body.subarray(at, at + 16 * 1024));
    req.end();
  });
}

describe.each(TEST_DATABASES)('issue 23: chunked bodies counted as they stream, on %s', (database) => {
  let server: TestServer;
  let alice: SignedIn;
  beforeAll(async () => {
    server = await startTestServer({ maxRequestBytes: 1 * MB, maxJobBytes: 2 * MB }, { database });
    alice = await signUp(client(server));
  });
  afterAll(() => server.close());
  const auth = () => ({ authorization: `Bearer ${alice.accessToken}` });

  it('stops a signed-in upload past MAX_REQUEST_MB (/api-py) or MAX_JOB_MB (jobs) with 413, spooling nothing left', async () => {
    const py = await streamChunked(`${server.url}/api-py/python/analyze`, 5 * MB, auth());
    expect(py.status).toBe(413);
    expect(JSON.parse(py.body)).toEqual({ detail: 'Request body too large' });
    const job = await streamChunked(`${server.url}/api-node/jobs`, 5 * MB, auth());
    expect(job.status).toBe(413);
    expect(JSON.parse(job.body)).toEqual({ error: 'Request body too large' });
    // The client was answered after its body was read and discarded (within REFUSED_BODY_READ_MB).
    const uploadDir = server.ctx.config.uploadDir;
    expect(existsSync(uploadDir) ? readdirSync(uploadDir) : []).toEqual([]);
  });

  it('answers a chunked JSON body over 64 KB with 413, not as bad JSON', async () => {
    const body = new TextEncoder().encode(JSON.stringify({ ...newUser(), organization: 'x'.repeat(100 * 1024) }));
    const res = await postChunked(`${server.url}/api-node/register`, body, { 'content-type': 'application/json' });
    expect(res).toEqual({ status: 413, body: { error: 'Request body too large' } });
  });

  it('passes chunked bodies within the limit to the route intact', async () => {
    const user = newUser();
    const registered = await postChunked(
      `${server.url}/api-node/register`,
      new TextEncoder().encode(JSON.stringify(user)),
      { 'content-type': 'application/json' },
    );
    expect(registered.status).toBe(201);
    const { body, contentType } = multipart([
      { name: 'images', filename: 'fruit.png', bytes: await mangoPng() },
      { name: 'features', value: JSON.stringify(['rgb']) },
    ]);
    const analyzed = await postChunked(`${server.url}/api-py/python/analyze`, body, {
      ...auth(),
      'content-type': contentType,
    });
    expect(analyzed.status).toBe(200);
    expect(analyzed.body).toMatchObject([{ image_name: 'fruit.png' }]);
  });
});
