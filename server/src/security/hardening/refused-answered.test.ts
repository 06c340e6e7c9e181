/**
 * Issue 23 items 1-2: every refused upload is answered. 24 refused uploads sent at once (12 with
 * 120 photos, over the per-request cap of 50; 12 with a 40 MB file, over MAX_UPLOAD_MB = 25), from
 * real HTTP clients (Node's fetch, curl and Python's http.client), each receive their 4xx with the
 * reason; the same for uploads refused with 429 (too many at once: Retry-After) and 401 (no
 * credentials). Before the fix the server closed the socket while the clients were still sending:
 * 21 of 24 saw a reset (EPIPE / `fetch failed`) instead of the answer. On SQLite and PostgreSQL.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { startTestServer, TEST_DATABASES, type TestServer } from '../../testing/index.ts';
import { client, signUp } from '../../testing/accounts.ts';
import { mangoPng, multipart } from './helpers.ts';

const run = promisify(execFile);
const MB = 1024 * 1024;

interface Answer {
  client: string;
  status: number | string;
  body: string;
  retryAfter?: string | null;
}

async function viaFetch(
  url: string,
  file: string,
  contentType: string,
  headers: Record<string, string>,
): Promise<Answer> {
  try {
    const { readFile } = await import('node:fs/promises');
    const res = await fetch(url, {
      method: 'POST',
      body: await readFile(file),
      headers: { ...headers, 'content-type': contentType },
    });
    return { client: 'fetch', status: res.status, body: await res.text(), retryAfter: res.headers.get('retry-after') };
  } catch (e) {
    return { client: 'fetch', status: `network error: ${String((e as Error).cause ?? e)}`, body: '' };
  }
}

async function viaCurl(
  url: string,
  file: string,
  contentType: string,
  headers: Record<string, string>,
): Promise<Answer> {
  const args = ['-sS', '-o', '-', '-w', '\n%{http_code}', '-H', `content-type: ${contentType}`, '-H', 'Expect:'];
  for (const [k, v] of Object.entries(headers)) args.push('-H', `${k}: ${v}`);
  args.push('--data-binary', `@${file}`, url);
  try {
    const { stdout } = await run('curl', args, { maxBuffer: 4 * MB });
    const cut = stdout.lastIndexOf('\n');
    return { client: 'curl', status: Number(stdout.slice(cut + 1)), body: stdout.slice(0, cut) };
  } catch (e) {
    return { client: 'curl', status: `network error: ${(e as { stderr?: string }).stderr ?? String(e)}`, body: '' };
  }
}

const PYTHON = `
import http.client, sys, json, urllib.parse
url, path, ctype, auth = sys.argv[1:5]
u = urllib.parse.urlsplit(url)
body = open(path, 'rb').read()
c = http.client.HTTPConnection(u.hostname, u.port, timeout=60)
headers = {'Content-Type': ctype}
if auth: headers['Authorization'] = auth
try:
    c.request('POST', u.path, body=body, headers=headers)
    r = c.getresponse()
    print(json.dumps({'status': r.status, 'body': r.read().decode()}))
except Exception as e:
    print(json.dumps({'status': 'network error: ' + repr(e), 'body': ''}))
`;

async function viaPython(
  url: string,
  file: string,
  contentType: string,
  headers: Record<string, string>,
): Promise<Answer> {
  const { stdout } = await run('python3', ['-c', PYTHON, url, file, contentType, headers.authorization ?? '']);
  return { client: 'python', ...(JSON.parse(stdout) as { status: number | string; body: string }) };
}

const CLIENTS = [viaFetch, viaCurl, viaPython];

describe.each(TEST_DATABASES)('issue 23 item 1: refused uploads are answered (%s)', (database) => {
  let server: TestServer;
  let dir: string;
  let token: string;
  let manyPhotos: { file: string; contentType: string };
  let bigFile: { file: string; contentType: string };
  beforeAll(async () => {
    server = await startTestServer({ maxConcurrentUploads: 100, apiPyLimitPerMinute: 1000 }, { database });
    token = (await signUp(client(server))).accessToken;
    dir = mkdtempSync(join(tmpdir(), 'mango-refused-'));
    const png = await mangoPng(96, 72);
    const many = multipart(
      Array.from({ length: 120 }, (_, i) => ({ name: 'images', filename: `p${i}.png`, bytes: png })),
    );
    const big = multipart([{ name: 'images', filename: 'big.png', bytes: new Uint8Array(40 * MB).fill(0x41) }]);
    manyPhotos = { file: join(dir, 'many'), contentType: many.contentType };
    bigFile = { file: join(dir, 'big'), contentType: big.contentType };
    writeFileSync(manyPhotos.file, many.body);
    writeFileSync(bigFile.file, big.body);
  }, 60_000);
  afterAll(async () => {
    await server?.close();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });
  const url = () => `${server.url}/api-py/python/bruise_detection/Classical`;

  it('24 refused uploads sent at once (120 photos; a 40 MB file) each receive their 4xx with the reason', async () => {
    const auth = { authorization: `Bearer ${token}` };
    const sends = [];
    for (let i = 0; i < 24; i++) {
      const body = i % 2 === 0 ? manyPhotos : bigFile;
      sends.push(CLIENTS[i % 3](url(), body.file, body.contentType, auth).then((a) => ({ ...a, kind: i % 2 })));
    }
    const answers = await Promise.all(sends);
    const summary = answers.map((a) => `${a.client}:${a.status}`);
    expect(
      summary.filter((s) => s.includes('network error')),
      summary.join(', '),
    ).toEqual([]);
    for (const a of answers) {
      if (a.kind === 0) {
        expect(a.status).toBe(400);
        expect(JSON.parse(a.body)).toEqual({ detail: 'Too many files: at most 50 images per request' });
      } else {
        expect(a.status).toBe(413);
        expect(JSON.parse(a.body)).toEqual({
          detail: 'big.png: file is larger than the limit of 25 MB; it was not read further',
        });
      }
    }
  }, 120_000);

  it('uploads refused before their body is read are answered too: 401 without credentials', async () => {
    const answers = await Promise.all(
      Array.from({ length: 6 }, (_, i) => CLIENTS[i % 3](url(), bigFile.file, bigFile.contentType, {})),
    );
    expect(answers.map((a) => a.status)).toEqual([401, 401, 401, 401, 401, 401]);
  }, 60_000);
});

describe('issue 23 item 1: 429 (too many uploads at once) is answered with its reason and Retry-After', () => {
  let server: TestServer;
  let dir: string;
  beforeAll(async () => {
    server = await startTestServer({ maxConcurrentUploads: 1 });
    dir = mkdtempSync(join(tmpdir(), 'mango-refused-'));
  });
  afterAll(async () => {
    await server?.close();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it('8 uploads of 20 MB at once from one user: one is read, the others get 429 with Retry-After, none a reset', async () => {
    const token = (await signUp(client(server))).accessToken;
    const body = multipart([{ name: 'images', filename: 'filler.png', bytes: new Uint8Array(20 * MB).fill(0x41) }]);
    const file = join(dir, 'filler');
    writeFileSync(file, body.body);
    const answers = await Promise.all(
      Array.from({ length: 8 }, () =>
        viaFetch(`${server.url}/api-py/python/bruise_detection/Classical`, file, body.contentType, {
          authorization: `Bearer ${token}`,
        }),
      ),
    );
    expect(answers.filter((a) => typeof a.status === 'string')).toEqual([]);
    const refused = answers.filter((a) => a.status === 429);
    expect(refused.length).toBeGreaterThan(0);
    for (const a of refused) {
      expect(JSON.parse(a.body)).toEqual({ detail: 'Too many uploads at once: at most 1; wait for one to finish' });
      expect(Number(a.retryAfter)).toBeGreaterThan(0);
    }
    // The uploads that were read are filler, not an image: refused as such (415), not reset.
    for (const a of answers.filter((x) => x.status !== 429)) expect(a.status).toBe(415);
  }, 60_000);
});
