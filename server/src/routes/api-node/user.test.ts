import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { HistoryRecord } from '@mango/core';
import { startTestServer, TEST_DATABASES, type TestServer } from '../../testing/index.ts';
import { client, newUser, outbox, outboxCode, signUp, type Client, type SignedIn } from '../../testing/accounts.ts';

describe.each(TEST_DATABASES)('user profile, history and actions on %s', (database) => {
  let server: TestServer;
  let api: Client;
  let alice: SignedIn;
  let bob: SignedIn;
  beforeAll(async () => {
    server = await startTestServer({}, { database });
    api = client(server);
    alice = await signUp(api, 'Alice Farms');
    bob = await signUp(api, 'Bob Exports');
  });
  afterAll(() => server.close());

  it('returns the profile of the signed-in user only', async () => {
    const res = await api.get('/api-node/user/profile', alice.accessToken);
    expect(res).toMatchObject({
      status: 200,
      body: {
        name: '',
        email: alice.email,
        phone: '',
        country: '',
        organization: 'Alice Farms',
        username: alice.username,
      },
    });
    expect((await api.get('/api-node/user/profile')).status).toBe(401);
  });

  it('updates name, phone and country with validation; the same e-mail in any case needs nothing more', async () => {
    const update = {
      name: 'Alice A.',
      email: alice.email.toUpperCase(),
      phone: '+66 (0)2-123 4567',
      country: 'Thailand',
    };
    const res = await api.put('/api-node/user/profile', update, alice.accessToken);
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      message: 'Profile updated successfully',
      profile: { ...update, email: alice.email, organization: 'Alice Farms', username: alice.username },
    });
    expect((await api.post('/api-node/login', { email: alice.email, password: alice.password })).status).toBe(200);

    const blank = await api.put('/api-node/user/profile', { ...update, name: '  ' }, alice.accessToken);
    expect(blank.status).toBe(400);
    expect(blank.body).toMatchObject({ error: expect.stringContaining('name'), details: [{ path: 'name' }] });
    const badPhone = await api.put('/api-node/user/profile', { ...update, phone: 'call me' }, alice.accessToken);
    expect(badPhone.status).toBe(400);
    const badEmail = await api.put('/api-node/user/profile', { ...update, email: 'nope' }, alice.accessToken);
    expect(badEmail.status).toBe(400);
  });

  it('changes the e-mail only with the current password and the code sent to the new address', async () => {
    const me = await signUp(api, 'Takeover Target');
    const attacker = `Thief.${me.username}@example.net`;
    const fields = { name: 'Me', email: attacker, phone: '0812345678', country: 'Thailand' };
    // An access token alone is not enough.
    const noPassword = await api.put('/api-node/user/profile', fields, me.accessToken);
    expect(noPassword).toMatchObject({
      status: 400,
      body: { error: 'Current password is required to change the email', details: [{ path: 'currentPassword' }] },
    });
    const wrong = await api.put('/api-node/user/profile', { ...fields, currentPassword: 'not-it' }, me.accessToken);
    expect(wrong).toMatchObject({ status: 400, body: { error: 'Current password is incorrect' } });
    expect((await api.get('/api-node/user/profile', me.accessToken)).body).toMatchObject({ email: me.email });

    const asked = await api.put('/api-node/user/profile', { ...fields, currentPassword: me.password }, me.accessToken);
    expect(asked.status).toBe(200);
    expect(asked.body).toEqual({
      message: 'Profile updated. Enter the verification code sent to the new email address to confirm the change.',
      profile: { ...fields, email: me.email, organization: 'Takeover Target', username: me.username },
      pendingEmail: attacker.toLowerCase(),
    });
    // Not confirmed yet: recovery still goes to the old address only, and sign-in with the new one fails.
    await api.post('/api-node/forgot-password', { email: attacker });
    expect(outbox(server, attacker.toLowerCase())).toHaveLength(1);
    const mailed = outboxCode(server, attacker.toLowerCase())!;
    expect(mailed.text).toContain('Subject: Confirm your new Mango Bruise Tracker e-mail address');
    expect(outbox(server, me.email)[0].text).toContain(`change its e-mail address to ${attacker.toLowerCase()}`);
    expect((await api.post('/api-node/login', { email: attacker, password: me.password })).status).toBe(401);

    const wrongCode = String((Number(mailed.code) + 1) % 1_000_000).padStart(6, '0');
    const bad = await api.post('/api-node/user/email/confirm', { code: wrongCode }, me.accessToken);
    expect(bad).toMatchObject({ status: 400, body: { error: 'Incorrect verification code. Please try again.' } });
    expect((await api.post('/api-node/user/email/confirm', { code: mailed.code })).status).toBe(401);
    const ok = await api.post('/api-node/user/email/confirm', { code: mailed.code }, me.accessToken);
    expect(ok).toMatchObject({
      status: 200,
      body: { message: 'Profile updated successfully', profile: { email: attacker.toLowerCase() } },
    });
    // The code is spent; the old address is told; sign-in and recovery use the new address.
    expect((await api.post('/api-node/user/email/confirm', { code: mailed.code }, me.accessToken)).status).toBe(400);
    expect(outbox(server, me.email)[0].text).toContain(`is now ${attacker.toLowerCase()}`);
    expect((await api.post('/api-node/login', { email: attacker, password: me.password })).status).toBe(200);
    expect((await api.post('/api-node/login', { email: me.email, password: me.password })).status).toBe(401);
  });

  it('answers a taken address exactly like a free one and sends it no code', async () => {
    const me = await signUp(api);
    const fields = { name: 'Me', phone: '0812345678', country: 'Thailand', currentPassword: me.password };
    const free = `free.${me.username}@example.org`;
    const toFree = await api.put('/api-node/user/profile', { ...fields, email: free }, me.accessToken);
    const toTaken = await api.put('/api-node/user/profile', { ...fields, email: bob.email }, me.accessToken);
    expect(toTaken.status).toBe(toFree.status);
    expect(toTaken.body).toEqual({ ...toFree.body, pendingEmail: bob.email });
    expect(outbox(server, bob.email)).toEqual([]);
    expect(outboxCode(server, free)).not.toBeNull();
    // Bob is untouched.
    expect((await api.get('/api-node/user/profile', bob.accessToken)).body).toMatchObject({ email: bob.email });
  });

  it("logs actions and lists only the user's own history, newest first", async () => {
    const ops = ['Resize', 'Crop', 'Features Analysis: rgb,glcm', 'Bruised Area Calculation'];
    for (const operationType of ops) {
      const res = await api.post('/api-node/user/action', { operationType }, alice.accessToken);
      expect(res).toMatchObject({ status: 201, body: { message: expect.any(String) } });
    }
    await api.post('/api-node/user/action', { operationType: 'Logout' }, bob.accessToken);
    const res = await api.get<unknown[]>('/api-node/user/history', alice.accessToken);
    expect(res.status).toBe(200);
    const records = res.body.map((r) => HistoryRecord.parse(r));
    expect(records.map((r) => r.operation_type)).toEqual([...ops].reverse());
    for (const r of records) {
      expect(r).toMatchObject({ username: alice.username, organization: 'Alice Farms' });
      expect(new Date(r.time_stamp).toISOString()).toBe(r.time_stamp);
    }
    const bobs = await api.get<{ operation_type: string }[]>('/api-node/user/history', bob.accessToken);
    expect(bobs.body.map((r) => r.operation_type)).toEqual(['Logout']);
  });

  it('refuses unknown operation types and unauthenticated calls', async () => {
    const bad = await api.post('/api-node/user/action', { operationType: 'Format Disk' }, alice.accessToken);
    expect(bad.status).toBe(400);
    expect(bad.body.details).toEqual([{ path: 'operationType', message: 'unknown operationType' }]);
    expect((await api.post('/api-node/user/action', { operationType: 'Resize' })).status).toBe(401);
    expect((await api.get('/api-node/user/history')).status).toBe(401);
  });

  it('gives a new account an empty history', async () => {
    const carol = await signUp(api, newUser().organization);
    expect((await api.get('/api-node/user/history', carol.accessToken)).body).toEqual([]);
  });
});
