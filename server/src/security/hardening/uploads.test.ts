/**
 * Issue 16 items 2 and 3, through real HTTP: uploads are streamed and stopped at the per-file limit,
 * uploads per caller are limited, and the CPU a request can cost is bounded (side length and aspect
 * ratio, files per request, a bounded worker queue answering 503 with Retry-After, a per-photo time
 * limit, a per-user rate limit).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { pngHeader } from '@mango/core/testing';
import { loadConfig } from '../../config.ts';
import { startTestServer, type TestServer } from '../../testing/index.ts';
import { client, signUp } from '../../testing/accounts.ts';
import { healthzLatency, mangoPng, postMultipart, streamUpload } from './helpers.ts';
import { FEATURE_IDS } from '@mango/plugin-features/names';

const MB = 1024 * 1024;
const bearer = (token: string) => ({ authorization: `Bearer ${token}` });
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Every feature of a 1024x768 photo: about 2 s of one thread. */
const analyzeAllFeatures = async (baseUrl: string, token: string) =>
  postMultipart(
    `${baseUrl}/api-py/python/analyze`,
    [
      { name: 'images', filename: 'big.png', bytes: await mangoPng(1024, 768) },
      { name: 'features', value: JSON.stringify(FEATURE_IDS) },
    ],
    bearer(token),
  );

async function serverWithUsers(overrides: Parameters<typeof startTestServer>[0], users: number) {
  const server = await startTestServer(overrides);
  const api = client(server);
  const signedIn = [];
  for (let i = 0; i < users; i++) signedIn.push(await signUp(api));
  return { server, tokens: signedIn.map((u) => u.accessToken) };
}

describe('issue 16 item 2: streamed uploads', () => {
  let server: TestServer;
  let tokens: string[];
  let png: Uint8Array;
  beforeAll(async () => {
    ({ server, tokens } = await serverWithUsers({ maxUploadBytes: 1 * MB, maxConcurrentUploads: 1 }, 3));
    png = await mangoPng(160, 120);
  });
  afterAll(() => server.close());
  const bruiseUrl = () => `${server.url}/api-py/python/bruise_detection/Classical`;

  it('stops a 190 MB upload at the 1 MB file limit: 413 at once, memory flat, /healthz quick', async () => {
    const rssBefore = process.memoryUsage().rss;
    let rssPeak = rssBefore;
    const health: number[] = [];
    let uploading = true;
    const sampler = (async () => {
      while (uploading) {
        health.push(await healthzLatency(server.url));
        rssPeak = Math.max(rssPeak, process.memoryUsage().rss);
        await sleep(20);
      }
    })();
    const res = await streamUpload(bruiseUrl(), 190 * MB, bearer(tokens[0]));
    uploading = false;
    await sampler;
    expect(res.status).toBe(413);
    expect(JSON.parse(res.body)).toEqual({
      detail: 'huge.png: file is larger than the limit of 1 MB; it was not read further',
    });
    // Before issue 16: the whole 190 MB body was read (and held) before the size check. Since issue 23
    // the rest of a refused body is read and discarded up to REFUSED_BODY_READ_MB (64) so that the
    // client receives the answer; past that bound the connection is closed.
    expect(res.sentBeforeAnswer).toBeLessThan(96 * MB);
    expect(res.answeredAfterMs).toBeLessThan(5000);
    expect(rssPeak - rssBefore).toBeLessThan(100 * MB);
    expect(Math.max(...health)).toBeLessThan(500);
    // The server goes on serving.
    const ok = await postMultipart(bruiseUrl(), [{ name: 'images', filename: 'a.png', bytes: png }], bearer(tokens[0]));
    expect(ok.status).toBe(200);
  });

  it('limits uploads in progress per caller: 429 {detail} with Retry-After, other callers unaffected', async () => {
    let release!: () => void;
    const hold = new Promise<void>((r) => (release = r));
    const first = streamUpload(bruiseUrl(), 512 * 1024, bearer(tokens[1]), { hold });
    await sleep(300);
    const second = await postMultipart(
      bruiseUrl(),
      [{ name: 'images', filename: 'a.png', bytes: png }],
      bearer(tokens[1]),
    );
    expect(second).toMatchObject({
      status: 429,
      body: { detail: 'Too many uploads at once: at most 1; wait for one to finish' },
    });
    expect(second.headers.get('retry-after')).toBe('1');
    const other = await postMultipart(
      bruiseUrl(),
      [{ name: 'images', filename: 'b.png', bytes: png }],
      bearer(tokens[2]),
    );
    expect(other.status).toBe(200);
    release();
    // The held upload is a PNG signature and filler: refused as a damaged image, not as a limit.
    expect((await first).status).toBe(422);
    const again = await postMultipart(
      bruiseUrl(),
      [{ name: 'images', filename: 'a.png', bytes: png }],
      bearer(tokens[1]),
    );
    expect(again.status).toBe(200);
  });
});

describe('issue 16 item 3: CPU amplification', () => {
  let png: Uint8Array;
  beforeAll(async () => {
    png = await mangoPng(160, 120);
  });

  describe('bounds on images, files and callers', () => {
    let server: TestServer;
    let tokens: string[];
    beforeAll(async () => {
      ({ server, tokens } = await serverWithUsers({ maxFilesPerRequest: 3, apiPyLimitPerMinute: 4 }, 4));
    });
    afterAll(() => server.close());
    const bruise = (token: string, files: { filename: string; bytes: Uint8Array }[]) =>
      postMultipart(
        `${server.url}/api-py/python/bruise_detection/Classical`,
        files.map((f) => ({ name: 'images', ...f })),
        bearer(token),
      );

    it('refuses a 1x49,000,000 PNG and a 21:1 strip from their headers, without decoding them', async () => {
      const t0 = performance.now();
      const thin = await bruise(tokens[0], [{ filename: 'thin.png', bytes: pngHeader(1, 49_000_000) }]);
      expect(thin).toMatchObject({
        status: 413,
        body: { detail: 'thin.png: image is 1x49000000; the longest side accepted is 30000 pixels' },
      });
      // From its header: decoding 49 megapixels would take many seconds (the bound leaves room for a
      // machine busy with other work; it measured 1.1 s once while other test runs shared the cores).
      expect(performance.now() - t0).toBeLessThan(5000);
      const strip = await bruise(tokens[0], [{ filename: 'strip.png', bytes: pngHeader(21_000, 1000) }]);
      expect(strip).toMatchObject({
        status: 400,
        body: { detail: 'strip.png: image is 21000x1000; its long side may be at most 20 times its short side' },
      });
    });

    it('caps files per request (MAX_FILES_PER_REQUEST, default 50)', async () => {
      const file = (i: number) => ({ filename: `${i}.png`, bytes: png });
      const four = await bruise(tokens[1], [0, 1, 2, 3].map(file));
      expect(four).toMatchObject({ status: 400, body: { detail: 'Too many files: at most 3 images per request' } });
      const three = await bruise(tokens[1], [0, 1, 2].map(file));
      expect(three.status).toBe(200);
      expect((three.body as unknown[]).length).toBe(3);
      expect(loadConfig({}).maxFilesPerRequest).toBe(50);
      expect(loadConfig({ MAX_FILES_PER_REQUEST: '7' }).maxFilesPerRequest).toBe(7);
    });

    it('limits /api-py requests per signed-in user: 429 {detail} with Retry-After', async () => {
      const statuses: number[] = [];
      for (let i = 0; i < 4; i++) statuses.push((await bruise(tokens[2], [{ filename: 'a.png', bytes: png }])).status);
      expect(statuses).toEqual([200, 200, 200, 200]);
      const limited = await bruise(tokens[2], [{ filename: 'a.png', bytes: png }]);
      expect(limited).toMatchObject({ status: 429, body: { detail: 'Rate limit of 4 requests per minute exceeded' } });
      expect(Number(limited.headers.get('retry-after'))).toBeGreaterThan(0);
      // Another user is counted apart.
      expect((await bruise(tokens[3], [{ filename: 'a.png', bytes: png }])).status).toBe(200);
    });
  });

  describe('bounded worker queue', () => {
    let server: TestServer;
    let tokens: string[];
    beforeAll(async () => {
      ({ server, tokens } = await serverWithUsers({ workerThreads: 1, workerQueue: 0 }, 2));
    });
    afterAll(() => server.close());

    it('answers 503 {detail} with Retry-After when the queue is full, and serves again after', async () => {
      const slow = analyzeAllFeatures(server.url, tokens[0]);
      await sleep(500);
      const url = `${server.url}/api-py/python/bruise_detection/Classical`;
      const busy = await postMultipart(url, [{ name: 'images', filename: 'a.png', bytes: png }], bearer(tokens[1]));
      expect(busy).toMatchObject({
        status: 503,
        body: { detail: 'The server is busy processing other images. Please try again shortly.' },
      });
      expect(busy.headers.get('retry-after')).toBe('2');
      expect((await slow).status).toBe(200);
      const after = await postMultipart(url, [{ name: 'images', filename: 'a.png', bytes: png }], bearer(tokens[1]));
      expect(after.status).toBe(200);
    });
  });

  describe('per-photo time limit', () => {
    let server: TestServer;
    let tokens: string[];
    beforeAll(async () => {
      ({ server, tokens } = await serverWithUsers({ workerThreads: 1, photoTimeLimitMs: 40 }, 1));
    });
    afterAll(() => server.close());

    it('stops a photo that runs over the limit with 422 {detail}; the server keeps serving', async () => {
      const res = await analyzeAllFeatures(server.url, tokens[0]);
      expect(res.status).toBe(200);
      expect((res.body as { image_name: string; error: string }[])[0]).toEqual({
        image_name: 'big.png',
        error: 'big.png: processing took longer than the limit of 0.04 s per photo',
        code: 'TIMED_OUT',
        // the stored run of the call (issue 12)
        run_id: expect.stringMatching(/^[0-9a-f-]{36}$/),
      });
      const bruise = await postMultipart(
        `${server.url}/api-py/python/bruise_detection/Classical`,
        [{ name: 'images', filename: 'big.png', bytes: await mangoPng(1024, 768) }],
        bearer(tokens[0]),
      );
      expect(bruise).toMatchObject({
        status: 422,
        body: { detail: 'big.png: processing took longer than the limit of 0.04 s per photo' },
      });
      expect(await healthzLatency(server.url)).toBeLessThan(500);
    });
  });
});
