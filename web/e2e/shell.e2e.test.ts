import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startE2E, type E2E } from './harness.ts';

describe('web shell', () => {
  let e2e: E2E;
  beforeAll(async () => {
    e2e = await startE2E();
  });
  afterAll(async () => {
    await e2e?.close();
  });

  it('sends a visitor without a token from a protected page to /signin', async () => {
    await e2e.page.goto(e2e.url('/dashboard'));
    await e2e.page.waitForURL('**/signin');
    expect(new URL(e2e.page.url()).pathname).toBe('/signin');
  });

  it('serves the SPA for deep links', async () => {
    const res = await fetch(e2e.url('/changepassword/success'));
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toContain('text/html');
    expect(await res.text()).toContain('<div id="root">');
  });
});
