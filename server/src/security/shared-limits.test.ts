import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../testing/index.ts';
import { client, mailedCode, signUp } from '../testing/accounts.ts';

const PG = process.env.TEST_DATABASE_URL;
if (!PG)
  console.warn('shared rate limits and sign-in throttle test SKIPPED: set TEST_DATABASE_URL=postgres://... to run it');

describe.skipIf(!PG)('rate limits and sign-in throttle shared by the instances of one PostgreSQL deployment', () => {
  let a: TestServer;
  let b: TestServer;
  const jwtSecret = `shared-limits-${Math.random().toString(36).slice(2)}-0123456789abcdef`;
  beforeAll(async () => {
    // LOGIN_LIMIT_PER_MINUTE 3: 3 failures per (account, address), 9 per address, 15 per account.
    a = await startTestServer({ jwtSecret, loginLimitPerMinute: 3, trustProxy: true }, { database: 'postgres' });
    b = await startTestServer({ jwtSecret, loginLimitPerMinute: 3, trustProxy: true }, { database: 'postgres' });
  });
  afterAll(async () => {
    await a?.close();
    await b?.close();
  });

  it("counts an API key's per-minute limit across instances: 3 a minute is 3 in all", async () => {
    const owner = await signUp(client(a));
    const key = await client(a).post<{ key: string }>(
      '/api-node/api-keys',
      { name: 'shared', kind: 'server', allowedOrigins: [], rateLimitPerMinute: 3 },
      owner.accessToken,
    );
    expect(key.status).toBe(201);
    const statuses: number[] = [];
    for (const s of [a, b, a, b]) statuses.push((await client(s).get('/api-node/runs', key.body.key)).status);
    expect(statuses).toEqual([200, 200, 200, 429]);
  });

  const login = (s: TestServer, address: string, email: string, password: string) =>
    client(s).call('POST', '/api-node/login', { body: { email, password }, headers: { 'x-forwarded-for': address } });

  it('counts failed sign-ins across instances, and a reset on one clears them on the other', async () => {
    const owner = await signUp(client(a));
    for (let i = 0; i < 3; i++) expect((await login(a, '203.0.113.7', owner.email, 'wrong-password')).status).toBe(401);
    const refused = await login(b, '203.0.113.7', owner.email, owner.password);
    expect(refused.status).toBe(429);
    expect(Number(refused.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
    expect(Number(refused.headers.get('retry-after'))).toBeLessThanOrEqual(60);
    expect((await login(b, '203.0.113.8', owner.email, owner.password)).status).toBe(200);

    expect((await client(a).post('/api-node/forgot-password', { email: owner.email })).status).toBe(200);
    const { code } = (await mailedCode(a, owner.email))!;
    const verified = await client(a).post<{ resetToken: string }>('/api-node/verify-code', {
      email: owner.email,
      code,
    });
    const newPassword = 'a-new-long-password';
    expect((await client(a).post('/api-node/change-password', { newPassword }, verified.body.resetToken)).status).toBe(
      200,
    );
    expect((await login(b, '203.0.113.7', owner.email, newPassword)).status).toBe(200);
  });

  it('exempts on every instance an address the owner signed in from on one', async () => {
    const owner = await signUp(client(a));
    expect((await login(a, '203.0.113.20', owner.email, owner.password)).status).toBe(200);
    const attack: number[] = [];
    for (let i = 0; i < 16; i++) {
      attack.push((await login(i % 2 ? a : b, `198.51.100.${i}`, owner.email, 'wrong-password')).status);
    }
    // 15 failures per account from addresses it does not know, counted together by both instances.
    expect(attack).toEqual([...Array(15).fill(401), 429]);
    const unknown = await login(a, '198.51.100.200', owner.email, owner.password);
    expect(unknown.status).toBe(429);
    expect(Number(unknown.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
    expect((await login(b, '203.0.113.20', owner.email, owner.password)).status).toBe(200);
  });
});
