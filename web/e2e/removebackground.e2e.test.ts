import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import JSZip from 'jszip';
import { sharedDir, SHARED_MISSING } from '@mango/core/testing/node';
import { signInViaApi, startE2E, type E2E } from './harness.ts';

const shared = sharedDir();
if (!shared) console.warn(`remove background e2e: ${SHARED_MISSING}`);
const photos = shared
  ? ['anthracnose_088.jpg', 'healthy_001.jpg'].map((n) =>
      join(shared, 'data/bruise-dev/senmango_real_lesions/images', n),
    )
  : [];
const PNG_SIGNATURE = [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a];

describe.skipIf(!shared)('Remove Background page', () => {
  let e2e: E2E;
  let token = '';
  beforeAll(async () => {
    e2e = await startE2E();
    token = (await signInViaApi(e2e)).tokens.accessToken;
  });
  afterAll(async () => {
    await e2e?.close();
  });

  const removeButton = () => e2e.page.getByRole('button', { name: 'Remove Background' });
  const items = () => e2e.page.getByRole('list', { name: 'Processed images' }).getByRole('listitem');

  it('asks for images first', async () => {
    await e2e.page.goto(e2e.url('/removebackground'));
    await removeButton().click();
    await expect.poll(() => e2e.alerts.at(-1)).toBe('Please upload images first!');
  });

  it('removes the background of two photos, one request each, and lists them', async () => {
    const { page } = e2e;
    const requests: string[] = [];
    page.on('request', (r) => r.url().includes('/api-py/python/remove_background') && requests.push(r.url()));
    await page.getByTestId('file-input').setInputFiles(photos);
    await removeButton().click();
    await page.getByRole('dialog').getByText('Remove the background of 2 images?').waitFor();
    await page.getByRole('dialog').getByRole('button', { name: 'Confirm' }).click();
    await expect.poll(() => items().count(), { timeout: 90_000 }).toBe(2);
    expect(requests).toHaveLength(2);
    expect(await items().locator('.processed-name').allInnerTexts()).toEqual([
      'processed-anthracnose_088.png',
      'processed-healthy_001.png',
    ]);
    // previews decoded
    await expect
      .poll(() =>
        items()
          .locator('img')
          .evaluateAll((imgs) => imgs.map((i) => (i as HTMLImageElement).naturalWidth)),
      )
      .toEqual([896, 224]);
    expect(await page.getByRole('alert').count()).toBe(0);
    await page.screenshot({ path: '/tmp/e2e-shots/removebackground.png', fullPage: true });

    const history = (await (
      await fetch(e2e.url('/api-node/user/history'), { headers: { Authorization: `Bearer ${token}` } })
    ).json()) as { operation_type: string }[];
    expect(history.map((h) => h.operation_type)).toContain('Remove Background');
  });

  it('downloads one image and all of them as processed_images.zip', async () => {
    const { page } = e2e;
    const [one] = await Promise.all([
      page.waitForEvent('download'),
      page.getByRole('button', { name: 'Download processed-healthy_001.png' }).click(),
    ]);
    expect(one.suggestedFilename()).toBe('processed-healthy_001.png');
    expect([...readFileSync((await one.path())!).subarray(0, 8)]).toEqual(PNG_SIGNATURE);

    const [all] = await Promise.all([
      page.waitForEvent('download'),
      page.getByRole('button', { name: 'Download All' }).click(),
    ]);
    expect(all.suggestedFilename()).toBe('processed_images.zip');
    const zip = await JSZip.loadAsync(readFileSync((await all.path())!));
    const names = Object.keys(zip.files).sort();
    expect(names).toEqual(['processed-anthracnose_088.png', 'processed-healthy_001.png']);
    const png = await zip.file(names[0])!.async('uint8array');
    expect([...png.subarray(0, 8)]).toEqual(PNG_SIGNATURE);
  });

  it('sends the selected images to Feature Analysis', async () => {
    const { page } = e2e;
    await page.getByRole('button', { name: 'Send to Analysis' }).click();
    await expect.poll(() => e2e.alerts.at(-1)).toBe('Please select at least one image to analyze!');
    await page.getByLabel('Select processed-anthracnose_088.png').check();
    await page.getByRole('button', { name: 'Send to Analysis' }).click();
    await page.waitForURL('**/analysis');
    const selected = page.getByRole('list', { name: 'Selected files' });
    await expect.poll(() => selected.locator('.file-name').allInnerTexts()).toEqual(['processed-anthracnose_088.png']);
    // the transparent png analyses over its foreground only
    await page.getByLabel('RGB Color Space').check();
    await page.getByRole('tab', { name: 'Shape' }).click();
    await page.getByLabel('Area').check();
    await page.getByRole('button', { name: 'Analyze' }).click();
    await page.waitForURL('**/analysis/result', { timeout: 60_000 });
    const row = page.getByTestId('feature-row');
    expect(await row.locator('th').innerText()).toBe('processed-anthracnose_088.png');
    const headers = await page.locator('table.feature-table thead tr').nth(1).locator('th').allInnerTexts();
    const fraction = Number(await row.locator('td').nth(headers.indexOf('area_fraction')).innerText());
    // an opaque photo would give exactly 1: the cut-out's transparency was honoured
    expect(fraction).toBeGreaterThan(0);
    expect(fraction).toBeLessThan(1);
  });

  it('shows the inline error when the server fails, and the progress while uploading', async () => {
    const { page } = e2e;
    await page.goto(e2e.url('/removebackground'));
    await page.route('**/api-py/python/remove_background', async (route) => {
      await new Promise((r) => setTimeout(r, 500));
      await route.fulfill({ status: 500, contentType: 'application/json', body: '{"detail":"Internal server error"}' });
    });
    await page.getByTestId('file-input').setInputFiles(photos[0]);
    await removeButton().click();
    await page.getByRole('dialog').getByRole('button', { name: 'Confirm' }).click();
    expect(await page.getByTestId('progress').innerText()).toMatch(/^Processing anthracnose_088\.jpg\.\.\. \d+%$/);
    await page.getByRole('alert').getByText('Failed to remove background. Please try again.').waitFor();
    expect(await items().count()).toBe(0);
    // the photo stays selected for another try
    expect(await page.getByRole('list', { name: 'Selected files' }).locator('.file-name').allInnerTexts()).toEqual([
      'anthracnose_088.jpg',
    ]);
    await page.unroute('**/api-py/python/remove_background');
  });
});
