/**
 * Issue 16 item 9, through real HTTP: partner keys have a kind. A browser key (the default, and what
 * existing keys became) is refused without an allowed Origin, also when a forged Origin comes with a
 * matching Host; a server key is refused whenever a request carries an Origin.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { request } from 'node:http';
import { startTestServer, type TestServer } from '../../testing/index.ts';
import { client, signUp, type Client, type SignedIn } from '../../testing/accounts.ts';
import { mangoPng, multipart } from './helpers.ts';

const SHOP = 'https://shop.example.com';

describe('issue 16 item 9: partner key kinds', () => {
  let server: TestServer;
  let api: Client;
  let owner: SignedIn;
  let body: { body: Uint8Array; contentType: string };
  beforeAll(async () => {
    server = await startTestServer();
    api = client(server);
    owner = await signUp(api);
    body = multipart([{ name: 'images', filename: 'a.png', bytes: await mangoPng(120, 90) }]);
  });
  afterAll(() => server.close());

  const createKey = async (extra: object) => {
    const res = await api.post<{ key: string; kind: string }>(
      '/api-node/api-keys',
      { name: 'k', allowedOrigins: [SHOP], rateLimitPerMinute: 1000, ...extra },
      owner.accessToken,
    );
    expect(res.status).toBe(201);
    return res.body;
  };

  /** POST /api-py with any headers, Host included (fetch would not send a Host of our choosing). */
  const call = (key: string, headers: Record<string, string>) =>
    new Promise<{ status: number; body: string }>((resolve, reject) => {
      const req = request(`${server.url}/api-py/python/bruise_detection/Classical`, {
        method: 'POST',
        headers: {
          authorization: `Bearer ${key}`,
          'content-type': body.contentType,
          'content-length': String(body.body.length),
          ...headers,
        },
      });
      req.on('response', (res) => {
        let text = '';
        res.on('data', (d: Buffer) => (text += d.toString()));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body: text }));
      });
      req.on('error', reject);
      req.end(Buffer.from(body.body));
    });

  it('makes browser keys by default, and existing keys become browser keys', async () => {
    expect((await createKey({})).kind).toBe('browser');
    const legacy = await server.ctx.db
      .insertInto('api_keys')
      .values({
        user_id: 1,
        organization: 'o',
        name: 'legacy',
        prefix: 'mbt_legacy00',
        key_hash: `legacy-${Date.now()}`,
        rate_limit_per_minute: 10,
        created_at: new Date().toISOString(),
      })
      .returning('kind')
      .executeTakeFirstOrThrow();
    expect(legacy.kind).toBe('browser');
  });

  it('refuses a browser key without an Origin, and with a forged Origin plus a matching Host', async () => {
    const { key } = await createKey({});
    const none = await call(key, {});
    expect(none.status).toBe(403);
    expect(JSON.parse(none.body)).toEqual({
      detail: 'This API key is for web pages: requests without an allowed Origin are refused',
    });
    const forged = await call(key, { origin: 'http://evil.example', host: 'evil.example' });
    expect(forged.status).toBe(403);
    expect(JSON.parse(forged.body)).toEqual({ detail: 'Origin http://evil.example is not allowed for this API key' });
    const self = new URL(server.url);
    const sameHost = await call(key, { origin: `http://${self.host}`, host: self.host });
    expect(sameHost.status).toBe(403);
    expect((await call(key, { origin: SHOP })).status).toBe(200);
  });

  it('accepts a server key only without an Origin', async () => {
    const { key, kind } = await createKey({ kind: 'server', allowedOrigins: [] });
    expect(kind).toBe('server');
    expect((await call(key, {})).status).toBe(200);
    const fromPage = await call(key, { origin: SHOP });
    expect(fromPage.status).toBe(403);
    expect(JSON.parse(fromPage.body)).toEqual({
      detail: 'This API key is for server-to-server use and is refused from a web page (Origin sent)',
    });
  });

  it('refuses an unknown kind', async () => {
    const res = await api.post('/api-node/api-keys', { name: 'k', kind: 'admin' }, owner.accessToken);
    expect(res.status).toBe(400);
  });
});
