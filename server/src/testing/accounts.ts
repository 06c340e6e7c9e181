/**
 * Accounts in tests (and the benchmarks and examples that drive a real server): JSON calls against a
 * running server, unique users, signing up (the one way every test gets a signed-in user), and the
 * verification codes the server mails to its outbox.
 */
import { randomUUID } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { backgroundSettled } from '../background.ts';
import type { ServerContext } from '../context.ts';

/** What these helpers read of a test server (testing/index.ts TestServer): its data directory and context. */
interface MailingServer {
  dataDir: string;
  ctx: ServerContext;
}

export interface JsonAnswer<T = Record<string, unknown>> {
  status: number;
  body: T;
  headers: Headers;
}

/** A response as status, body (its JSON, or its text when it is not JSON) and headers. */
export async function answerOf<T = Record<string, unknown>>(res: Response): Promise<JsonAnswer<T>> {
  const text = await res.text();
  let body: unknown = text;
  try {
    body = JSON.parse(text);
  } catch {
    // not JSON: keep the text
  }
  return { status: res.status, body: body as T, headers: res.headers };
}

export function client(server: { url: string }) {
  async function call<T = Record<string, unknown>>(
    method: string,
    path: string,
    options: { body?: unknown; token?: string; headers?: Record<string, string> } = {},
  ): Promise<JsonAnswer<T>> {
    const headers: Record<string, string> = { ...options.headers };
    if (options.body !== undefined) headers['content-type'] ??= 'application/json';
    if (options.token) headers.authorization = `Bearer ${options.token}`;
    const res = await fetch(server.url + path, {
      method,
      headers,
      body:
        options.body === undefined
          ? undefined
          : typeof options.body === 'string'
            ? options.body
            : JSON.stringify(options.body),
    });
    return answerOf<T>(res);
  }
  return {
    call,
    get: <T = Record<string, unknown>>(path: string, token?: string) => call<T>('GET', path, { token }),
    post: <T = Record<string, unknown>>(path: string, body: unknown, token?: string) =>
      call<T>('POST', path, { body, token }),
    put: <T = Record<string, unknown>>(path: string, body: unknown, token?: string) =>
      call<T>('PUT', path, { body, token }),
    del: <T = Record<string, unknown>>(path: string, token?: string) => call<T>('DELETE', path, { token }),
  };
}

export type Client = ReturnType<typeof client>;

/**
 * Unique credentials (tables are shared between test servers on PostgreSQL); `prefix` starts the
 * username and the address (the browser tests name their users: `alice_...`).
 */
export function newUser(organization = 'Mango Lab', prefix = 'u') {
  const id = randomUUID().replaceAll('-', '').slice(0, 12);
  return {
    username: `${prefix}_${id}`,
    email: `${prefix}_${id}@example.org`,
    organization,
    password: `pw-${id}-secret`,
  };
}

export type NewUser = ReturnType<typeof newUser>;

/** Registers `user` on the server `api` calls (no sign-in). Throws when it is refused. */
export async function register(api: Client, user: NewUser): Promise<void> {
  const reg = await api.post('/api-node/register', user);
  if (reg.status !== 201) throw new Error(`register failed: ${reg.status} ${JSON.stringify(reg.body)}`);
}

/**
 * Registers `user` on the server `api` calls and signs in: the user's credentials with their access
 * and refresh tokens. Throws when either fails. The one sign-up of the tests (the browser tests'
 * `signInViaApi` too, which then hands the tokens to the page).
 */
export async function signUpAs<U extends NewUser>(api: Client, user: U) {
  await register(api, user);
  const login = await api.post<{ accessToken: string; refreshToken: string }>('/api-node/login', {
    email: user.username,
    password: user.password,
  });
  if (login.status !== 200) throw new Error(`login failed: ${login.status} ${JSON.stringify(login.body)}`);
  return { ...user, ...login.body };
}

/** Signs up a fresh user (unique credentials, `organization` or Mango Lab): `signUpAs` of `newUser`. */
export const signUp = (api: Client, organization?: string) => signUpAs(api, newUser(organization));

export type SignedIn = Awaited<ReturnType<typeof signUp>>;

/** A server API key (no Origin; jobs and runs accept it) of the signed-in user `accessToken`. Throws on failure. */
export async function serverApiKey(api: Client, accessToken: string, name = 'scripts'): Promise<string> {
  const created = await api.post<{ key: string }>(
    '/api-node/api-keys',
    { name, kind: 'server', allowedOrigins: [], rateLimitPerMinute: 100 },
    accessToken,
  );
  if (created.status !== 201) throw new Error(`API key failed: ${created.status} ${JSON.stringify(created.body)}`);
  return created.body.key;
}

/** The newest outbox message to `to` with a verification code in it, and the code. */
export function outboxCode(server: MailingServer, to: string): { file: string; code: string; text: string } | null {
  for (const { file, text } of outbox(server, to)) {
    const code = /^Verification code: (\d{6})$/m.exec(text)?.[1];
    if (code) return { file, code, text };
  }
  return null;
}

/** outboxCode once the mail work started after earlier answers is done. */
export async function mailedCode(server: MailingServer, to: string) {
  await backgroundSettled(server.ctx);
  return outboxCode(server, to);
}

/** The outbox messages to `to`, newest first. */
export function outbox(server: MailingServer, to: string): { file: string; text: string }[] {
  let files: string[];
  try {
    files = readdirSync(join(server.dataDir, 'outbox')).sort().reverse();
  } catch {
    return [];
  }
  return files
    .map((file) => ({ file, text: readFileSync(join(server.dataDir, 'outbox', file), 'utf8') }))
    .filter((m) => m.text.includes(`To: ${to}\n`));
}
