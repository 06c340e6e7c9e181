/**
 * /viewphoto/result after a correction (issue 28 item 1), in headless Chromium: a photo scored on the
 * Bruise page, the editor opened from its detail page, the model's lesion erased and a missed one
 * painted on the other fruit, Save; back on the page the overlay is the corrected masks' (read pixel by
 * pixel from the displayed image): untinted where the lesion was erased, tinted where one was painted,
 * the rest as the model's overlay drew it; the model's % stays beside the corrected one.
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import { encodeImage } from '@mango/core/node';
import { bruisedPairScene } from '@mango/core/testing';
import { signInViaApi, startE2E, type E2E } from './harness.ts';
import { editorReady, imagePixels, openDetailPage, stageAt } from './editor-helpers.ts';

/** The scene's lesion (left fruit, radius 26) and a spot on the healthy right fruit where one is painted. */
const LESION = { x: 100, y: 110 };
const PAINTED = { x: 350, y: 120 };
const HEALTHY = { x: 160, y: 160 };

/** The RGB of photo pixels in the displayed overlay image (scaled to its own size), with its kind. */
async function overlayPixels(page: Page, points: { x: number; y: number }[]) {
  const img = await imagePixels(page, 'img.overlay-img');
  const k = img.width / 480;
  return {
    kind: img.kind,
    size: [img.width, img.height],
    rgb: points.map((p) => {
      const i = (Math.floor(p.y * k) * img.width + Math.floor(p.x * k)) * 4;
      return img.data.slice(i, i + 3);
    }),
  };
}

describe('/viewphoto/result after a correction', () => {
  let e2e: E2E;

  beforeAll(async () => {
    e2e = await startE2E();
    await signInViaApi(e2e);
  }, 120_000);
  afterAll(() => e2e?.close());

  it("shows the corrected masks' overlay, and the model's % beside the corrected one", async () => {
    const { page } = e2e;
    const scene = bruisedPairScene().image;
    const photoAt = (p: { x: number; y: number }) => [
      ...scene.data.slice((p.y * 480 + p.x) * 4, (p.y * 480 + p.x) * 4 + 3),
    ];
    const photo = join(mkdtempSync(join(tmpdir(), 'mango-corrected-')), 'pair.png');
    writeFileSync(photo, await encodeImage(scene, 'png'));
    await openDetailPage(e2e, photo);
    const modelPercent = (await page.getByTestId('bruise-percent').textContent())!.trim();
    const before = await overlayPixels(page, [LESION, PAINTED, HEALTHY]);
    expect(before.kind).toBe('model');
    const [lesion0, painted0, healthy0] = before.rgb;
    // the model's overlay: the lesion tinted (red up, green down), the right fruit's peel as photographed
    expect(lesion0[0], `model overlay at the lesion ${lesion0}`).toBeGreaterThan(150);
    expect(lesion0[1]).toBeLessThan(60);
    expect(painted0[1], `model overlay on the right fruit ${painted0}`).toBeGreaterThan(130);

    await page.getByRole('button', { name: 'Correct', exact: true }).click();
    const editor = await editorReady(page);
    const at = await stageAt(editor);
    // A missed lesion on the right fruit: a brush stroke on the lesion layer.
    await page.mouse.move(at({ x: 330, y: PAINTED.y }).x, at(PAINTED).y);
    await page.mouse.down();
    for (let x = 330; x <= 370; x += 4) await page.mouse.move(at({ x, y: PAINTED.y }).x, at(PAINTED).y);
    await page.mouse.up();
    // The model's lesion erased with a large eraser.
    await editor.getByRole('button', { name: 'Eraser' }).click();
    await editor.locator('input[type=range]').first().fill('120');
    await page.mouse.move(at(LESION).x, at(LESION).y);
    await page.mouse.down();
    await page.mouse.move(at(LESION).x + 2, at(LESION).y + 2);
    await page.mouse.up();
    const corrected = (await editor.getByTestId('editor-bruise-percent').textContent())!;
    await editor.getByRole('button', { name: 'Save' }).click();
    await expect.poll(() => page.getByTestId('corrected-mark').count(), { timeout: 30_000 }).toBe(1);
    await editor.getByRole('button', { name: 'Close' }).click();

    // The overlay is redrawn from the saved truth.
    await expect
      .poll(() => page.locator('img.overlay-img').getAttribute('data-overlay'), { timeout: 30_000 })
      .toBe('corrected');
    const after = await overlayPixels(page, [LESION, PAINTED, HEALTHY]);
    expect(after.size).toEqual(before.size);
    const [lesion1, painted1, healthy1] = after.rgb;
    // erased: the brown spot exactly as photographed, no tint
    expect(photoAt(LESION)[0]).toBeLessThan(110);
    expect(lesion1, `corrected overlay at the erased lesion ${lesion1}`).toEqual(photoAt(LESION));
    // painted: the peel tinted 55 % toward (255, 0, 90)
    expect(painted1[0], `corrected overlay at the painted lesion ${painted1}`).toBeGreaterThan(painted0[0]);
    expect(painted1[1]).toBeLessThan(painted0[1] * 0.5);
    // the healthy peel is the photo in both (exactly in the corrected PNG; the model's overlay a JPEG: within its error)
    expect(healthy1).toEqual(photoAt(HEALTHY));
    for (let c = 0; c < 3; c++)
      expect(Math.abs(healthy1[c] - healthy0[c]), `${healthy0} vs ${healthy1}`).toBeLessThan(12);
    // the figures: the corrected % in force, the model's beside it
    expect((await page.getByTestId('bruise-percent').textContent())!.startsWith(`${corrected}%`)).toBe(true);
    expect(await page.getByTestId('model-percent').textContent()).toBe(`model: ${modelPercent.replace('%', '')} %`);

    // After a reload the page reads the truth again and draws the same overlay.
    await page.reload();
    await expect
      .poll(() => page.locator('img.overlay-img').getAttribute('data-overlay'), { timeout: 30_000 })
      .toBe('corrected');
    expect((await overlayPixels(page, [LESION, PAINTED, HEALTHY])).rgb).toEqual(after.rgb);
  }, 240_000);
});
