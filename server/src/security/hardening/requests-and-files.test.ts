/**
 * Issue 16 item 10, through real HTTP: JSON endpoints refuse non-JSON bodies (415), uploaded file
 * names are sanitised before they are echoed, px_per_cm is range-checked, and the data directory
 * and database files are owner-only.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startTestServer, type TestServer } from '../../testing/index.ts';
import { client, mailedCode, signUp, type Client, type SignedIn } from '../../testing/accounts.ts';
import { mangoPng, postMultipart } from './helpers.ts';

describe('issue 16 item 10: requests and files', () => {
  let server: TestServer;
  let api: Client;
  let user: SignedIn;
  let png: Uint8Array;
  beforeAll(async () => {
    server = await startTestServer();
    api = client(server);
    user = await signUp(api);
    png = await mangoPng(160, 120);
  });
  afterAll(() => server.close());

  describe('JSON endpoints of /api-node answer 415 to anything but application/json', () => {
    const body = () => JSON.stringify({ email: user.username, password: user.password });

    it('refuses JSON sent as text/plain, form data or with no content type', async () => {
      for (const type of ['text/plain', 'text/plain;charset=UTF-8', 'application/x-www-form-urlencoded', undefined]) {
        const headers: Record<string, string> = type ? { 'content-type': type } : {};
        const res = await fetch(`${server.url}/api-node/login`, { method: 'POST', body: body(), headers });
        expect(res.status, String(type)).toBe(415);
        expect(await res.json()).toEqual({ error: 'Content-Type must be application/json' });
      }
      // fetch gives a string body text/plain when no type is set: remove it to send none at all.
      const none = await api.call('POST', '/api-node/register', {
        body: JSON.stringify({
          username: 'x_none',
          email: 'x_none@example.org',
          password: 'long-enough',
          organization: 'o',
        }),
        headers: { 'content-type': '' },
      });
      expect(none.status).toBe(415);
    });

    it('does no work for a refused forgot-password: no code is mailed', async () => {
      const res = await fetch(`${server.url}/api-node/forgot-password`, {
        method: 'POST',
        body: JSON.stringify({ email: user.email }),
        headers: { 'content-type': 'text/plain' },
      });
      expect(res.status).toBe(415);
      expect(await mailedCode(server, user.email)).toBeNull();
    });

    it('accepts application/json with a charset', async () => {
      const res = await fetch(`${server.url}/api-node/login`, {
        method: 'POST',
        body: body(),
        headers: { 'content-type': 'application/json; charset=utf-8' },
      });
      expect(res.status).toBe(200);
    });
  });

  describe('file names', () => {
    const classical = (filename: string, encoded = false) =>
      postMultipart(
        `${server.url}/api-py/python/bruise_detection/Classical`,
        [{ name: 'images', filename, bytes: png, encoded }],
        { authorization: `Bearer ${user.accessToken}` },
      );
    const echoed = (res: { body: unknown }) => (res.body as { filename: string }[])[0].filename;

    it('keeps a safe name exactly as sent, Thai letters included', async () => {
      for (const encoded of [false, true]) {
        const res = await classical('มะม่วง ล็อต 7.png', encoded);
        expect(res.status).toBe(200);
        expect(echoed(res)).toBe('มะม่วง ล็อต 7.png');
      }
    });

    it('echoes hostile names without directories, NUL, ANSI escapes or bidi characters', async () => {
      // Raw control characters cannot stand in a part header; RFC 5987 encoding carries them.
      const cases: [string, boolean, string][] = [
        ['../../etc/passwd.jpg', false, 'passwd.jpg'],
        ['..\\..\\windows\\win.ini.png', false, 'win.ini.png'],
        ['invoice\u202egnp.exe.png', false, 'invoicegnp.exe.png'],
        ['../../etc/passwd.jpg', true, 'passwd.jpg'],
        ['nul\u0000byte.png', true, 'nulbyte.png'],
        ['\u001b[31mred\u001b[0m.png', true, 'red.png'],
        ['line\r\nbreak.png', true, 'linebreak.png'],
      ];
      for (const [sent, encoded, expected] of cases) {
        const res = await classical(sent, encoded);
        expect(res.status, JSON.stringify(sent)).toBe(200);
        expect(echoed(res)).toBe(expected);
      }
    });

    it('refuses raw control characters and a part header over 16 KB with a clear 400', async () => {
      for (const name of ['nul\u0000byte.png', 'a'.repeat(200_000) + '.png']) {
        const res = await classical(name);
        expect(res).toMatchObject({
          status: 400,
          body: {
            detail: 'the multipart body could not be read: a part header holds control characters or is over 16 KB',
          },
        });
      }
    });

    it('cuts a 10 KB name to 255 bytes keeping its extension, in /python/analyze too', async () => {
      const res = await postMultipart(
        `${server.url}/api-py/python/analyze`,
        [
          { name: 'images', filename: 'a'.repeat(10_000) + '.png', bytes: png },
          { name: 'features', value: '["rgb"]' },
        ],
        { authorization: `Bearer ${user.accessToken}` },
      );
      expect(res.status).toBe(200);
      expect((res.body as { image_name: string }[])[0].image_name).toBe('a'.repeat(251) + '.png');
    });
  });

  it('refuses a px_per_cm out of range (1e-320 made null areas) with 400 {detail}', async () => {
    for (const value of ['1e-320', '0.001', '1e9']) {
      const res = await postMultipart(
        `${server.url}/api-py/python/bruise_detection/Classical`,
        [
          { name: 'images', filename: 'a.png', bytes: png },
          { name: 'px_per_cm', value },
        ],
        { authorization: `Bearer ${user.accessToken}` },
      );
      expect(res, value).toMatchObject({
        status: 400,
        body: { detail: '`px_per_cm` must be a number from 0.01 to 100000' },
      });
    }
    const ok = await postMultipart(
      `${server.url}/api-py/python/bruise_detection/Classical`,
      [
        { name: 'images', filename: 'a.png', bytes: png },
        { name: 'px_per_cm', value: '40' },
      ],
      { authorization: `Bearer ${user.accessToken}` },
    );
    expect(ok.status).toBe(200);
    const item = (ok.body as { px_per_cm: number; fruit_area_cm2: number; total_mango_pixels: number }[])[0];
    expect(item.px_per_cm).toBe(40);
    expect(item.fruit_area_cm2).toBeCloseTo(item.total_mango_pixels / 1600, 3);
  });
});

describe('issue 16 item 10: owner-only data directory', () => {
  it('creates DATA_DIR 0700 and the database, its WAL files, the JWT secret and the outbox owner-only', async () => {
    const parent = mkdtempSync(join(tmpdir(), 'mango-perm-'));
    const dataDir = join(parent, 'fresh', 'data');
    const server = await startTestServer({ dataDir });
    try {
      const api = client(server);
      const user = await signUp(api);
      expect((await api.post('/api-node/forgot-password', { email: user.email })).status).toBe(200);
      expect(await mailedCode(server, user.email)).not.toBeNull();
      const mode = (p: string) => (statSync(join(dataDir, p)).mode & 0o777).toString(8);
      expect(mode('.')).toBe('700');
      expect(mode('outbox')).toBe('700');
      for (const f of ['mango.sqlite', 'mango.sqlite-wal', 'mango.sqlite-shm', 'jwt-secret'])
        expect(mode(f), f).toBe('600');
    } finally {
      await server.close();
      rmSync(parent, { recursive: true, force: true });
    }
  });
});
