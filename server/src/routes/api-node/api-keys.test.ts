import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Hono } from 'hono';
import { logAction, requireCaller } from '../../auth/index.ts';
import { applySecurity } from '../../security/index.ts';
import { startTestServer, TEST_DATABASES, type TestServer } from '../../testing/index.ts';
import { client, signUp, type Client, type SignedIn } from '../../testing/accounts.ts';

interface KeyAnswer {
  id: number;
  key: string;
  name: string;
  prefix: string;
  organization: string;
  allowed_origins: string[];
  rate_limit_per_minute: number;
  created_at: string;
  revoked_at: string | null;
}

describe.each(TEST_DATABASES)('partner API keys on %s', (database) => {
  let server: TestServer;
  let api: Client;
  let owner: SignedIn;
  let stranger: SignedIn;
  /** A stand-in for the lead's /api-py routers: requireCaller, then logAction. */
  let probe: Hono;
  const shop = 'https://shop.example.com';

  beforeAll(async () => {
    server = await startTestServer({ corsOrigins: ['https://app.example.org'] }, { database });
    api = client(server);
    owner = await signUp(api, 'Partner Fruit Ltd');
    stranger = await signUp(api, 'Someone Else');
    probe = new Hono();
    applySecurity(probe, server.ctx);
    probe.post('/api-py/probe', requireCaller(server.ctx), async (c) => {
      await logAction(server.ctx, c.get('caller'), 'Bruised Area Calculation');
      return c.json(c.get('caller'));
    });
  });
  afterAll(() => server.close());

  const createKey = (body: object, token = owner.accessToken) => api.post<KeyAnswer>('/api-node/api-keys', body, token);
  const callProbe = (key: string, origin?: string) =>
    probe.request('http://mango.test/api-py/probe', {
      method: 'POST',
      headers: { authorization: `Bearer ${key}`, ...(origin ? { origin } : {}) },
    });

  it('creates a key shown once, stores only its hash, and lists it without the key', async () => {
    const created = await createKey({ name: 'Shop widget', allowedOrigins: [shop], rateLimitPerMinute: 30 });
    expect(created.status).toBe(201);
    const k = created.body;
    expect(k.key).toMatch(/^mbt_[\w-]{43}$/);
    expect(k).toMatchObject({
      name: 'Shop widget',
      prefix: k.key.slice(0, 12),
      organization: 'Partner Fruit Ltd',
      allowed_origins: [shop],
      rate_limit_per_minute: 30,
      kind: 'browser',
      revoked_at: null,
    });
    const row = await server.ctx.db.selectFrom('api_keys').selectAll().where('id', '=', k.id).executeTakeFirstOrThrow();
    expect(JSON.stringify(row)).not.toContain(k.key);
    const list = await api.get<KeyAnswer[]>('/api-node/api-keys', owner.accessToken);
    expect(list.status).toBe(200);
    expect(list.body.find((x) => x.id === k.id)).toMatchObject({ name: 'Shop widget', prefix: k.prefix });
    expect(JSON.stringify(list.body)).not.toContain(k.key);
    // Other users do not see it.
    const theirs = await api.get<KeyAnswer[]>('/api-node/api-keys', stranger.accessToken);
    expect(theirs.body.map((x) => x.id)).not.toContain(k.id);
  });

  it('validates the request', async () => {
    for (const body of [
      { name: '', allowedOrigins: [] },
      { name: 'x', allowedOrigins: ['https://shop.example.com/path'] },
      { name: 'x', allowedOrigins: ['javascript:alert(1)'] },
      { name: 'x', rateLimitPerMinute: 0 },
    ]) {
      const res = await createKey(body);
      expect(res.status, JSON.stringify(body)).toBe(400);
    }
    expect((await api.post('/api-node/api-keys', { name: 'x' })).status).toBe(401);
  });

  it('lets a key call the plugin API and logs the call in the owner history', async () => {
    const { body: k } = await createKey({ name: 'server', kind: 'server', rateLimitPerMinute: 100 });
    const res = await callProbe(k.key);
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({
      userId: expect.any(Number),
      username: owner.username,
      organization: 'Partner Fruit Ltd',
      apiKeyId: k.id,
    });
    const history = await api.get<{ operation_type: string; username: string }[]>(
      '/api-node/user/history',
      owner.accessToken,
    );
    expect(history.body[0]).toMatchObject({ operation_type: 'Bruised Area Calculation', username: owner.username });
    const row = await server.ctx.db
      .selectFrom('api_keys')
      .select('last_used_at')
      .where('id', '=', k.id)
      .executeTakeFirst();
    expect(row?.last_used_at).toEqual(expect.any(String));
    // An access token works on the same endpoint.
    expect((await callProbe(owner.accessToken)).status).toBe(200);
  });

  it("refuses browser origins outside the key's list with 403, and unknown keys with 401 {detail}", async () => {
    const { body: k } = await createKey({ name: 'browser', allowedOrigins: [shop], rateLimitPerMinute: 100 });
    const fromShop = await callProbe(k.key, shop);
    expect(fromShop.status).toBe(200);
    expect(fromShop.headers.get('access-control-allow-origin')).toBe(shop);
    const fromElsewhere = await callProbe(k.key, 'https://evil.example.net');
    expect(fromElsewhere.status).toBe(403);
    expect(await fromElsewhere.json()).toEqual({ detail: expect.stringContaining('not allowed') });
    const unknown = await callProbe(`mbt_${'A'.repeat(43)}`);
    expect(unknown.status).toBe(401);
    expect(await unknown.json()).toEqual({ detail: 'Invalid or revoked API key' });
    const none = await probe.request('http://mango.test/api-py/probe', { method: 'POST' });
    expect(none.status).toBe(401);
    expect(Object.keys((await none.json()) as object)).toEqual(['detail']);
  });

  it("applies the key's per-minute rate limit", async () => {
    const { body: k } = await createKey({ name: 'limited', kind: 'server', rateLimitPerMinute: 3 });
    const statuses = [];
    for (let i = 0; i < 4; i++) statuses.push((await callProbe(k.key)).status);
    expect(statuses).toEqual([200, 200, 200, 429]);
    const refused = await callProbe(k.key);
    expect(refused.headers.get('retry-after')).toMatch(/^\d+$/);
    expect(await refused.json()).toEqual({ detail: expect.stringContaining('3 requests per minute') });
  });

  it('revokes own keys only; a revoked key stops working', async () => {
    const { body: k } = await createKey({ name: 'to revoke', kind: 'server', rateLimitPerMinute: 10 });
    expect((await api.del(`/api-node/api-keys/${k.id}`, stranger.accessToken)).status).toBe(404);
    expect((await callProbe(k.key)).status).toBe(200);
    const del = await api.del(`/api-node/api-keys/${k.id}`, owner.accessToken);
    expect(del).toMatchObject({ status: 200, body: { message: 'API key revoked' } });
    expect((await callProbe(k.key)).status).toBe(401);
    const list = await api.get<KeyAnswer[]>('/api-node/api-keys', owner.accessToken);
    expect(list.body.find((x) => x.id === k.id)?.revoked_at).toEqual(expect.any(String));
    expect((await api.del('/api-node/api-keys/999999999', owner.accessToken)).status).toBe(404);
    expect((await api.del('/api-node/api-keys/abc', owner.accessToken)).status).toBe(404);
  });

  it("answers CORS preflights on /api-py for any active key's origin, and only those", async () => {
    const origin = `https://preflight-${Date.now()}.example.com`;
    const preflight = (o: string) =>
      fetch(`${server.url}/api-py/python/analyze`, {
        method: 'OPTIONS',
        headers: {
          origin: o,
          'access-control-request-method': 'POST',
          'access-control-request-headers': 'authorization',
        },
      });
    expect((await preflight(origin)).headers.get('access-control-allow-origin')).toBeNull();
    const { body: k } = await createKey({ name: 'cors', allowedOrigins: [origin], rateLimitPerMinute: 10 });
    const allowed = await preflight(origin);
    expect(allowed.status).toBe(204);
    expect(allowed.headers.get('access-control-allow-origin')).toBe(origin);
    expect(allowed.headers.get('access-control-allow-headers')?.toLowerCase()).toContain('authorization');
    expect((await preflight('https://app.example.org')).headers.get('access-control-allow-origin')).toBe(
      'https://app.example.org',
    );
    await api.del(`/api-node/api-keys/${k.id}`, owner.accessToken);
    expect((await preflight(origin)).headers.get('access-control-allow-origin')).toBeNull();
    // Key origins do not open the account API.
    const nodePreflight = await fetch(`${server.url}/api-node/login`, {
      method: 'OPTIONS',
      headers: { origin: shop, 'access-control-request-method': 'POST' },
    });
    expect(nodePreflight.headers.get('access-control-allow-origin')).toBeNull();
  });

  it('does not accept API keys on the account API', async () => {
    const { body: k } = await createKey({ name: 'not for accounts', allowedOrigins: [], rateLimitPerMinute: 10 });
    expect((await api.get('/api-node/user/profile', k.key)).status).toBe(401);
    expect((await api.get('/api-node/api-keys', k.key)).status).toBe(401);
  });
  it('creates at most 20 active keys from 40 parallel requests (counted and inserted in one transaction)', async () => {
    const user = await signUp(api, 'Parallel Keys');
    const answers = await Promise.all(
      Array.from({ length: 40 }, (_, i) =>
        createKey(
          { name: `parallel ${i}`, allowedOrigins: [], rateLimitPerMinute: 10, kind: 'server' },
          user.accessToken,
        ),
      ),
    );
    const statuses = answers.map((a) => a.status);
    expect(statuses.filter((s) => s === 201)).toHaveLength(20);
    expect(statuses.filter((s) => s !== 201 && s !== 400)).toEqual([]);
    const list = await api.get<KeyAnswer[]>('/api-node/api-keys', user.accessToken);
    expect(list.body.filter((k) => k.revoked_at === null)).toHaveLength(20);
  });

  it('revokes the API keys on a password change, as a reset does', async () => {
    const user = await signUp(api, 'Changing Password');
    const { body: k } = await createKey(
      { name: 'server key', allowedOrigins: [], rateLimitPerMinute: 10, kind: 'server' },
      user.accessToken,
    );
    expect((await api.get('/api-node/runs', k.key)).status).toBe(200);
    const changed = await api.post(
      '/api-node/change-password',
      { currentPassword: user.password, newPassword: 'a-brand-new-password' },
      user.accessToken,
    );
    expect(changed.status).toBe(200);
    expect((await api.get('/api-node/runs', k.key)).status).toBe(401);
    const row = await server.ctx.db
      .selectFrom('api_keys')
      .select('revoked_at')
      .where('id', '=', k.id)
      .executeTakeFirst();
    expect(row?.revoked_at).not.toBeNull();
  });
});

describe.runIf(TEST_DATABASES.includes('postgres'))('partner API key limit across two PostgreSQL instances', () => {
  let a: TestServer;
  let b: TestServer;
  const jwtSecret = 'api-key-limit-test-secret-of-at-least-32-characters';

  beforeAll(async () => {
    a = await startTestServer({ jwtSecret }, { database: 'postgres' });
    b = await startTestServer({ jwtSecret }, { database: 'postgres' });
  });
  afterAll(async () => {
    await a.close();
    await b.close();
  });

  it('creates at most 20 active keys from 40 parallel requests spread over both', async () => {
    const user = await signUp(client(a), 'Two Instances');
    const answers = await Promise.all(
      Array.from({ length: 40 }, (_, i) =>
        client(i % 2 ? b : a).post(
          '/api-node/api-keys',
          { name: `parallel ${i}`, allowedOrigins: [], rateLimitPerMinute: 10, kind: 'server' },
          user.accessToken,
        ),
      ),
    );
    expect(answers.filter((x) => x.status === 201)).toHaveLength(20);
    expect(answers.filter((x) => x.status !== 201 && x.status !== 400).map((x) => x.status)).toEqual([]);
    const active = await a.ctx.db
      .selectFrom('users')
      .innerJoin('api_keys', 'api_keys.user_id', 'users.id')
      .select((eb) => eb.fn.countAll<string | number>().as('n'))
      .where('users.username', '=', user.username)
      .where('api_keys.revoked_at', 'is', null)
      .executeTakeFirstOrThrow();
    expect(Number(active.n)).toBe(20);
  });
});
