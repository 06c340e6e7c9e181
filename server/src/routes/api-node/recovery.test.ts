import { createServer, type Server } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, TEST_DATABASES, type TestServer } from '../../testing/index.ts';
import { client, mailedCode, signUp, type Client } from '../../testing/accounts.ts';

const SENT = 'If an account exists for this address, a verification code has been sent.';
const INCORRECT = 'Incorrect verification code. Please try again.';

describe.each(TEST_DATABASES)('password recovery and change on %s', (database) => {
  let server: TestServer;
  let api: Client;
  beforeAll(async () => {
    server = await startTestServer({}, { database });
    api = client(server);
  });
  afterAll(() => server.close());

  it('answers the same for known and unknown addresses and files the code in the outbox', async () => {
    const me = await signUp(api);
    const known = await api.post('/api-node/forgot-password', { email: me.email.toUpperCase() });
    const unknown = await api.post('/api-node/forgot-password', { email: 'nobody@example.org' });
    expect(known).toMatchObject({ status: 200, body: { message: SENT } });
    expect(unknown).toMatchObject({ status: 200, body: { message: SENT } });
    const mail = await mailedCode(server, me.email);
    expect(mail?.file).toMatch(/^\d{4}-\d\d-\d\dT\d\d-\d\d-\d\d\.\d{3}Z-/);
    expect(await mailedCode(server, 'nobody@example.org')).toBeNull();
    // Only a hash is stored.
    const rows = await server.ctx.db.selectFrom('password_resets').select('code_hash').execute();
    expect(rows.map((r) => r.code_hash)).not.toContain(mail!.code);
    expect((await api.post('/api-node/forgot-password', { email: '  ' })).status).toBe(400);
  });

  it('exchanges the code for a single-use reset token that sets a new password', async () => {
    const me = await signUp(api);
    await api.post('/api-node/forgot-password', { email: me.email });
    const { code } = (await mailedCode(server, me.email))!;
    const wrong = await api.post('/api-node/verify-code', {
      email: me.email,
      code: code === '000000' ? '111111' : '000000',
    });
    expect(wrong).toMatchObject({ status: 400, body: { error: INCORRECT } });
    const ok = await api.post<{ resetToken: string }>('/api-node/verify-code', { email: me.email, code });
    expect(ok.status).toBe(200);
    const { resetToken } = ok.body;
    expect(typeof resetToken).toBe('string');
    // The code is spent once it has been used.
    expect((await api.post('/api-node/verify-code', { email: me.email, code })).status).toBe(400);

    const short = await api.post('/api-node/change-password', { newPassword: 'short' }, resetToken);
    expect(short).toMatchObject({ status: 400, body: { error: 'Password must be at least 8 characters' } });
    const changed = await api.post('/api-node/change-password', { newPassword: 'a-brand-new-pass' }, resetToken);
    expect(changed).toMatchObject({ status: 200, body: { message: 'Password updated successfully' } });
    const again = await api.post('/api-node/change-password', { newPassword: 'yet-another-pass' }, resetToken);
    expect(again.status).toBe(401);

    expect((await api.post('/api-node/login', { email: me.email, password: me.password })).status).toBe(401);
    expect((await api.post('/api-node/login', { email: me.email, password: 'a-brand-new-pass' })).status).toBe(200);
    // Sessions from before the reset are gone, access tokens included.
    expect((await api.post('/api-node/refresh', { refreshToken: me.refreshToken })).status).toBe(401);
    expect((await api.get('/api-node/protected', me.accessToken)).status).toBe(401);
  });

  it('revokes the API keys of the account on a password reset', async () => {
    const me = await signUp(api);
    const key = await api.post<{ id: number }>('/api-node/api-keys', { name: 'server' }, me.accessToken);
    expect(key.status).toBe(201);
    await api.post('/api-node/forgot-password', { email: me.email });
    const { code } = (await mailedCode(server, me.email))!;
    const { resetToken } = (await api.post<{ resetToken: string }>('/api-node/verify-code', { email: me.email, code }))
      .body;
    const changed = await api.post('/api-node/change-password', { newPassword: 'a-brand-new-pass' }, resetToken);
    expect(changed.status).toBe(200);
    const login = await api.post<{ accessToken: string }>('/api-node/login', {
      email: me.email,
      password: 'a-brand-new-pass',
    });
    const keys = await api.get<{ id: number; revoked_at: string | null }[]>(
      '/api-node/api-keys',
      login.body.accessToken,
    );
    expect(keys.body.find((k) => k.id === key.body.id)?.revoked_at).toEqual(expect.any(String));
  });

  it('kills the code after 5 wrong attempts and refuses expired codes', async () => {
    const me = await signUp(api);
    await api.post('/api-node/forgot-password', { email: me.email });
    const { code } = (await mailedCode(server, me.email))!;
    const wrongCode = String((Number(code) + 1) % 1_000_000).padStart(6, '0');
    for (let i = 0; i < 5; i++) {
      expect((await api.post('/api-node/verify-code', { email: me.email, code: wrongCode })).body).toEqual({
        error: INCORRECT,
      });
    }
    expect((await api.post('/api-node/verify-code', { email: me.email, code })).status).toBe(400);

    // A new request makes a new code; an expired one fails.
    await new Promise((r) => setTimeout(r, 5));
    await api.post('/api-node/forgot-password', { email: me.email });
    const fresh = (await mailedCode(server, me.email))!;
    await server.ctx.db
      .updateTable('password_resets')
      .set({ code_expires_at: new Date(Date.now() - 1000).toISOString() })
      .where('user_id', '=', (await userId(server, me.username))!)
      .execute();
    expect((await api.post('/api-node/verify-code', { email: me.email, code: fresh.code })).status).toBe(400);
    expect((await api.post('/api-node/verify-code', { email: 'nobody@example.org', code })).body).toEqual({
      error: INCORRECT,
    });
  });

  it('changes the password of a signed-in user who knows the current one, keeping only this session', async () => {
    const me = await signUp(api);
    const other = await api.post<{ accessToken: string; refreshToken: string }>('/api-node/login', {
      email: me.username,
      password: me.password,
    });
    const wrong = await api.post(
      '/api-node/change-password',
      { currentPassword: 'not-it-at-all', newPassword: 'new-password-1' },
      me.accessToken,
    );
    expect(wrong).toMatchObject({ status: 400, body: { error: 'Current password is incorrect' } });
    const missing = await api.post('/api-node/change-password', { newPassword: 'new-password-1' }, me.accessToken);
    expect(missing.status).toBe(400);
    const ok = await api.post(
      '/api-node/change-password',
      { currentPassword: me.password, newPassword: 'new-password-1' },
      me.accessToken,
    );
    expect(ok).toMatchObject({ status: 200, body: { message: 'Password updated successfully' } });
    // The other sign-in is over; this one continues through its refresh token.
    expect((await api.post('/api-node/refresh', { refreshToken: other.body.refreshToken })).status).toBe(401);
    expect((await api.get('/api-node/protected', other.body.accessToken)).status).toBe(401);
    expect((await api.get('/api-node/protected', me.accessToken)).status).toBe(401);
    const renewed = await api.post<{ accessToken: string }>('/api-node/refresh', { refreshToken: me.refreshToken });
    expect(renewed.status).toBe(200);
    expect((await api.get('/api-node/protected', renewed.body.accessToken)).status).toBe(200);
    expect((await api.post('/api-node/login', { email: me.username, password: 'new-password-1' })).status).toBe(200);
    expect((await api.post('/api-node/change-password', { newPassword: 'new-password-2' })).status).toBe(401);
    expect(
      (await api.post('/api-node/change-password', { newPassword: 'new-password-2' }, 'rst_forged-token')).status,
    ).toBe(401);
  });
});

async function userId(server: TestServer, username: string) {
  const row = await server.ctx.db.selectFrom('users').select('id').where('username', '=', username).executeTakeFirst();
  return row?.id;
}

/** A minimal SMTP server that keeps what it receives. */
function fakeSmtp(): Promise<{ server: Server; port: number; messages: string[] }> {
  const messages: string[] = [];
  const server = createServer((socket) => {
    let buffer = '';
    let inData = false;
    socket.write('220 localhost ESMTP test\r\n');
    socket.on('data', (chunk) => {
      buffer += chunk.toString('utf8');
      for (;;) {
        if (inData) {
          const end = buffer.indexOf('\r\n.\r\n');
          if (end < 0) return;
          messages.push(buffer.slice(0, end));
          buffer = buffer.slice(end + 5);
          inData = false;
          socket.write('250 OK queued\r\n');
          continue;
        }
        const nl = buffer.indexOf('\r\n');
        if (nl < 0) return;
        const line = buffer.slice(0, nl).toUpperCase();
        buffer = buffer.slice(nl + 2);
        if (line.startsWith('EHLO')) socket.write('250-localhost\r\n250 8BITMIME\r\n');
        else if (line.startsWith('DATA')) {
          inData = true;
          socket.write('354 go ahead\r\n');
        } else if (line.startsWith('QUIT')) socket.end('221 bye\r\n');
        else socket.write('250 OK\r\n');
      }
    });
  });
  return new Promise((resolve) =>
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      resolve({ server, port: typeof address === 'object' && address ? address.port : 0, messages });
    }),
  );
}

describe('password recovery mail over SMTP', () => {
  it('sends the code through SMTP_URL and files nothing in the outbox', async () => {
    const smtp = await fakeSmtp();
    const server = await startTestServer({
      smtpUrl: `smtp://127.0.0.1:${smtp.port}`,
      mailFrom: 'Mango <m@example.org>',
    });
    try {
      const api = client(server);
      const me = await signUp(api);
      expect((await api.post('/api-node/forgot-password', { email: me.email })).body).toEqual({ message: SENT });
      for (let i = 0; i < 100 && smtp.messages.length === 0; i++) await new Promise((r) => setTimeout(r, 50));
      expect(smtp.messages).toHaveLength(1);
      expect(smtp.messages[0]).toContain(`To: ${me.email}`);
      const code = /Verification code: (\d{6})/.exec(smtp.messages[0])?.[1];
      expect(code).toMatch(/^\d{6}$/);
      expect(await mailedCode(server, me.email)).toBeNull();
      expect((await api.post('/api-node/verify-code', { email: me.email, code })).status).toBe(200);
    } finally {
      await server.close();
      smtp.server.close();
    }
  });
});
