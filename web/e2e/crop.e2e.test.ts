import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import sharp from 'sharp';
import { signInViaApi, startE2E, type E2E } from './harness.ts';

const W = 800;
const H = 500;

/** Pixel (x, y) encodes its own position: red x & 255, green y & 255, blue x >> 8. */
async function coordinatePng(path: string) {
  const raw = Buffer.alloc(W * H * 3);
  for (let y = 0; y < H; y++) for (let x = 0; x < W; x++) raw.set([x & 255, y & 255, x >> 8], (y * W + x) * 3);
  await sharp(raw, { raw: { width: W, height: H, channels: 3 } })
    .png()
    .toFile(path);
}

async function decodePng(path: string) {
  const { data, info } = await sharp(readFileSync(path)).ensureAlpha().raw().toBuffer({ resolveWithObject: true });
  return { data, width: info.width, height: info.height, format: (await sharp(readFileSync(path)).metadata()).format };
}

describe('Crop page', () => {
  let e2e: E2E;
  let token = '';
  let dir = '';
  let photo = '';
  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'mango-crop-e2e-'));
    photo = join(dir, 'coords.png');
    await coordinatePng(photo);
    e2e = await startE2E();
    token = (await signInViaApi(e2e)).tokens.accessToken;
  });
  afterAll(async () => {
    await e2e?.close();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  const saved = () => e2e.page.getByRole('button', { name: 'Saved' });

  it('asks for an image before saving and states the supported formats', async () => {
    const { page } = e2e;
    await page.goto(e2e.url('/crop'));
    await page.getByRole('heading', { name: 'Image Cropper' }).waitFor();
    expect(await page.getByText('Supports JPG, PNG, WEBP (Max 5MB)').isVisible()).toBe(true);
    await saved().click();
    await expect.poll(() => e2e.alerts.at(-1)).toBe('Please upload an image first!');
    expect(await page.getByRole('dialog').count()).toBe(0);
  });

  it('crops the 4:3 box at zoom 1 exactly from the image (Download Only)', async () => {
    const { page } = e2e;
    await page.getByTestId('file-input').setInputFiles(photo);
    // Zoom 1 covers the 480x360 box: scale max(480/800, 360/500) = 0.72, so 667x500 image pixels.
    await expect.poll(() => page.getByTestId('crop-info').innerText()).toBe('667 x 500 px at (67, 0), rotated 0°');
    await saved().click();
    const dialog = page.getByRole('dialog');
    await dialog.getByRole('button', { name: 'Cancel' }).click();
    expect(await dialog.count()).toBe(0);
    await saved().click();
    const [download] = await Promise.all([
      page.waitForEvent('download'),
      dialog.getByRole('button', { name: 'Download Only' }).click(),
    ]);
    expect(download.suggestedFilename()).toBe('cropped-image.png');
    const png = await decodePng((await download.path())!);
    expect([png.format, png.width, png.height]).toEqual(['png', 667, 500]);
    // Centred box: left edge at x = round((800 - 666.67) / 2) = 67; every pixel is the source pixel.
    for (const [x, y] of [
      [0, 0],
      [666, 499],
      [300, 250],
    ]) {
      const i = (y * 667 + x) * 4;
      const sx = png.data[i] + 256 * png.data[i + 2];
      expect([sx, png.data[i + 1], png.data[i + 3]]).toEqual([x + 67, y & 255, 255]);
    }
    await expect
      .poll(async () => {
        const history = (await (
          await fetch(e2e.url('/api-node/user/history'), { headers: { Authorization: `Bearer ${token}` } })
        ).json()) as { operation_type: string }[];
        return history.map((h) => h.operation_type);
      })
      .toContain('Crop');
  });

  it('zooms 1 to 3 in steps of 0.1, rotates by 15 degrees, keeps 4:3 and resets', async () => {
    const { page } = e2e;
    const zoom = page.getByRole('slider', { name: 'Zoom' });
    expect([await zoom.getAttribute('min'), await zoom.getAttribute('max'), await zoom.getAttribute('step')]).toEqual([
      '1',
      '3',
      '0.1',
    ]);
    await zoom.focus();
    for (let i = 0; i < 10; i++) await page.keyboard.press('ArrowRight');
    await expect.poll(() => page.getByTestId('zoom-value').innerText()).toBe('2.0x');
    await expect.poll(() => page.getByTestId('crop-info').innerText()).toBe('333 x 250 px at (233, 125), rotated 0°');
    // Arrow keys pan the image: 8 stage pixels left moves the box 8 / 1.44 image pixels right.
    await page.getByTestId('crop-stage').focus();
    await page.keyboard.press('ArrowLeft');
    await expect.poll(() => page.getByTestId('crop-info').innerText()).toBe('333 x 250 px at (239, 125), rotated 0°');
    await page.getByRole('button', { name: /Rotate/ }).click();
    await expect.poll(() => page.getByTestId('crop-info').innerText()).toMatch(/rotated 15°$/);
    await page.screenshot({ path: '/tmp/e2e-shots/crop.png', fullPage: true });
    await saved().click();
    const [download] = await Promise.all([
      page.waitForEvent('download'),
      page.getByRole('dialog').getByRole('button', { name: 'Download & Send to Analysis' }).click(),
    ]);
    expect(download.suggestedFilename()).toBe('cropped-image.png');
    const png = await decodePng((await download.path())!);
    expect(png.format).toBe('png');
    expect(Math.abs(png.width / png.height - 4 / 3)).toBeLessThan(0.01);
    await page.waitForURL('**/analysis');
    const state = await page.evaluate(() => (history.state as { usr?: { images?: { name: string }[] } }).usr);
    expect(state?.images?.map((i) => i.name)).toEqual(['cropped-image.png']);
    await expect
      .poll(() => page.getByRole('list', { name: 'Selected files' }).locator('.file-name').allInnerTexts(), {
        timeout: 15_000,
      })
      .toEqual(['cropped-image.png']);

    await page.goBack();
    await page.getByTestId('file-input').setInputFiles(photo);
    // The new image resets the view when it has loaded: press End until the zoom sticks at its maximum.
    await expect
      .poll(async () => {
        await page.getByRole('slider', { name: 'Zoom' }).focus();
        await page.keyboard.press('End');
        return page.getByTestId('zoom-value').innerText();
      })
      .toBe('3.0x');
    await page.getByRole('button', { name: 'Reset' }).click();
    await expect.poll(() => page.getByTestId('zoom-value').innerText()).toBe('1.0x');
    expect(await page.getByTestId('crop-info').innerText()).toBe('667 x 500 px at (67, 0), rotated 0°');
  });

  it('rotates on a grown canvas: transparent corners, the image centre in the middle', async () => {
    const { page } = e2e;
    await page.getByRole('button', { name: /Rotate/ }).click();
    // 800x500 turned 15 degrees needs a 903x691 canvas; the 4:3 box spans its width at zoom 1.
    await expect.poll(() => page.getByTestId('crop-info').innerText()).toBe('903 x 677 px at (0, 7), rotated 15°');
    await saved().click();
    const [download] = await Promise.all([
      page.waitForEvent('download'),
      page.getByRole('dialog').getByRole('button', { name: 'Download Only' }).click(),
    ]);
    const png = await decodePng((await download.path())!);
    expect([png.width, png.height]).toEqual([903, 677]);
    const at = (x: number, y: number) => Array.from(png.data.subarray((y * 903 + x) * 4, (y * 903 + x) * 4 + 4));
    expect(at(0, 0)[3]).toBe(0);
    expect(at(902, 676)[3]).toBe(0);
    const [r, g, b, a] = at(451, 338);
    expect(a).toBe(255);
    expect(Math.abs(r + 256 * b - 400)).toBeLessThanOrEqual(2); // source centre (400, 250)
    expect(Math.abs(g - 250)).toBeLessThanOrEqual(2);
  });
});
