/**
 * Issue 16 item 6, through real HTTP: per account and day at most 5 recovery codes and 10 wrong
 * codes (then every code is refused), and per client address and day a capped number of requests.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, TEST_DATABASES, type TestServer } from '../../testing/index.ts';
import { client, mailedCode, outbox, signUp, type Client } from '../../routes/api-node/testing.ts';

const SENT = { message: 'If an account exists for this address, a verification code has been sent.' };
const INCORRECT = { error: 'Incorrect verification code. Please try again.' };

describe.each(TEST_DATABASES)('issue 16 item 6: recovery caps and locks on %s', (database) => {
  let server: TestServer;
  let api: Client;
  beforeAll(async () => {
    server = await startTestServer({ trustProxy: true, recoveryPerAddressPerDay: 3 }, { database });
    api = client(server);
  });
  afterAll(() => server.close());

  // Each request from its own address: the per-address cap is tested on its own below.
  let n = 0;
  const forgot = (email: string, address = `198.51.100.${n++ % 250}`) =>
    api.call('POST', '/api-node/forgot-password', { body: { email }, headers: { 'x-forwarded-for': address } });
  const verify = (email: string, code: string) => api.post('/api-node/verify-code', { email, code });
  const wrong = (code: string) => (code === '000000' ? '111111' : '000000');

  it('makes at most 5 codes per account per day; further requests answer the same and mail nothing', async () => {
    const me = await signUp(api);
    for (let i = 0; i < 7; i++) expect((await forgot(me.email)).body).toEqual(SENT);
    await mailedCode(server, me.email);
    expect(outbox(server, me.email)).toHaveLength(5);
  });

  it('refuses every code, even the right one, after 10 wrong codes in a day', async () => {
    const me = await signUp(api);
    await forgot(me.email);
    const first = (await mailedCode(server, me.email))!.code;
    for (let i = 0; i < 5; i++) expect((await verify(me.email, wrong(first))).body).toEqual(INCORRECT);
    await forgot(me.email);
    const second = (await mailedCode(server, me.email))!.code;
    for (let i = 0; i < 4; i++) expect((await verify(me.email, wrong(second))).body).toEqual(INCORRECT);
    // 9 wrong so far: a third code is still made; one more wrong code locks recovery for the day.
    await forgot(me.email);
    const third = (await mailedCode(server, me.email))!.code;
    expect((await verify(me.email, wrong(third))).body).toEqual(INCORRECT);
    expect(await verify(me.email, third)).toMatchObject({ status: 400, body: INCORRECT });
    await forgot(me.email);
    await mailedCode(server, me.email);
    expect(outbox(server, me.email)).toHaveLength(3);
  });

  it('caps recovery requests per client address per day (RECOVERY_PER_ADDRESS_PER_DAY) with 429 and Retry-After', async () => {
    const statuses: number[] = [];
    for (let i = 0; i < 4; i++) statuses.push((await forgot(`x${i}@example.org`, '203.0.113.77')).status);
    expect(statuses).toEqual([200, 200, 200, 429]);
    const refused = await forgot('y@example.org', '203.0.113.77');
    expect(refused.body.error).toMatch(/^Too many attempts/);
    expect(Number(refused.headers.get('retry-after'))).toBeGreaterThan(86_000);
    expect((await forgot('y@example.org', '203.0.113.78')).status).toBe(200);
  });
});
