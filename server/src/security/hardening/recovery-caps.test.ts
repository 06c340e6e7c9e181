/**
 * Recovery caps through real HTTP (issue 16 item 6, reworked by issue 23): codes and wrong codes are
 * counted per (address, account) and, for addresses that never signed in to the account, per account;
 * a stranger's requests and guesses from many addresses never block the owner's recovery from an
 * address the owner signed in from, nor from a signed-in session. Per client address and day a capped
 * number of requests. Addresses are simulated with X-Forwarded-For (TRUST_PROXY).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, TEST_DATABASES, type TestServer } from '../../testing/index.ts';
import { client, mailedCode, outbox, signUp, type Client } from '../../testing/accounts.ts';

const SENT = { message: 'If an account exists for this address, a verification code has been sent.' };
const INCORRECT = { error: 'Incorrect verification code. Please try again.' };

describe.each(TEST_DATABASES)('recovery caps a stranger cannot use up, on %s', (database) => {
  let server: TestServer;
  let api: Client;
  beforeAll(async () => {
    server = await startTestServer({ trustProxy: true, recoveryPerAddressPerDay: 8 }, { database });
    api = client(server);
  });
  afterAll(() => server.close());

  const from = (address: string, token?: string) => ({
    'x-forwarded-for': address,
    ...(token ? { authorization: `Bearer ${token}` } : {}),
  });
  const forgot = (email: string, address: string, token?: string) =>
    api.call('POST', '/api-node/forgot-password', { body: { email }, headers: from(address, token) });
  const verify = (email: string, code: string, address: string) =>
    api.call<{ resetToken?: string; error?: string }>('POST', '/api-node/verify-code', {
      body: { email, code },
      headers: from(address),
    });
  const wrong = (code: string) => (code === '000000' ? '111111' : '000000');
  const mails = async (email: string) => {
    await mailedCode(server, email);
    return outbox(server, email).length;
  };
  const signIn = (user: { email: string; password: string }, address: string) =>
    api.call<{ accessToken: string }>('POST', '/api-node/login', {
      body: { email: user.email, password: user.password },
      headers: from(address),
    });

  it("does not let a stranger's requests and wrong codes from many addresses block the owner's recovery", async () => {
    const owner = await signUp(api);
    expect((await signIn(owner, '203.0.113.5')).status).toBe(200); // the owner's usual address
    // A stranger asks for codes from 14 addresses and tries wrong codes from 15 more and from its own.
    for (let i = 0; i < 14; i++) expect((await forgot(owner.email, `198.51.100.${i}`)).body).toEqual(SENT);
    // The owner's mailbox gets at most 10 of them (addresses the account does not know, per day).
    expect(await mails(owner.email)).toBe(10);
    for (let i = 0; i < 15; i++) {
      expect((await verify(owner.email, '123456', `198.51.100.${100 + i}`)).body).toEqual(INCORRECT);
    }
    for (let i = 0; i < 6; i++) expect((await verify(owner.email, '123456', '198.51.100.0')).body).toEqual(INCORRECT);

    // The owner, signed in on a phone on a network the account has never seen, still gets a working code.
    const session = await signIn(owner, '203.0.113.5');
    expect((await forgot(owner.email, '192.0.2.99', session.body.accessToken)).body).toEqual(SENT);
    expect(await mails(owner.email)).toBe(11);
    const phone = (await mailedCode(server, owner.email))!.code;
    expect((await verify(owner.email, phone, '192.0.2.99')).status).toBe(200);

    // And from the usual address, signed out.
    expect((await forgot(owner.email, '203.0.113.5')).body).toEqual(SENT);
    expect(await mails(owner.email)).toBe(12);
    const usual = (await mailedCode(server, owner.email))!.code;
    expect((await verify(owner.email, wrong(usual), '203.0.113.5')).body).toEqual(INCORRECT);
    const ok = await verify(owner.email, usual, '203.0.113.5');
    expect(ok.status).toBe(200);
    expect(ok.body.resetToken).toMatch(/^rst_/);
  });

  it("keeps the owner's code alive when others ask for codes or guess after it", async () => {
    const owner = await signUp(api);
    expect((await signIn(owner, '203.0.113.6')).status).toBe(200);
    await forgot(owner.email, '203.0.113.6');
    const code = (await mailedCode(server, owner.email))!.code;
    for (let i = 0; i < 3; i++) await forgot(owner.email, `198.51.100.${200 + i}`);
    for (let i = 0; i < 8; i++) await verify(owner.email, wrong(code), `198.51.100.${210 + i}`);
    expect((await verify(owner.email, code, '203.0.113.6')).status).toBe(200);
  });

  it('makes at most 5 codes per address and account per day; further requests answer the same and mail nothing', async () => {
    const me = await signUp(api);
    for (let i = 0; i < 7; i++) expect((await forgot(me.email, '198.51.100.250')).body).toEqual(SENT);
    expect(await mails(me.email)).toBe(5);
  });

  it('refuses codes and guesses to one address after 10 wrong codes on its codes, not to the owner', async () => {
    const me = await signUp(api);
    expect((await signIn(me, '203.0.113.7')).status).toBe(200);
    const guesser = '198.51.100.251';
    await forgot(me.email, guesser);
    const first = (await mailedCode(server, me.email))!.code;
    for (let i = 0; i < 5; i++) expect((await verify(me.email, wrong(first), guesser)).body).toEqual(INCORRECT);
    await forgot(me.email, guesser);
    const second = (await mailedCode(server, me.email))!.code;
    for (let i = 0; i < 4; i++) expect((await verify(me.email, wrong(second), guesser)).body).toEqual(INCORRECT);
    // 9 wrong so far: a third code is still made; one more wrong code locks this pair for the day.
    await forgot(me.email, guesser);
    const third = (await mailedCode(server, me.email))!.code;
    expect((await verify(me.email, wrong(third), guesser)).body).toEqual(INCORRECT);
    expect(await verify(me.email, third, guesser)).toMatchObject({ status: 400, body: INCORRECT });
    const before = await mails(me.email);
    await forgot(me.email, guesser);
    expect(await mails(me.email)).toBe(before);
    // The owner's address is not affected.
    await forgot(me.email, '203.0.113.7');
    expect(await mails(me.email)).toBe(before + 1);
    const mine = (await mailedCode(server, me.email))!.code;
    expect((await verify(me.email, mine, '203.0.113.7')).status).toBe(200);
  });

  it("counts code checks per account only from outside the owner's side, so strangers cannot fill the minute", async () => {
    const tight = await startTestServer({ trustProxy: true, loginLimitPerMinute: 3 }, { database });
    try {
      const c = client(tight);
      const owner = await signUp(c);
      const call = (path: string, body: object, address: string) =>
        c.call('POST', `/api-node/${path}`, { body, headers: from(address) });
      expect((await call('login', { email: owner.email, password: owner.password }, '203.0.113.8')).status).toBe(200);
      const spread: number[] = [];
      for (let i = 0; i < 5; i++) {
        spread.push((await call('verify-code', { email: owner.email, code: '123456' }, `198.51.100.${40 + i}`)).status);
      }
      expect(spread).toEqual([400, 400, 400, 429, 429]);
      expect((await call('forgot-password', { email: owner.email }, '203.0.113.8')).status).toBe(200);
      await mailedCode(tight, owner.email);
      const code = outbox(tight, owner.email).map((m) => /^Verification code: (\d{6})$/m.exec(m.text)?.[1])[0]!;
      expect((await call('verify-code', { email: owner.email, code }, '203.0.113.8')).status).toBe(200);
    } finally {
      await tight.close();
    }
  });

  it('caps recovery requests per client address per day (RECOVERY_PER_ADDRESS_PER_DAY) with 429 and Retry-After', async () => {
    const statuses: number[] = [];
    for (let i = 0; i < 9; i++) statuses.push((await forgot(`x${i}@example.org`, '203.0.113.77')).status);
    expect(statuses).toEqual([...Array(8).fill(200), 429]);
    const refused = await forgot('y@example.org', '203.0.113.77');
    expect(refused.body.error).toMatch(/^Too many attempts/);
    expect(Number(refused.headers.get('retry-after'))).toBeGreaterThan(86_000);
    expect((await forgot('y@example.org', '203.0.113.78')).status).toBe(200);
  });
});
