/**
 * More than 10 photos on the bruise and feature pages go as one batch job (issue 14): a progress bar,
 * then the same results pages as the small flow, with every photo's row.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { encodeImage } from '@mango/core/node';
import { bruisedPairScene } from '@mango/core/testing';
import { signInViaApi, startE2E, type E2E } from './harness.ts';

describe('batch jobs from the web pages (more than 10 photos)', () => {
  let e2e: E2E;
  let dir: string;
  let photos: string[];
  beforeAll(async () => {
    e2e = await startE2E();
    await signInViaApi(e2e);
    dir = mkdtempSync(join(tmpdir(), 'mango-e2e-jobs-'));
    const png = await encodeImage(bruisedPairScene().image, 'png');
    photos = Array.from({ length: 12 }, (_, i) => {
      const path = join(dir, `crate-${String(i).padStart(2, '0')}.png`);
      writeFileSync(path, png);
      return path;
    });
  });
  afterAll(async () => {
    await e2e?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('bruise: 12 photos run as a job with a progress bar and end on /showarea/accuracy with 12 rows', async () => {
    const { page } = e2e;
    const jobCalls: string[] = [];
    page.on('request', (r) => {
      if (r.url().includes('/api-node/jobs') || r.url().includes('/api-py/'))
        jobCalls.push(`${r.method()} ${new URL(r.url()).pathname}`);
    });
    await page.goto(e2e.url('/bruise'));
    await page.getByTestId('file-input').setInputFiles(photos);
    await page.getByRole('button', { name: 'Process' }).click();
    const dialog = page.getByRole('dialog');
    await dialog.getByText('Calculate the bruised area of 12 images?').waitFor();
    await dialog.getByRole('button', { name: 'Confirm' }).click();
    await page.getByTestId('job-progress').waitFor();
    await page.waitForURL('**/showarea/accuracy', { timeout: 90_000 });
    const rows = page.getByTestId('result-row');
    await expect.poll(() => rows.count()).toBe(12);
    const first = await rows.nth(0).locator('td').allInnerTexts();
    expect(first[0]).toBe('crate-00.png');
    expect(Number(first[2])).toBeGreaterThan(1);
    expect(jobCalls[0]).toBe('POST /api-node/jobs');
    expect(jobCalls.some((c) => c.includes('/api-py/'))).toBe(false);
    expect(jobCalls.some((c) => /\/api-node\/jobs\/[0-9a-f-]+\/events$/.test(c))).toBe(true);
  });

  it('bruise: a photo the job cannot score is listed inline, and the stored run lists it with its error', async () => {
    const { page } = e2e;
    const broken = join(dir, 'broken.png');
    writeFileSync(broken, 'this is not a PNG');
    const { alerts } = e2e;
    const before = alerts.length;
    await page.goto(e2e.url('/bruise'));
    await page.getByTestId('file-input').setInputFiles([...photos.slice(0, 10), broken]);
    await page.getByRole('button', { name: 'Process' }).click();
    await page.getByRole('dialog').getByRole('button', { name: 'Confirm' }).click();
    // listed inline with its reason (issue 27 item 5), the others one click away
    const listed = page.getByTestId('failed-photos');
    await listed.waitFor({ timeout: 90_000 });
    expect(await listed.locator('p').first().innerText()).toBe('1 of 11 photos could not be processed.');
    expect(await listed.getByTestId('failed-photo').locator('.file-name').allInnerTexts()).toEqual(['broken.png']);
    expect(alerts.slice(before)).toEqual([]);
    await page.getByRole('button', { name: 'View the results of the scored photos (10)' }).click();
    await page.waitForURL('**/showarea/accuracy', { timeout: 90_000 });
    await expect.poll(() => page.getByTestId('result-row').count()).toBe(10);
    const href = await page.getByRole('link', { name: 'Open stored run' }).getAttribute('href');
    expect(href).toMatch(/^\/results\/[0-9a-f-]{36}$/);
    await page.goto(e2e.url(href!));
    const failed = page.getByTestId('run-failed');
    await failed.waitFor();
    expect(await failed.locator('p').innerText()).toBe('1 of 11 photos could not be processed.');
    const items = await failed.locator('li').allInnerTexts();
    expect(items).toHaveLength(1);
    expect(items[0]).toMatch(/^broken\.png: \S/);
    await expect.poll(() => page.getByTestId('run-photo').count()).toBe(10);
  });

  it('features: 11 photos run as a job and end on /analysis/result with 11 rows', async () => {
    const { page } = e2e;
    await page.goto(e2e.url('/analysis'));
    await page.getByLabel('RGB Color Space').check();
    await page.getByTestId('file-input').setInputFiles(photos.slice(0, 11));
    await page.getByRole('button', { name: 'Analyze' }).click();
    await page.waitForURL('**/analysis/result', { timeout: 90_000 });
    await page.getByRole('heading', { name: 'Feature Analysis Results' }).waitFor();
    expect(await page.getByTestId('feature-row').count()).toBe(11);
  });
});
