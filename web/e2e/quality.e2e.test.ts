import { mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import sharp from 'sharp';
import { sharedDir, SHARED_MISSING } from '@mango/core/testing/node';
import { signInViaApi, startE2E, type E2E } from './harness.ts';

const shared = sharedDir();
if (!shared) console.warn(`quality e2e: ${SHARED_MISSING}`);

describe.skipIf(!shared)('photo-quality flags on the results pages', () => {
  let e2e: E2E;
  const photos: string[] = [];
  let runId = '';
  beforeAll(async () => {
    e2e = await startE2E();
    await signInViaApi(e2e);
    const dir = mkdtempSync(join(tmpdir(), 'mango-quality-e2e-'));
    const clean = readFileSync(
      join(shared!, 'data/bruise-dev/synthetic_composites/images/syn_senmango_healthy_188.jpg'),
    );
    writeFileSync(join(dir, 'clean.jpg'), clean);
    // the same real photo saved at JPEG quality 10: flagged jpeg-compression
    writeFileSync(join(dir, 'q10.jpg'), await sharp(clean).jpeg({ quality: 10 }).toBuffer());
    photos.push(join(dir, 'clean.jpg'), join(dir, 'q10.jpg'));
    mkdirSync('/tmp/e2e-shots', { recursive: true });
  });
  afterAll(async () => {
    await e2e?.close();
  });

  it('/viewphoto/result shows the badge with the reason of a flagged photo and "passed" for a clean one', async () => {
    const { page } = e2e;
    await page.goto(e2e.url('/bruise'));
    await page.getByTestId('file-input').setInputFiles(photos);
    await page.getByRole('button', { name: 'Process' }).click();
    await page.getByRole('dialog').getByRole('button', { name: 'Confirm' }).click();
    await page.waitForURL('**/showarea/accuracy', { timeout: 90_000 });
    const rows = page.getByTestId('result-row');
    await expect.poll(() => rows.count()).toBe(2);
    runId = (await page.getByRole('link', { name: 'Open stored run' }).getAttribute('href'))!.replace('/results/', '');

    await rows.nth(1).getByRole('button', { name: 'q10.jpg', exact: true }).click();
    await page.waitForURL('**/viewphoto/result');
    const badge = page.getByTestId('quality-badge');
    expect(await badge.innerText()).toBe('⚠ Photo quality: 1 warning(s)');
    const reason = page.getByTestId('quality-flags').locator('li[data-flag="jpeg-compression"]');
    expect(await reason.innerText()).toMatch(/^heavy JPEG compression: the file was saved at quality 10 .*below 40/);
    await page.screenshot({ path: '/tmp/e2e-shots/quality-viewphoto.png', fullPage: true });

    await page.getByRole('button', { name: 'Back' }).click();
    await page.waitForURL('**/showarea/accuracy');
    await rows.nth(0).getByRole('button', { name: 'clean.jpg', exact: true }).click();
    await page.waitForURL('**/viewphoto/result');
    expect(await page.getByTestId('quality-ok').innerText()).toBe('Photo quality checks passed.');
    expect(await page.getByTestId('quality-badge').count()).toBe(0);
  });

  it('the stored run page lists the flagged photo with its reason, in English and in Thai', async () => {
    const { page } = e2e;
    await page.goto(e2e.url(`/results/${runId}`));
    const card = page.getByTestId('run-quality');
    await card.waitFor();
    expect(await card.getByRole('heading').innerText()).toBe('Photo quality');
    expect(await card.innerText()).toContain(
      '1 of 2 photos were flagged by the photo-quality checks; they were scored all the same.',
    );
    const flagged = card.getByTestId('run-quality-photo');
    expect(await flagged.count()).toBe(1);
    expect(await flagged.locator('strong').innerText()).toBe('q10.jpg');
    expect(await flagged.locator('li').innerText()).toMatch(/^heavy JPEG compression: .*quality 10/);
    await page.screenshot({ path: '/tmp/e2e-shots/quality-run.png', fullPage: true });

    await page.evaluate(() => localStorage.setItem('language', 'th'));
    await page.reload();
    await card.waitFor();
    expect(await card.getByRole('heading').innerText()).toBe('คุณภาพภาพถ่าย');
    expect(await flagged.locator('li').innerText()).toBe('บีบอัด JPEG มากเกินไป: คุณภาพ 10 (ต้องมีอย่างน้อย 40)');
    await page.screenshot({ path: '/tmp/e2e-shots/quality-run-th.png', fullPage: true });
    await page.evaluate(() => localStorage.setItem('language', 'en'));
  });
});
