import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { decodeJwt, SignJWT } from 'jose';
import { startTestServer, TEST_DATABASES, type TestServer } from '../../testing/index.ts';
import { securityState } from '../../security/state.ts';
import { client, newUser, signUp, type Client } from '../../testing/accounts.ts';

describe.each(TEST_DATABASES)('accounts on %s', (database) => {
  let server: TestServer;
  let api: Client;
  beforeAll(async () => {
    server = await startTestServer({}, { database });
    api = client(server);
  });
  afterAll(() => server.close());

  it('registers an account and refuses a taken username or e-mail, naming the field', async () => {
    const user = newUser('Orchard Co');
    const reg = await api.post('/api-node/register', { ...user, email: user.email.toUpperCase() });
    expect(reg.status).toBe(201);
    expect(reg.body).toEqual({
      message: 'User registered successfully',
      user: { username: user.username, email: user.email, organization: 'Orchard Co' },
    });
    const sameName = await api.post('/api-node/register', { ...newUser(), username: user.username.toUpperCase() });
    expect(sameName.status).toBe(409);
    expect(sameName.body).toMatchObject({ error: 'Username is already taken', details: { field: 'username' } });
    const sameEmail = await api.post('/api-node/register', { ...newUser(), email: user.email });
    expect(sameEmail.status).toBe(409);
    expect(sameEmail.body).toMatchObject({ error: 'Email is already registered', details: { field: 'email' } });
  });

  it('refuses weak passwords and malformed bodies with 400', async () => {
    const weak = await api.post('/api-node/register', { ...newUser(), password: 'short' });
    expect(weak.status).toBe(400);
    expect(weak.body.error).toBe('Password must be at least 8 characters');
    const bad = await api.post('/api-node/register', { username: 'x', email: 'not-an-email' });
    expect(bad.status).toBe(400);
    expect(bad.body.error).toEqual(expect.any(String));
    expect((bad.body.details as { path: string }[]).map((d) => d.path)).toEqual(
      expect.arrayContaining(['username', 'email', 'organization', 'password']),
    );
    const notJson = await api.call('POST', '/api-node/register', { body: '{"username":', headers: {} });
    expect(notJson.status).toBe(400);
    expect(notJson.body).toEqual({ error: 'The request body must be JSON' });
  });

  it('signs in with the username, the e-mail (any case) or the username alias field', async () => {
    const user = newUser();
    await api.post('/api-node/register', user);
    for (const body of [
      { email: user.username, password: user.password },
      { email: user.email.toUpperCase(), password: user.password },
      { username: user.username, password: user.password },
    ]) {
      const res = await api.post('/api-node/login', body);
      expect(res.status).toBe(200);
      const claims = decodeJwt(res.body.accessToken as string);
      expect(claims).toMatchObject({ username: user.username, typ: 'access', sub: expect.stringMatching(/^\d+$/) });
      expect((claims.exp as number) - (claims.iat as number)).toBe(15 * 60);
      expect(res.body.refreshToken).toMatch(/^[\w-]{43}$/);
    }
  });

  it('answers a wrong password and an unknown account identically', async () => {
    const user = newUser();
    await api.post('/api-node/register', user);
    const wrong = await api.post('/api-node/login', { email: user.username, password: 'not-the-password' });
    const unknown = await api.post('/api-node/login', { email: 'nobody_here', password: 'not-the-password' });
    const unknownMail = await api.post('/api-node/login', { email: 'nobody@example.org', password: 'x' });
    for (const res of [wrong, unknown, unknownMail]) {
      expect(res.status).toBe(401);
      expect(res.body).toEqual({ error: 'Invalid username/email or password' });
    }
  });

  it('refuses over-long sign-in fields before they reach the rate limiter', async () => {
    // On SQLite the counts are in memory: the keys they hold must not grow with such requests (on
    // PostgreSQL they are rows of `rate_limits`, which has no size here).
    const counters = securityState(server.ctx).counters;
    const before = counters.size ?? 0;
    for (let i = 0; i < 20; i++) {
      const res = await api.post('/api-node/login', { email: `${'a'.repeat(60_000)}${i}@x.org`, password: 'x' });
      expect(res.status).toBe(400);
      expect(res.body).toMatchObject({ details: [{ path: 'email' }] });
    }
    expect((counters.size ?? 0) - before).toBeLessThanOrEqual(1);
    const longName = await api.post('/api-node/login', { username: 'u'.repeat(255), password: 'x' });
    expect(longName.status).toBe(400);
  });

  it('rotates refresh tokens and revokes the whole sign-in when a used one comes back', async () => {
    const me = await signUp(api);
    const first = await api.post('/api-node/refresh', { refreshToken: me.refreshToken });
    expect(first.status).toBe(200);
    expect(first.body.refreshToken).not.toBe(me.refreshToken);
    expect((await api.get('/api-node/protected', first.body.accessToken as string)).status).toBe(200);
    // The old token was revoked by the rotation: presenting it again after the grace window of a
    // concurrent refresh is treated as theft.
    await rotatedLongAgo(me.refreshToken);
    const replay = await api.post('/api-node/refresh', { refreshToken: me.refreshToken });
    expect(replay.status).toBe(401);
    const afterTheft = await api.post('/api-node/refresh', { refreshToken: first.body.refreshToken });
    expect(afterTheft.status).toBe(401);
    // Stored hashed, never in clear.
    const stored = await server.ctx.db.selectFrom('refresh_tokens').select('token_hash').execute();
    expect(stored.map((r) => r.token_hash)).not.toContain(me.refreshToken);
    expect(stored.every((r) => /^[0-9a-f]{64}$/.test(r.token_hash))).toBe(true);
  });

  it('keeps the session when two tabs refresh the same token at once', async () => {
    const me = await signUp(api);
    type Pair = { accessToken: string; refreshToken: string };
    const [a, b] = await Promise.all([
      api.post<Pair>('/api-node/refresh', { refreshToken: me.refreshToken }),
      api.post<Pair>('/api-node/refresh', { refreshToken: me.refreshToken }),
    ]);
    expect([a.status, b.status]).toEqual([200, 200]);
    // A third tab a moment later (the first two have finished) is still a concurrent refresh.
    const c = await api.post<Pair>('/api-node/refresh', { refreshToken: me.refreshToken });
    expect(c.status).toBe(200);
    for (const pair of [a.body, b.body, c.body]) {
      expect((await api.get('/api-node/protected', pair.accessToken)).status).toBe(200);
      const next = await api.post<Pair>('/api-node/refresh', { refreshToken: pair.refreshToken });
      expect(next.status).toBe(200);
      expect((await api.get('/api-node/protected', next.body.accessToken)).status).toBe(200);
    }
    // After a logout of the sign-in's live tokens the rotated one gives nothing, even within the window.
    const you = await signUp(api);
    const rotated = await api.post<Pair>('/api-node/refresh', { refreshToken: you.refreshToken });
    await api.post('/api-node/logout', { refreshToken: rotated.body.refreshToken });
    expect((await api.post('/api-node/refresh', { refreshToken: you.refreshToken })).status).toBe(401);
  });

  /** Moves the revocation of a rotated token past the grace window of a concurrent refresh. */
  async function rotatedLongAgo(refreshToken: string) {
    await server.ctx.db
      .updateTable('refresh_tokens')
      .set({ revoked_at: new Date(Date.now() - 60_000).toISOString() })
      .where('token_hash', '=', await sha256(refreshToken))
      .execute();
  }

  it('refuses an expired refresh token and one from another sign-in is unaffected by a theft', async () => {
    const me = await signUp(api);
    const second = await api.post<{ refreshToken: string }>('/api-node/login', {
      email: me.email,
      password: me.password,
    });
    await server.ctx.db
      .updateTable('refresh_tokens')
      .set({ expires_at: new Date(Date.now() - 1000).toISOString() })
      .where('token_hash', '=', await sha256(me.refreshToken))
      .execute();
    expect((await api.post('/api-node/refresh', { refreshToken: me.refreshToken })).status).toBe(401);
    expect((await api.post('/api-node/refresh', { refreshToken: second.body.refreshToken })).status).toBe(200);
  });

  it('logs out by revoking the refresh token', async () => {
    const me = await signUp(api);
    const out = await api.post('/api-node/logout', { refreshToken: me.refreshToken });
    expect(out).toMatchObject({ status: 200, body: { message: 'Logged out successfully' } });
    expect((await api.post('/api-node/refresh', { refreshToken: me.refreshToken })).status).toBe(401);
    expect((await api.post('/api-node/logout', { refreshToken: 'unknown' })).status).toBe(200);
    expect((await api.post('/api-node/logout', {})).status).toBe(400);
  });

  it('ends the access token of a sign-in at once on logout or when its family is revoked', async () => {
    const me = await signUp(api);
    const other = await api.post<{ accessToken: string }>('/api-node/login', {
      email: me.email,
      password: me.password,
    });
    expect((await api.get('/api-node/protected', me.accessToken)).status).toBe(200);
    await api.post('/api-node/logout', { refreshToken: me.refreshToken });
    expect(await api.get('/api-node/protected', me.accessToken)).toMatchObject({
      status: 401,
      body: { error: 'Invalid or expired token' },
    });
    expect((await api.get('/api-node/user/profile', me.accessToken)).status).toBe(401);
    // The other sign-in goes on.
    expect((await api.get('/api-node/protected', other.body.accessToken)).status).toBe(200);

    // A refresh token presented twice revokes its family: the access tokens of that sign-in stop too.
    const you = await signUp(api);
    const next = await api.post<{ accessToken: string }>('/api-node/refresh', { refreshToken: you.refreshToken });
    expect((await api.get('/api-node/protected', next.body.accessToken)).status).toBe(200);
    await rotatedLongAgo(you.refreshToken);
    expect((await api.post('/api-node/refresh', { refreshToken: you.refreshToken })).status).toBe(401);
    expect((await api.get('/api-node/protected', next.body.accessToken)).status).toBe(401);
  });

  it('refuses an access token without an expiry', async () => {
    const me = await signUp(api);
    const claims = decodeJwt(me.accessToken);
    const forever = await new SignJWT({ username: claims.username, typ: 'access', ver: claims.ver, fam: claims.fam })
      .setProtectedHeader({ alg: 'HS256', typ: 'JWT' })
      .setSubject(claims.sub!)
      .setIssuedAt()
      .sign(server.ctx.jwtKey);
    expect(await api.get('/api-node/protected', forever)).toMatchObject({
      status: 401,
      body: { error: 'Invalid or expired token' },
    });
  });

  it('greets the holder of a valid access token on /protected', async () => {
    const me = await signUp(api);
    expect(await api.get('/api-node/protected', me.accessToken)).toMatchObject({
      status: 200,
      body: { message: `Hello ${me.username}, your token is valid` },
    });
    expect((await api.get('/api-node/protected')).status).toBe(401);
    expect((await api.get('/api-node/protected', 'garbage')).body).toEqual({ error: 'Invalid or expired token' });
  });
});

async function sha256(s: string) {
  const { createHash } = await import('node:crypto');
  return createHash('sha256').update(s).digest('hex');
}
