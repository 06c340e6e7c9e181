/**
 * End-to-end harness: a real server (real database in a temp dir, random port) serving the built web
 * app, and Debian's Chromium driven by playwright-core.
 */
import { existsSync } from 'node:fs';
import { chromium, type Browser, type BrowserContext, type Page } from 'playwright-core';
import { client, newUser as serverNewUser, signUpAs, startTestServer, type TestServer } from '@mango/server/testing';
import type { ServerConfig } from '@mango/server';

export const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
export const CHROMIUM_ARGS = [
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  '--disable-dev-shm-usage',
];

export function launchBrowser(): Promise<Browser> {
  if (!existsSync(CHROMIUM)) throw new Error(`Chromium not found at ${CHROMIUM}: apt-get install -y chromium`);
  return chromium.launch({ executablePath: CHROMIUM, args: CHROMIUM_ARGS, headless: true });
}

export interface E2E {
  server: TestServer;
  browser: Browser;
  context: BrowserContext;
  page: Page;
  url: (path: string) => string;
  /** messages of window.alert() calls, in order (dialogs are accepted) */
  alerts: string[];
  close(): Promise<void>;
}

export async function startE2E(
  overrides: Partial<ServerConfig> = {},
  opts: { database?: 'sqlite' | 'postgres' } = {},
): Promise<E2E> {
  const server = await startTestServer(overrides, opts);
  const browser = await launchBrowser();
  const context = await browser.newContext({ acceptDownloads: true, viewport: { width: 1280, height: 900 } });
  const page = await context.newPage();
  const alerts: string[] = [];
  page.on('dialog', (d) => {
    alerts.push(d.message());
    void d.accept();
  });
  return {
    server,
    browser,
    context,
    page,
    alerts,
    url: (path) => server.url + path,
    close: async () => {
      await browser.close();
      await server.close();
    },
  };
}

/** A fresh, unique user named `prefix_...` (server/src/testing `newUser`). */
export const newUser = (prefix = 'user') => serverNewUser('Mango Lab', prefix);

/** Registers and signs in through the real API (server/src/testing `signUpAs`), then stores the tokens in the page's local storage. */
export async function signInViaApi(e2e: E2E, user = newUser()) {
  const { accessToken, refreshToken } = await signUpAs(client(e2e.server), user);
  const tokens = { accessToken, refreshToken };
  await e2e.page.goto(e2e.url('/aboutus'));
  await e2e.page.evaluate((t) => {
    localStorage.setItem('accessToken', t.accessToken);
    localStorage.setItem('refreshToken', t.refreshToken);
  }, tokens);
  return { user, tokens };
}
