/**
 * Issue 16 item 5, through real HTTP: only failed sign-ins count; a strict limit per (account,
 * address) and a looser one per account that exempts addresses the owner signed in from before;
 * username and e-mail count as one account; a password reset clears the failures.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../../testing/index.ts';
import { client, mailedCode, signUp, type Client, type SignedIn } from '../../testing/accounts.ts';

describe('issue 16 item 5: sign-in throttles', () => {
  // LOGIN_LIMIT_PER_MINUTE 3: 3 failures per (account, address), 9 per address, 15 per account.
  let server: TestServer;
  let api: Client;
  let owner: SignedIn;
  beforeEach(async () => {
    server = await startTestServer({ loginLimitPerMinute: 3, trustProxy: true });
    api = client(server);
    owner = await signUp(api);
  });
  afterEach(() => server.close());

  const login = async (address: string, email: string, password: string) =>
    (await api.call('POST', '/api-node/login', { body: { email, password }, headers: { 'x-forwarded-for': address } }))
      .status;

  it('counts failures only: the owner signs in as often as they like', async () => {
    const statuses: number[] = [];
    for (let i = 0; i < 8; i++) statuses.push(await login('203.0.113.1', owner.username, owner.password));
    expect(statuses).toEqual(Array(8).fill(200));
  });

  it('wrong passwords from many addresses do not lock the owner out of an address they used before', async () => {
    expect(await login('203.0.113.1', owner.email, owner.password)).toBe(200);
    const attack: number[] = [];
    for (let i = 0; i < 16; i++) attack.push(await login(`198.51.100.${i}`, owner.email, 'wrong-password'));
    // 15 failures per account from addresses it does not know, then refused.
    expect(attack).toEqual([...Array(15).fill(401), 429]);
    expect(await login('198.51.100.200', owner.email, owner.password)).toBe(429);
    expect(await login('203.0.113.1', owner.email, owner.password)).toBe(200);
  });

  it('counts guesses sent in parallel before their passwords are checked: 10 at once, 3 get an answer', async () => {
    const statuses = await Promise.all(
      Array.from({ length: 10 }, () => login('203.0.113.77', owner.username, 'wrong-password')),
    );
    expect(statuses.filter((s) => s === 401)).toHaveLength(3);
    expect(statuses.filter((s) => s === 429)).toHaveLength(7);
  });

  it('counts username and e-mail as one account', async () => {
    const statuses: number[] = [];
    for (let i = 0; i < 16; i++) {
      statuses.push(await login(`198.51.100.${i}`, i % 2 ? owner.email : owner.username.toUpperCase(), 'wrong'));
    }
    expect(statuses).toEqual([...Array(15).fill(401), 429]);
  });

  it('limits one address guessing one account strictly, and lets the owner in right after a password reset', async () => {
    const statuses: number[] = [];
    for (let i = 0; i < 3; i++) statuses.push(await login('203.0.113.9', owner.username, 'wrong-password'));
    expect(statuses).toEqual([401, 401, 401]);
    expect(await login('203.0.113.9', owner.username, owner.password)).toBe(429);
    expect(await login('203.0.113.10', owner.username, owner.password)).toBe(200);

    expect((await api.post('/api-node/forgot-password', { email: owner.email })).status).toBe(200);
    const { code } = (await mailedCode(server, owner.email))!;
    const verified = await api.post<{ resetToken: string }>('/api-node/verify-code', { email: owner.email, code });
    expect(verified.status).toBe(200);
    const newPassword = 'a-new-long-password';
    const changed = await api.post('/api-node/change-password', { newPassword }, verified.body.resetToken);
    expect(changed.status).toBe(200);
    expect(await login('203.0.113.9', owner.username, newPassword)).toBe(200);
  });
});
