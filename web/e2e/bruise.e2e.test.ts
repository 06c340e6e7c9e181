import { readFileSync } from 'node:fs';
import { basename, join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import JSZip from 'jszip';
import Papa from 'papaparse';
import sharp from 'sharp';
import { sharedDir, SHARED_MISSING } from '@mango/core/testing/node';
import { signInViaApi, startE2E, type E2E } from './harness.ts';

const shared = sharedDir();
if (!shared) console.warn(`bruise e2e: ${SHARED_MISSING}`);
const photos = shared
  ? [
      join(shared, 'data/bruise-dev/senmango_real_lesions/images/anthracnose_088.jpg'),
      join(shared, 'data/bruise-dev/synthetic_composites/images/syn_senmango_healthy_001.jpg'),
    ]
  : [];

interface ApiItem {
  filename: string;
  total_mango_pixels: number;
  bruise_percent: number;
  non_bruise_percent: number;
  overlay_img: string;
}

describe.skipIf(!shared)('Bruised Area Calculation pages', () => {
  let e2e: E2E;
  let token = '';
  beforeAll(async () => {
    e2e = await startE2E();
    token = (await signInViaApi(e2e)).tokens.accessToken;
  });
  afterAll(async () => {
    await e2e?.close();
  });

  const rows = () => e2e.page.getByTestId('result-row');
  const stored = () =>
    e2e.page.evaluate(() => JSON.parse(localStorage.getItem('uploadedFiles') ?? 'null') as unknown[] | null);
  async function downloadZip() {
    const [download] = await Promise.all([
      e2e.page.waitForEvent('download'),
      e2e.page.getByRole('button', { name: 'Download Results' }).click(),
    ]);
    expect(download.suggestedFilename()).toBe('area_calculation_results.zip');
    return JSZip.loadAsync(readFileSync((await download.path())!));
  }

  it('alerts when Process is pressed without files', async () => {
    await e2e.page.goto(e2e.url('/bruise'));
    await e2e.page.getByRole('heading', { name: 'Bruised Area Calculation' }).waitFor();
    await e2e.page.getByRole('button', { name: 'Process' }).click();
    await expect.poll(() => e2e.alerts.at(-1)).toBe('Please select files to upload.');
    expect(await e2e.page.getByRole('dialog').count()).toBe(0);
  });

  it('processes two photos and shows the API numbers with 2 decimals', async () => {
    const { page } = e2e;
    await page.goto(e2e.url('/bruise'));
    await page.getByTestId('file-input').setInputFiles(photos);
    await page.getByRole('button', { name: 'Process' }).click();
    const dialog = page.getByRole('dialog');
    await dialog.getByText('Calculate the bruised area of 2 images?').waitFor();
    await dialog.getByRole('button', { name: 'Confirm' }).click();
    await page.waitForURL('**/showarea/accuracy', { timeout: 90_000 });
    await expect.poll(() => rows().count()).toBe(2);

    const form = new FormData();
    for (const p of photos) form.append('images', new Blob([readFileSync(p)]), basename(p));
    const res = await fetch(e2e.url('/api-py/python/bruise_detection/DeepLearning'), {
      method: 'POST',
      body: form,
      headers: { Authorization: `Bearer ${token}` },
    });
    expect(res.status).toBe(200);
    const api = (await res.json()) as ApiItem[];
    for (let i = 0; i < 2; i++) {
      const cells = await rows().nth(i).locator('td').allInnerTexts();
      expect(cells.slice(0, 4)).toEqual([
        api[i].filename,
        String(api[i].total_mango_pixels),
        api[i].bruise_percent.toFixed(2),
        api[i].non_bruise_percent.toFixed(2),
      ]);
      expect(cells[2]).toMatch(/^\d+\.\d\d$/);
    }
    const local = (await stored())!;
    expect(local).toHaveLength(2);
    expect(JSON.stringify(local)).not.toContain('overlay_img');
    expect(local[0]).toMatchObject({ filename: api[0].filename, bruise_percent: api[0].bruise_percent });
    await page.screenshot({ path: '/tmp/e2e-shots/bruise-results.png', fullPage: true });

    // the action is in the history
    const history = (await (
      await fetch(e2e.url('/api-node/user/history'), { headers: { Authorization: `Bearer ${token}` } })
    ).json()) as { operation_type: string }[];
    expect(history.map((h) => h.operation_type)).toContain('Bruised Area Calculation');
  });

  it('views a row in a modal and on the detail page', async () => {
    const { page } = e2e;
    const first = await rows().first().locator('td').allInnerTexts();
    await rows()
      .first()
      .getByRole('button', { name: /^View / })
      .click();
    const modal = page.getByRole('dialog');
    expect(await modal.locator('img').getAttribute('src')).toMatch(/^data:image\/(png|jpeg);base64,/);
    await page.screenshot({ path: '/tmp/e2e-shots/bruise-modal.png' });
    await modal.getByRole('button', { name: 'Close' }).click();
    expect(await page.getByRole('dialog').count()).toBe(0);

    await rows().first().getByRole('button', { name: first[0], exact: true }).click();
    await page.waitForURL('**/viewphoto/result');
    expect(await page.getByTestId('filename').innerText()).toBe(first[0]);
    expect(await page.getByTestId('total-pixels').innerText()).toBe(first[1]);
    expect(await page.getByTestId('bruise-percent').innerText()).toBe(`${first[2]}%`);
    expect(await page.getByTestId('non-bruise-percent').innerText()).toBe(`${first[3]}%`);
    expect(await page.locator('img.overlay-img').getAttribute('src')).toMatch(/^data:image\//);
    await page.screenshot({ path: '/tmp/e2e-shots/viewphoto.png', fullPage: true });
    await page.getByRole('button', { name: 'Back' }).click();
    await page.waitForURL('**/showarea/accuracy');
    await expect.poll(() => rows().count()).toBe(2);
  });

  it('deletes a row (local storage too) and downloads the zip', async () => {
    const { page } = e2e;
    const second = await rows().nth(1).locator('td').allInnerTexts();
    await rows()
      .first()
      .getByRole('button', { name: /^Delete / })
      .click();
    await expect.poll(() => rows().count()).toBe(1);
    const local = (await stored()) as { filename: string }[];
    expect(local.map((r) => r.filename)).toEqual([second[0]]);

    const zip = await downloadZip();
    const csv = Papa.parse<string[]>(await zip.file('data.csv')!.async('string'), { skipEmptyLines: true }).data;
    expect(csv).toEqual([
      ['Filename', 'Total Mango Pixels', 'Bruise Percentage', 'Non-Bruise Percentage'],
      second.slice(0, 4),
    ]);
    const images = Object.keys(zip.files).filter((n) => n.startsWith('images/') && !n.endsWith('/'));
    expect(images).toHaveLength(1);
    expect(images[0]).toMatch(/^images\/syn_senmango_healthy_001\.(png|jpg)$/);
    expect(zip.files['images/']?.dir).toBe(true);

    // The complete export: the kept row's full-resolution overlay and masks (not the deleted row's),
    // its per-fruit and per-image tables and the run's provenance.
    const files = Object.keys(zip.files).filter((n) => !n.endsWith('/') && !n.startsWith('images/'));
    expect(files.sort()).toEqual([
      'data.csv',
      'fruits.csv',
      'images.csv',
      'masks/syn_senmango_healthy_001.bruise.png',
      'masks/syn_senmango_healthy_001.fruit.png',
      'overlays/syn_senmango_healthy_001.overlay.jpg',
      'provenance.json',
    ]);
    const photo = await sharp(readFileSync(photos[1])).metadata();
    for (const name of files.filter((n) => /\.(jpg|png)$/.test(n))) {
      const meta = await sharp(await zip.file(name)!.async('uint8array')).metadata();
      expect([meta.width, meta.height], name).toEqual([photo.width, photo.height]);
    }
    const perImage = Papa.parse<string[]>(await zip.file('images.csv')!.async('string'), { skipEmptyLines: true }).data;
    expect(perImage.map((r) => r[0])).toEqual(['image', second[0]]);
    expect(perImage[1][perImage[0].indexOf('fruit_pixels')]).toBe(second[1]);
    const provenance = JSON.parse(await zip.file('provenance.json')!.async('string')) as { run_id: string };
    expect(provenance.run_id).toMatch(/^[0-9a-f-]{36}$/);

    // a reload keeps the deletion
    await page.reload();
    await expect.poll(() => rows().count()).toBe(1);

    // The run page links the stored run's full-resolution zip; each photo of it is kept.
    await page.getByRole('link', { name: 'Open stored run' }).click();
    await page.waitForURL(`**/results/${provenance.run_id}`);
    await page.getByTestId('run-gallery').waitFor();
    expect(await page.getByTestId('photo-not-kept').count()).toBe(0);
    const [download] = await Promise.all([
      page.waitForEvent('download'),
      page.getByRole('button', { name: 'Download full resolution (zip)' }).click(),
    ]);
    expect(download.suggestedFilename()).toBe(`run-${provenance.run_id}-full.zip`);
    const full = await JSZip.loadAsync(readFileSync((await download.path())!));
    const masks = Object.keys(full.files).filter((n) => n.startsWith('masks/') && !n.endsWith('/'));
    expect(masks).toHaveLength(4);
  });

  it('falls back to local storage (without overlays), then to No information available', async () => {
    const { page, alerts } = e2e;
    // a fresh history entry (going to the same URL would count as a reload and keep the state)
    await page.goto(e2e.url('/bruise'));
    await page.goto(e2e.url('/showarea/accuracy'));
    await expect.poll(() => rows().count()).toBe(1);
    await rows()
      .first()
      .getByRole('button', { name: /^View / })
      .click();
    await page.getByRole('dialog').getByText('The overlay image is not kept after a reload.').waitFor();
    await page.getByRole('dialog').getByRole('button', { name: 'Close' }).click();
    const zip = await downloadZip();
    expect(Object.keys(zip.files).filter((n) => n.startsWith('images/') && !n.endsWith('/'))).toEqual([]);
    expect(zip.file('data.csv')).not.toBeNull();

    await page.evaluate(() => localStorage.removeItem('uploadedFiles'));
    await page.goto(e2e.url('/showarea/accuracy'));
    await page.getByText('No information available').waitFor();
    await page.getByRole('button', { name: 'Download Results' }).click();
    await expect.poll(() => alerts.at(-1)).toBe('No data available to download.');

    await page.goto(e2e.url('/viewphoto/result'));
    await page.waitForURL('**/showarea/accuracy');
  });

  it('alerts the server detail, the generic failure and a network failure', async () => {
    const { page, alerts } = e2e;
    const endpoint = '**/api-py/python/bruise_detection/DeepLearning';
    const submit = async () => {
      await page.goto(e2e.url('/bruise'));
      await page.getByTestId('file-input').setInputFiles(photos[0]);
      await page.getByRole('button', { name: 'Process' }).click();
      await page.getByRole('dialog').getByRole('button', { name: 'Confirm' }).click();
    };

    await page.route(endpoint, async (route) => {
      await new Promise((r) => setTimeout(r, 400));
      await route.fulfill({ status: 415, contentType: 'application/json', body: '{"detail":"x.jpg: not an image"}' });
    });
    await submit();
    await page.getByRole('status').getByText('Processing...').waitFor();
    await expect.poll(() => alerts.at(-1)).toBe('Error: x.jpg: not an image');
    expect(new URL(page.url()).pathname).toBe('/bruise');
    await page.unroute(endpoint);

    await page.route(endpoint, (route) =>
      route.fulfill({ status: 502, contentType: 'text/html', body: '<h1>Bad</h1>' }),
    );
    await submit();
    await expect.poll(() => alerts.at(-1)).toBe('Failed to process the request.');
    await page.unroute(endpoint);

    await page.route(endpoint, (route) => route.abort('connectionreset'));
    await submit();
    await expect.poll(() => alerts.at(-1)).toBe('Error processing the files. Please check the console for details.');
    await page.unroute(endpoint);
  });
});
