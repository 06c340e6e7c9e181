/** Helpers shared by the account-screen end-to-end tests. */
import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { client, register } from '@mango/server/testing';
import type { E2E } from './harness.ts';

/** The newest verification code mailed to `email`, read from DATA_DIR/outbox (no SMTP in tests). */
export async function readVerificationCode(e2e: E2E, email: string, timeoutMs = 5000): Promise<string> {
  const dir = join(e2e.server.dataDir, 'outbox');
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const names = await readdir(dir).catch(() => [] as string[]);
    for (const name of names.sort().reverse()) {
      const text = await readFile(join(dir, name), 'utf8');
      const code = /Verification code: (\d{6})/.exec(text);
      if (code && text.toLowerCase().includes(`to: ${email.toLowerCase()}`)) return code[1];
    }
    if (Date.now() > deadline) throw new Error(`no verification code for ${email} in ${dir}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

/** Fills and submits the sign-in form. */
export async function signInViaForm(e2e: E2E, identifier: string, password: string) {
  const { page } = e2e;
  await page.getByLabel('Username or Email', { exact: true }).fill(identifier);
  await page.getByLabel('Password', { exact: true }).fill(password);
  await page.getByRole('button', { name: 'Sign In', exact: true }).click();
}

/** Registers a user through the API without signing in (server/src/testing `register`). */
export const registerViaApi = (
  e2e: E2E,
  user: { username: string; email: string; organization: string; password: string },
) => register(client(e2e.server), user);

/** Signs in through the API and returns the access token. */
export async function loginViaApi(e2e: E2E, identifier: string, password: string): Promise<Response> {
  return fetch(e2e.url('/api-node/login'), {
    method: 'POST',
    headers: { 'Content-Type': 'application/json' },
    body: JSON.stringify({ email: identifier, password }),
  });
}

/** Text of the page's alert (role=alert), trimmed. */
export async function alertText(e2e: E2E): Promise<string> {
  const alert = e2e.page.getByRole('alert');
  await alert.waitFor();
  return (await alert.innerText()).trim();
}
