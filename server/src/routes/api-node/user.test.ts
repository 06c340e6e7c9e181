import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { HistoryRecord } from '@mango/core';
import { startTestServer, TEST_DATABASES, type TestServer } from '../../testing/index.ts';
import { client, newUser, signUp, type Client, type SignedIn } from './testing.ts';

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

  it('updates name, e-mail, phone and country with validation', async () => {
    const update = { name: 'Alice A.', email: `New.${alice.email}`, phone: '+66 (0)2-123 4567', country: 'Thailand' };
    const res = await api.put('/api-node/user/profile', update, alice.accessToken);
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      message: 'Profile updated successfully',
      profile: { ...update, email: update.email.toLowerCase(), organization: 'Alice Farms', username: alice.username },
    });
    // Signing in with the new e-mail works.
    expect((await api.post('/api-node/login', { email: update.email, password: alice.password })).status).toBe(200);

    const blank = await api.put('/api-node/user/profile', { ...update, name: '  ' }, alice.accessToken);
    expect(blank.status).toBe(400);
    expect(blank.body).toMatchObject({ error: expect.stringContaining('name'), details: [{ path: 'name' }] });
    const badPhone = await api.put('/api-node/user/profile', { ...update, phone: 'call me' }, alice.accessToken);
    expect(badPhone.status).toBe(400);
    const badEmail = await api.put('/api-node/user/profile', { ...update, email: 'nope' }, alice.accessToken);
    expect(badEmail.status).toBe(400);
    const taken = await api.put('/api-node/user/profile', { ...update, email: bob.email }, alice.accessToken);
    expect(taken).toMatchObject({ status: 409, body: { error: 'Email is already registered' } });
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
