import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import Papa from 'papaparse';
import { encodeImage } from '@mango/core/node';
import { bruisedPairScene } from '@mango/core/testing';
import { sharedDir, SHARED_MISSING } from '@mango/core/testing/node';
import { launchBrowser, newUser, signInViaApi, startE2E, type E2E } from './harness.ts';
import type { Browser, Page } from 'playwright-core';

const shared = sharedDir();
if (!shared) console.warn(`results e2e: ${SHARED_MISSING} (runs on the generated photos only)`);

/** Signs `user` in through the API in a fresh browser (its own local storage): "another browser". */
async function signInElsewhere(browser: Browser, base: string, user: { username: string; password: string }) {
  const login = await fetch(`${base}/api-node/login`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json' },
    body: JSON.stringify({ email: user.username, password: user.password }),
  });
  expect(login.status).toBe(200);
  const tokens = (await login.json()) as { accessToken: string; refreshToken: string };
  const context = await browser.newContext({ acceptDownloads: true, viewport: { width: 1280, height: 900 } });
  const page = await context.newPage();
  await page.goto(`${base}/aboutus`);
  await page.evaluate((t) => {
    localStorage.setItem('accessToken', t.accessToken);
    localStorage.setItem('refreshToken', t.refreshToken);
  }, tokens);
  return { page, tokens, close: () => context.close() };
}

describe('Results area: stored runs', () => {
  let e2e: E2E;
  let other: Browser;
  let alice: ReturnType<typeof newUser>;
  let token = '';
  const dir = mkdtempSync(join(tmpdir(), 'mango-results-e2e-'));
  const photos: string[] = [];
  let runId = '';

  beforeAll(async () => {
    e2e = await startE2E();
    other = await launchBrowser();
    alice = newUser('alice');
    token = (await signInViaApi(e2e, alice)).tokens.accessToken;
    const png = await encodeImage(bruisedPairScene(3).image, 'png');
    for (const name of ['pair-1.png', 'pair-2.png']) {
      writeFileSync(join(dir, name), png);
      photos.push(join(dir, name));
    }
    if (shared) photos.push(join(shared, 'data/bruise-dev/senmango_real_lesions/images/anthracnose_088.jpg'));
  });
  afterAll(async () => {
    await other?.close();
    await e2e?.close();
  });

  it('scores photos in the web app; the run and its history row carry the same run_id', async () => {
    const { page } = e2e;
    await page.goto(e2e.url('/bruise'));
    await page.getByTestId('file-input').setInputFiles(photos);
    await page.getByRole('button', { name: 'Process' }).click();
    await page.getByRole('dialog').getByRole('button', { name: 'Confirm' }).click();
    await page.waitForURL('**/showarea/accuracy', { timeout: 90_000 });
    await expect.poll(() => page.getByTestId('result-row').count()).toBe(photos.length);
    const link = page.getByRole('link', { name: 'Open stored run' });
    runId = (await link.getAttribute('href'))!.replace('/results/', '');
    expect(runId).toMatch(/^[0-9a-f-]{36}$/);
    // One history row for the action, with the run on it (no second row).
    await expect
      .poll(async () => {
        const res = await fetch(e2e.url('/api-node/user/history'), { headers: { Authorization: `Bearer ${token}` } });
        return ((await res.json()) as { operation_type: string; run_id: string | null }[]).map((h) => [
          h.operation_type,
          h.run_id,
        ]);
      })
      .toEqual([['Bruised Area Calculation', runId]]);
    // The navigation offers Results right after Feature Analysis.
    const nav = await page.getByRole('navigation', { name: 'Main' }).getByRole('link').allInnerTexts();
    expect(nav.slice(nav.indexOf('Feature Analysis'), nav.indexOf('Feature Analysis') + 2)).toEqual([
      'Feature Analysis',
      'Results',
    ]);
  });

  it('shows the run in the Results area of another browser signed in as the same user', async () => {
    const elsewhere = await signInElsewhere(other, e2e.server.url, alice);
    const page: Page = elsewhere.page;
    try {
      await page.goto(e2e.url('/results'));
      await expect.poll(() => page.getByTestId('run-row').count()).toBe(1);
      // the cells after the run's select box (Compare) and its date
      const cells = (await page.getByTestId('run-row').locator('td').allInnerTexts()).map((c) => c.trim());
      const at = cells.indexOf('Bruised Area Calculation');
      expect(at).toBeGreaterThan(0);
      expect(cells[at + 1]).toBe(String(photos.length));
      // The file-name search narrows the list.
      await page.getByPlaceholder('Search file names...').fill('no-such-photo');
      await expect.poll(() => page.getByText('No runs found').count()).toBe(1);
      await page.getByPlaceholder('Search file names...').fill('PAIR-2');
      await expect.poll(() => page.getByTestId('run-row').count()).toBe(1);
      await page.screenshot({ path: '/tmp/runs-list.png', fullPage: true });

      await page.getByRole('link', { name: 'Open' }).click();
      await page.waitForURL(`**/results/${runId}`);
      await expect.poll(() => page.getByTestId('run-photo').count()).toBe(photos.length);
      const stats = page.getByTestId('run-stats');
      expect(await stats.locator('dd').first().innerText()).toBe(String(photos.length));
      // Both generated photos hold a bruise over 5 % (the left mango's): share over 5 % counts them.
      const api = (await (
        await fetch(e2e.url(`/api-node/runs/${runId}`), { headers: { Authorization: `Bearer ${token}` } })
      ).json()) as { items: { result: { bruise_percent: number; fruits: unknown[] } }[] };
      const over = (t: number) => api.items.filter((i) => i.result.bruise_percent > t).length;
      const share = (t: number) => `${((100 * over(t)) / photos.length).toFixed(1)} %`;
      expect(
        await stats
          .getByText(/^Share over/)
          .locator('xpath=..')
          .locator('dd')
          .innerText(),
      ).toBe(share(5));
      await page.getByLabel('Threshold (bruise %)').fill('50');
      await expect
        .poll(() => stats.getByText('Share over 50 %').locator('xpath=..').locator('dd').innerText())
        .toBe(share(50));
      await page.getByLabel('Threshold (bruise %)').fill('5');
      // The histogram is drawn by recharts: one bar per non-empty bin, counts adding up to n.
      await expect
        .poll(() => page.locator('[data-testid="run-histogram"] .recharts-bar-rectangle').count())
        .toBeGreaterThan(0);
      // Expanding a photo lists its fruit: the generated photo holds two mangoes.
      await page.getByRole('button', { name: 'Fruit of pair-1.png' }).click();
      await expect.poll(() => page.getByTestId('run-fruit').count()).toBe(api.items[0].result.fruits.length);
      expect(api.items[0].result.fruits).toHaveLength(2);
      // The gallery: each photo beside its overlay.
      expect(await page.getByTestId('run-gallery').locator('img').count()).toBe(2 * photos.length);
      await page.screenshot({ path: '/tmp/runs-run-page.png', fullPage: true });

      // The per-fruit CSV opens as a table with one row per fruit.
      const [csvDownload] = await Promise.all([
        page.waitForEvent('download'),
        page.getByRole('button', { name: 'Per-fruit CSV' }).click(),
      ]);
      expect(csvDownload.suggestedFilename()).toBe(`run-${runId}-fruits.csv`);
      const table = Papa.parse<Record<string, string>>(readFileSync((await csvDownload.path())!, 'utf8'), {
        header: true,
        skipEmptyLines: true,
      }).data;
      const fruitCount = api.items.reduce((a, i) => a + i.result.fruits.length, 0);
      expect(table).toHaveLength(fruitCount);
      expect(table.filter((r) => r.image === 'pair-1.png').map((r) => r.fruit)).toEqual(['1', '2']);

      // The report: one self-contained HTML file, rendered in the browser.
      const [reportDownload] = await Promise.all([
        page.waitForEvent('download'),
        page.getByRole('button', { name: 'Report (HTML)' }).click(),
      ]);
      expect(reportDownload.suggestedFilename()).toBe(`run-${runId}.report.html`);
      const reportPath = '/tmp/runs-report.html';
      await reportDownload.saveAs(reportPath);
      const reportPage = await page.context().newPage();
      const requests: string[] = [];
      reportPage.on('request', (r) => requests.push(r.url()));
      await reportPage.goto(`file://${reportPath}`);
      expect(await reportPage.getByRole('heading', { level: 1 }).innerText()).toBe(`Bruise report – run ${runId}`);
      expect(await reportPage.locator('table.photos tbody tr').count()).toBe(photos.length);
      expect(await reportPage.locator('.histogram .bin').count()).toBeGreaterThan(0);
      // Every image decodes (natural width > 0) and nothing but the file itself was requested.
      const widths = await reportPage
        .locator('img')
        .evaluateAll((imgs) => imgs.map((i) => (i as HTMLImageElement).naturalWidth));
      expect(widths).toHaveLength(2 * photos.length);
      expect(Math.min(...widths)).toBeGreaterThan(0);
      expect(Math.max(...widths)).toBeLessThanOrEqual(256);
      expect(requests.filter((u) => !u.startsWith('file://') && !u.startsWith('data:'))).toEqual([]);
      await reportPage.screenshot({ path: '/tmp/runs-report.png', fullPage: true });
      await reportPage.close();
    } finally {
      await elsewhere.close();
    }
  });

  it('links the run from the dashboard', async () => {
    const { page } = e2e;
    await page.goto(e2e.url('/dashboard'));
    const link = page.locator('table.history-table').getByRole('link', { name: 'Bruised Area Calculation' });
    expect(await link.getAttribute('href')).toBe(`/results/${runId}`);
    await link.click();
    await page.waitForURL(`**/results/${runId}`);
    await expect.poll(() => page.getByTestId('run-photo').count()).toBe(photos.length);
  });

  it('another user cannot see the run', async () => {
    const bob = newUser('bob');
    const reg = await fetch(e2e.url('/api-node/register'), {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify(bob),
    });
    expect(reg.status).toBe(201);
    const elsewhere = await signInElsewhere(other, e2e.server.url, bob);
    try {
      await elsewhere.page.goto(e2e.url(`/results/${runId}`));
      await elsewhere.page.getByText('Run not found').waitFor();
      const res = await fetch(e2e.url(`/api-node/runs/${runId}`), {
        headers: { Authorization: `Bearer ${elsewhere.tokens.accessToken}` },
      });
      expect(res.status).toBe(404);
      await elsewhere.page.goto(e2e.url('/results'));
      await elsewhere.page.getByText('No runs found').waitFor();
    } finally {
      await elsewhere.close();
    }
  });

  it('deletes the run from its page', async () => {
    const { page } = e2e;
    await page.goto(e2e.url(`/results/${runId}`));
    await page.getByRole('button', { name: 'Delete run' }).click();
    await page.getByRole('dialog').getByRole('button', { name: 'Delete' }).click();
    await page.waitForURL('**/results');
    await page.getByText('No runs found').waitFor();
    const res = await fetch(e2e.url(`/api-node/runs/${runId}`), { headers: { Authorization: `Bearer ${token}` } });
    expect(res.status).toBe(404);
  });
});
