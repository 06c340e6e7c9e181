import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import JSZip from 'jszip';
import sharp from 'sharp';
import { signInViaApi, startE2E, type E2E } from './harness.ts';

/** A w x h gradient photo written to `path` (png or jpeg by extension). */
async function gradient(path: string, w: number, h: number) {
  const raw = Buffer.alloc(w * h * 3);
  for (let y = 0; y < h; y++) for (let x = 0; x < w; x++) raw.set([(x * 255) / w, (y * 255) / h, 128], (y * w + x) * 3);
  const img = sharp(raw, { raw: { width: w, height: h, channels: 3 } });
  await (path.endsWith('.png') ? img.png() : img.jpeg()).toFile(path);
}

describe('Resize page', () => {
  let e2e: E2E;
  let token = '';
  let dir = '';
  let landscape = '';
  let square = '';
  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'mango-resize-e2e-'));
    landscape = join(dir, 'landscape.png');
    square = join(dir, 'square.jpg');
    await gradient(landscape, 400, 300);
    await gradient(square, 300, 300);
    e2e = await startE2E();
    token = (await signInViaApi(e2e)).tokens.accessToken;
  });
  afterAll(async () => {
    await e2e?.close();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  const items = () => e2e.page.getByRole('list', { name: 'Resized images' }).getByRole('listitem');
  const width = () => e2e.page.getByLabel('Width (px)');
  const height = () => e2e.page.getByLabel('Height (px)');

  it('shows the page inside the signed-in layout with a link to the cropper', async () => {
    const { page } = e2e;
    await page.goto(e2e.url('/resize'));
    await page.getByRole('heading', { name: 'Resize Image' }).waitFor();
    expect(await page.getByRole('navigation', { name: 'Main' }).isVisible()).toBe(true);
    expect(await page.getByRole('link', { name: 'Crop Image' }).getAttribute('href')).toBe('/crop');
  });

  it('asks for both dimensions', async () => {
    const { page } = e2e;
    await page.getByRole('button', { name: 'Resize', exact: true }).click();
    await expect.poll(() => e2e.alerts.at(-1)).toBe('Please enter both width and height!');
    await width().fill('120');
    await page.getByRole('button', { name: 'Resize', exact: true }).click();
    await expect.poll(() => e2e.alerts.length).toBe(2);
    expect(e2e.alerts.at(-1)).toBe('Please enter both width and height!');
    await width().fill('');
  });

  it('keeps the aspect ratio of the first photo, rounded', async () => {
    const { page } = e2e;
    await page.getByTestId('file-input').setInputFiles([landscape, square]);
    await page.getByRole('checkbox', { name: 'Keep Aspect Ratio' }).check();
    await width().fill('201');
    await expect.poll(() => height().inputValue()).toBe('151'); // 201 / (4/3) = 150.75
    await height().fill('90');
    await expect.poll(() => width().inputValue()).toBe('120');
    await width().fill('200');
    await expect.poll(() => height().inputValue()).toBe('150');
  });

  it('resizes in the browser after confirmation and lists name, width and height', async () => {
    const { page } = e2e;
    await page.getByRole('button', { name: 'Resize', exact: true }).click();
    const dialog = page.getByRole('dialog');
    await dialog
      .getByText('Resize 2 images to fit within 200 x 150 pixels, each keeping its own aspect ratio?')
      .waitFor();
    await dialog.getByRole('button', { name: 'Confirm' }).click();
    await expect.poll(() => items().count(), { timeout: 30_000 }).toBe(2);
    expect(await items().locator('.resized-name').allInnerTexts()).toEqual([
      'resized-landscape.jpg',
      'resized-square.jpg',
    ]);
    // Keep Aspect Ratio: each photo keeps its own ratio within the box (the square one is not stretched)
    expect(await page.getByTestId('resized-size').allInnerTexts()).toEqual(['200 x 150', '150 x 150']);
    await page.screenshot({ path: '/tmp/e2e-shots/resize.png', fullPage: true });
    const history = (await (
      await fetch(e2e.url('/api-node/user/history'), { headers: { Authorization: `Bearer ${token}` } })
    ).json()) as { operation_type: string }[];
    expect(history.map((h) => h.operation_type)).toContain('Resize');
  });

  it('downloads one JPEG and all of them as resized-images.zip at the new size', async () => {
    const { page } = e2e;
    const [one] = await Promise.all([
      page.waitForEvent('download'),
      page.getByRole('button', { name: 'Download resized-landscape.jpg' }).click(),
    ]);
    expect(one.suggestedFilename()).toBe('resized-landscape.jpg');
    const meta = await sharp(readFileSync((await one.path())!)).metadata();
    expect([meta.format, meta.width, meta.height]).toEqual(['jpeg', 200, 150]);
    // The gradient survives: left edge dark red, right edge bright red (rough, JPEG is lossy).
    const { data } = await sharp(readFileSync((await one.path())!))
      .raw()
      .toBuffer({ resolveWithObject: true });
    expect(data[(75 * 200 + 2) * 3]).toBeLessThan(20);
    expect(data[(75 * 200 + 197) * 3]).toBeGreaterThan(235);

    const [all] = await Promise.all([
      page.waitForEvent('download'),
      page.getByRole('button', { name: 'Download All' }).click(),
    ]);
    expect(all.suggestedFilename()).toBe('resized-images.zip');
    const zip = await JSZip.loadAsync(readFileSync((await all.path())!));
    const names = Object.keys(zip.files).sort();
    expect(names).toEqual(['resized-landscape.jpg', 'resized-square.jpg']);
    const sizes = [];
    for (const name of names) {
      const m = await sharp(await zip.file(name)!.async('nodebuffer')).metadata();
      sizes.push([m.format, m.width, m.height]);
    }
    expect(sizes).toEqual([
      ['jpeg', 200, 150],
      ['jpeg', 150, 150],
    ]);
  });

  it('sends only selected images to analysis', async () => {
    const { page } = e2e;
    const before = e2e.alerts.length;
    await page.getByRole('button', { name: 'Send to Analysis' }).click();
    await expect.poll(() => e2e.alerts.length).toBe(before + 1);
    expect(e2e.alerts.at(-1)).toBe('Please select at least one image to analyze!');
    await page.getByRole('checkbox', { name: 'Select resized-square.jpg' }).check();
    await page.getByRole('button', { name: 'Send to Analysis' }).click();
    await page.waitForURL('**/analysis');
    const state = await page.evaluate(() => (history.state as { usr?: { images?: { name: string }[] } }).usr);
    expect(state?.images?.map((i) => i.name)).toEqual(['resized-square.jpg']);
    // The analysis page fetched the handed-over image and lists it as a png upload.
    await expect
      .poll(() => page.getByRole('list', { name: 'Selected files' }).locator('.file-name').allInnerTexts(), {
        timeout: 15_000,
      })
      .toEqual(['resized-square.png']);
  });

  it('Keep Aspect Ratio with photos of three shapes: the fields show the first, each photo keeps its own', async () => {
    const { page } = e2e;
    const shapes = [
      ['wide.jpg', 1280, 720],
      ['panorama.jpg', 1600, 806],
      ['camera.jpg', 4000, 3000],
    ] as const;
    for (const [name, w, h] of shapes) await gradient(join(dir, name), w, h);
    await page.goto(e2e.url('/resize'));
    await page.getByTestId('file-input').setInputFiles(shapes.map(([name]) => join(dir, name)));
    await page.getByRole('checkbox', { name: 'Keep Aspect Ratio' }).check();
    await width().fill('800');
    await expect.poll(() => height().inputValue()).toBe('450'); // the first photo's 16:9
    await page.getByRole('button', { name: 'Resize', exact: true }).click();
    const dialog = page.getByRole('dialog');
    await dialog
      .getByText('Resize 3 images to fit within 800 x 450 pixels, each keeping its own aspect ratio?')
      .waitFor();
    await dialog.getByRole('button', { name: 'Confirm' }).click();
    // 1600x806 is limited by the width (800 / 1.985 = 403.0), 4000x3000 by the height (450 * 4/3)
    await expect
      .poll(() => page.getByTestId('resized-size').allInnerTexts(), { timeout: 60_000 })
      .toEqual(['800 x 450', '800 x 403', '600 x 450']);
    const [one] = await Promise.all([
      page.waitForEvent('download'),
      page.getByRole('button', { name: 'Download resized-camera.jpg' }).click(),
    ]);
    const meta = await sharp(readFileSync((await one.path())!)).metadata();
    expect([meta.format, meta.width, meta.height]).toEqual(['jpeg', 600, 450]);
  });

  it('Reset clears files, sizes and results', async () => {
    const { page } = e2e;
    await page.goto(e2e.url('/resize'));
    await page.getByTestId('file-input').setInputFiles([square]);
    await width().fill('50');
    await height().fill('40');
    await page.getByRole('button', { name: 'Resize', exact: true }).click();
    await page.getByRole('dialog').getByRole('button', { name: 'Confirm' }).click();
    await expect.poll(() => page.getByTestId('resized-size').allInnerTexts(), { timeout: 30_000 }).toEqual(['50 x 40']);
    await page.getByRole('button', { name: 'Reset' }).click();
    expect(await items().count()).toBe(0);
    expect(await width().inputValue()).toBe('');
    expect(await height().inputValue()).toBe('');
    expect(await page.getByRole('list', { name: 'Selected files' }).count()).toBe(0);
  });
});
