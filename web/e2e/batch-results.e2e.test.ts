/**
 * One submission path (issue 24 item 2): 11 photos (a batch job) end on the same results pages as
 * 2 photos (one /api-py request), with the same figures, the same full-size overlays, the same
 * grades and the same per-fruit rows; only the progress bar tells them apart. Screenshots of both
 * land in /tmp/batch-results-*.png.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import sharp from 'sharp';
import JSZip from 'jszip';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { encodeImage } from '@mango/core/node';
import { bruisedPairScene } from '@mango/core/testing';
import { THUMBNAIL_MAX_SIDE } from '@mango/core/results';
import { signInViaApi, startE2E, type E2E } from './harness.ts';

/** What the results pages show of the first photo. */
interface Seen {
  row: string[];
  overlay: { width: number; height: number };
  facts: string[];
  fruits: string[][];
}

describe('the bruise page: 11 photos give the results pages of 2', () => {
  let e2e: E2E;
  let dir: string;
  let photos: string[];
  const calls: string[] = [];
  beforeAll(async () => {
    e2e = await startE2E();
    await signInViaApi(e2e);
    e2e.page.on('request', (r) => {
      const path = new URL(r.url()).pathname;
      if (path.startsWith('/api-py/') || path.startsWith('/api-node/jobs') || path.includes('/overlay'))
        calls.push(`${r.method()} ${path}`);
    });
    dir = mkdtempSync(join(tmpdir(), 'mango-e2e-batch-'));
    // Camera-sized photos, 1920 px wide.
    const scenes = await Promise.all([3, 5].map((seed) => encodeImage(bruisedPairScene(seed).image, 'png')));
    photos = [];
    for (let i = 0; i < 11; i++) {
      const path = join(dir, `crate-${String(i).padStart(2, '0')}.jpg`);
      writeFileSync(
        path,
        await sharp(scenes[i % 2])
          .resize(1920)
          .jpeg({ quality: 90 })
          .toBuffer(),
      );
      photos.push(path);
    }
  });
  afterAll(async () => {
    await e2e?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  /** Selects the photos and the percent grades, confirms, and waits for the results table. */
  async function submit(files: string[]) {
    const { page } = e2e;
    await page.goto(e2e.url('/bruise'));
    await page.getByTestId('file-input').setInputFiles(files);
    await page.locator('select[name="grades"]').selectOption('percent');
    await page.getByRole('button', { name: 'Process' }).click();
    await page.getByRole('dialog').getByRole('button', { name: 'Confirm' }).click();
    await page.waitForURL('**/showarea/accuracy', { timeout: 120_000 });
    await expect.poll(() => page.getByTestId('result-row').count()).toBe(files.length);
  }

  /** The first row, its overlay in the View dialog (screenshot `shot`), and its /viewphoto/result page. */
  async function firstPhoto(shot: string): Promise<Seen> {
    const { page } = e2e;
    const row = await page.getByTestId('result-row').nth(0).locator('td').allInnerTexts();
    await page.getByRole('button', { name: 'View crate-00.jpg' }).click();
    const img = page.getByRole('dialog').getByRole('img', { name: 'Bruise overlay of crate-00.jpg' });
    await expect.poll(() => img.evaluate((el: HTMLImageElement) => el.complete && el.naturalWidth)).toBeGreaterThan(0);
    const overlay = await img.evaluate((el: HTMLImageElement) => ({
      width: el.naturalWidth,
      height: el.naturalHeight,
    }));
    await page.screenshot({ path: `/tmp/batch-results-${shot}-table.png`, fullPage: true });
    await page.getByRole('dialog').getByRole('button', { name: 'Details' }).click();
    await page.waitForURL('**/viewphoto/result');
    await page.getByRole('img', { name: 'Bruise overlay of crate-00.jpg' }).waitFor();
    await page.getByTestId('filename').waitFor();
    const facts = await page.locator('dl.facts dd').allInnerTexts();
    const fruitRows = page.getByTestId('fruit-row');
    const fruits = await Promise.all(
      Array.from({ length: await fruitRows.count() }, (_, i) => fruitRows.nth(i).locator('td').allInnerTexts()),
    );
    await page.screenshot({ path: `/tmp/batch-results-${shot}-photo.png`, fullPage: true });
    await page.getByRole('button', { name: 'Back' }).click();
    await page.waitForURL('**/showarea/accuracy');
    return { row, overlay, facts, fruits };
  }

  let small: Seen;

  it('2 photos: one /api-py request; the overlay at full size, the grades and the fruit rows', async () => {
    await submit(photos.slice(0, 2));
    expect(calls).toEqual(['POST /api-py/python/bruise_detection/DeepLearning']);
    small = await firstPhoto('2');
    // the plugin's overlay (its working size), far above the stored runs' 256 px thumbnails
    expect(small.overlay.width).toBeGreaterThan(THUMBNAIL_MAX_SIDE);
    expect(small.overlay.width).toBe(small.overlay.height * 2);
    expect(small.facts).toContain('Bruise share of the fruit (%), for labs without a scale');
    expect(small.fruits.length).toBe(2);
    for (const fruit of small.fruits) expect(fruit.at(-1)).toMatch(/^(A|B|C|Reject)$/);
  });

  it('11 photos: a job with a progress bar, then the same pages, overlays, grades and fruit rows', async () => {
    calls.length = 0;
    const alerts = e2e.alerts.length;
    const progress = e2e.page.getByTestId('job-progress').waitFor({ timeout: 60_000 });
    await submit(photos);
    await progress;
    expect(e2e.alerts.slice(alerts)).toEqual([]);
    expect(calls[0]).toBe('POST /api-node/jobs');
    expect(calls.some((c) => c.startsWith('POST /api-py/'))).toBe(false);
    const batch = await firstPhoto('11');
    expect(batch).toEqual(small);
    // a full overlay is read when it is shown: only the one looked at, not the batch's 11
    const read = calls.filter((c) => c.endsWith('/overlay'));
    expect(read.length).toBeGreaterThan(0);
    expect(read.every((c) => /^GET \/api-node\/runs\/[0-9a-f-]{36}\/items\/0\/overlay$/.test(c))).toBe(true);

    // Both crates of the batch are the 2 photos above: their rows are the same.
    const rows = e2e.page.getByTestId('result-row');
    expect((await rows.nth(1).locator('td').allInnerTexts()).slice(1, 4)).toEqual(
      (await rows.nth(3).locator('td').allInnerTexts()).slice(1, 4),
    );

    // The download has every overlay at full size.
    const [download] = await Promise.all([
      e2e.page.waitForEvent('download'),
      e2e.page.getByRole('button', { name: 'Download Results' }).click(),
    ]);
    const zip = await JSZip.loadAsync(readFileSync((await download.path())!));
    const images = Object.keys(zip.files).filter((n) => n.startsWith('images/') && !n.endsWith('/'));
    expect(images).toHaveLength(11);
    const first = await sharp(await zip.file('images/crate-00.jpg')!.async('uint8array')).metadata();
    expect({ width: first.width, height: first.height }).toEqual(small.overlay);
  });

  it('11 photos: after a reload the rows (from local storage) still show their full overlay', async () => {
    const { page } = e2e;
    // A new visit: no navigation state, the rows come from uploadedFiles.
    await page.goto(e2e.url('/showarea/accuracy'));
    await expect.poll(() => page.getByTestId('result-row').count()).toBe(11);
    await page.getByRole('button', { name: 'View crate-00.jpg' }).click();
    const img = page.getByRole('dialog').getByRole('img', { name: 'Bruise overlay of crate-00.jpg' });
    await expect.poll(() => img.evaluate((el: HTMLImageElement) => el.naturalWidth)).toBe(small.overlay.width);
  });
});
