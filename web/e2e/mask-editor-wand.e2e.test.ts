/**
 * The mask editor from /viewphoto/result (issue 28 items 1 and 5), in headless Chromium: a photo is
 * scored on the Bruise page (the shipped model), its detail page opens the editor ("Correct"), a
 * false lesion is deleted whole, a lesion the model missed is added with the magic wand (its
 * `bruise-probability` at a low threshold), Save; the page then shows the corrected %, marked
 * corrected. Then the editor on a touch screen (Chromium's touch emulation): one finger stroke paints
 * lesion. Screenshots of the editor before and after, in English and Thai, go to $MANGO_SCREENSHOTS
 * (or a temp dir).
 */
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Locator } from 'playwright-core';
import { encodeImage } from '@mango/core/node';
import { fruitScene } from '@mango/core/testing';
import { signInViaApi, startE2E, type E2E } from './harness.ts';
import { editorReady, openDetailPage, scorePairViaApi, stageAt } from './editor-helpers.ts';
import { untranslated } from './i18n-helpers.ts';

const shots = process.env.MANGO_SCREENSHOTS ?? mkdtempSync(join(tmpdir(), 'mango-editor-shots-'));
mkdirSync(shots, { recursive: true });

/** The three spots of the scene (photo pixels). */
const LESION = { x: 100, y: 110 }; // dark brown, radius 26, left fruit: the model finds it (as in bruisedPairScene)
const FALSE = { x: 360, y: 120 }; // dark brown, radius 14, right fruit: the one deleted as false
const MISSED = { x: 150, y: 150 }; // faint, darkest 26 % at its centre, left fruit: the model misses it

/**
 * Two shaded mangoes (480 x 240) with the three spots above. Measured with the shipped model (2026-11-28,
 * the quarter-turn views): the probability is 34 of 255 at the faint spot's centre (below 128: not in the
 * model's mask), 150 of its ~800 pixels at 5 % or more (40 at 10 %), and 0 on healthy peel.
 */
function threeSpotScene() {
  const shade = (u: number, v: number) => 1 - 0.15 * (u * u + v * v);
  return fruitScene({
    width: 480,
    height: 240,
    background: [200, 200, 205],
    seed: 3,
    fruits: [
      { cx: 120, cy: 120, rx: 90, ry: 70, peel: [235, 170, 40], shade },
      { cx: 350, cy: 120, rx: 85, ry: 68, peel: [225, 180, 50], shade },
    ],
    paint: (rgb, x, y) => {
      if ((x - LESION.x) ** 2 + (y - LESION.y) ** 2 < 26 ** 2) return [95, 60, 25];
      if ((x - FALSE.x) ** 2 + (y - FALSE.y) ** 2 < 14 ** 2) return [95, 60, 25];
      const d = Math.hypot(x - MISSED.x, y - MISSED.y);
      if (d >= 16) return rgb;
      const k = 0.74 + 0.26 * (d / 16) ** 2;
      return [rgb[0] * k, rgb[1] * k * 0.95, rgb[2] * k];
    },
  }).image;
}

const numberIn = async (l: Locator) => Number((await l.textContent())!.replace(/[^\d.]/g, ''));

async function scenePhoto() {
  const photo = join(mkdtempSync(join(tmpdir(), 'mango-wand-')), 'three-spots.png');
  writeFileSync(photo, await encodeImage(threeSpotScene(), 'png'));
  return photo;
}

describe('/viewphoto/result of a run that did not keep its photo', () => {
  let e2e: E2E;
  beforeAll(async () => {
    e2e = await startE2E({ keepRunPhotos: false });
    await signInViaApi(e2e);
  }, 120_000);
  afterAll(() => e2e?.close());

  it('says "photo not kept" instead of a Correct button (and in Thai)', async () => {
    const { page } = e2e;
    await openDetailPage(e2e, await scenePhoto());
    await expect
      .poll(() => page.getByTestId('photo-not-kept').textContent(), { timeout: 30_000 })
      .toBe('photo not kept');
    expect(await page.getByRole('button', { name: 'Correct', exact: true }).count()).toBe(0);
    // everything the page showed before is still there
    for (const id of ['filename', 'total-pixels', 'bruise-percent', 'non-bruise-percent'])
      expect(await page.getByTestId(id).count()).toBe(1);
    await page.evaluate(() => localStorage.setItem('language', 'th'));
    await page.reload();
    await expect.poll(() => page.getByTestId('photo-not-kept').textContent()).toBe('ไม่ได้เก็บภาพถ่าย');
  }, 180_000);
});

describe('the mask editor from /viewphoto/result: magic wand, delete a lesion, touch', () => {
  let e2e: E2E;
  let runId = '';

  beforeAll(async () => {
    e2e = await startE2E();
    await signInViaApi(e2e);
  }, 120_000);
  afterAll(() => e2e?.close());

  it('scores a photo, opens the editor from its detail page, deletes a false lesion, adds a missed one with the wand, saves', async () => {
    const { page } = e2e;
    const photo = await scenePhoto();
    await openDetailPage(e2e, photo);
    const modelPercent = (await page.getByTestId('bruise-percent').textContent())!.trim();
    runId = (await page.evaluate(
      () => (JSON.parse(localStorage.getItem('uploadedFiles') ?? '[]') as { run_id?: string }[])[0]?.run_id,
    ))!;
    expect(runId).toBeTruthy();

    // The editor in Thai first (before any correction), then in English.
    await page.evaluate(() => localStorage.setItem('language', 'th'));
    await page.reload();
    await page.getByRole('button', { name: 'แก้ไข', exact: true }).click();
    let editor = await editorReady(page);
    await editor.getByRole('button', { name: 'แป้นลัด' }).click();
    // key names stay as the keyboard prints them
    expect(await untranslated(e2e, ['three-spots.png', 'Enter', 'Ctrl+Z', 'Ctrl+Shift+Z'])).toEqual([]);
    await page.screenshot({ path: join(shots, 'wand-before-th.png'), fullPage: true });
    await editor.getByRole('button', { name: 'ปิด' }).click();
    await page.evaluate(() => localStorage.setItem('language', 'en'));
    await page.reload();
    await page.getByRole('button', { name: 'Correct', exact: true }).click();
    editor = await editorReady(page);
    expect(`${await editor.getByTestId('editor-bruise-percent').textContent()}%`).toBe(modelPercent);
    const rows = editor.getByTestId('editor-fruit');
    expect(await rows.count()).toBe(2);
    const lesionPx = () => numberIn(editor.getByTestId('editor-bruise-pixels'));
    const rowLesionPx = (k: number) => numberIn(rows.nth(k).locator('td').nth(2));
    const start = await lesionPx();
    const falsePx = await rowLesionPx(1);
    expect(falsePx).toBeGreaterThan(400); // the right fruit's spot, radius 14: ~615 px
    await page.screenshot({ path: join(shots, 'wand-before-en.png'), fullPage: true });
    const at = await stageAt(editor);

    // Delete the false lesion: one click removes it whole.
    await editor.getByRole('button', { name: 'Delete region' }).click();
    await page.mouse.click(at(FALSE).x, at(FALSE).y);
    await expect.poll(() => rowLesionPx(1)).toBe(0);
    expect(await lesionPx()).toBe(start - falsePx);

    // The magic wand at 5 %: the faint lesion the model missed, and nothing of the healthy peel.
    const leftBefore = await rowLesionPx(0);
    await editor.getByRole('button', { name: 'Magic wand' }).click();
    await editor.getByRole('slider', { name: 'Magic wand threshold' }).fill('5');
    await page.mouse.click(at(MISSED).x, at(MISSED).y);
    await expect.poll(() => rowLesionPx(0)).toBeGreaterThan(leftBefore);
    const added = (await rowLesionPx(0)) - leftBefore;
    // the faint spot is a disc of radius 16 (~800 px): the region is inside it, more than a few pixels
    expect(added, `wand added ${added}`).toBeGreaterThan(50);
    expect(added).toBeLessThan(805);
    // one click on healthy peel adds nothing
    await page.mouse.click(at({ x: 60, y: 150 }).x, at({ x: 60, y: 150 }).y);
    await expect.poll(() => editor.getByRole('status').textContent()).toBe('Nothing at or above the threshold here');
    // the wand is one undo step
    await editor.focus();
    await page.keyboard.press('Control+z');
    await expect.poll(() => rowLesionPx(0)).toBe(leftBefore);
    await page.keyboard.press('Control+Shift+z');
    await expect.poll(() => rowLesionPx(0)).toBe(leftBefore + added);
    const corrected = (await editor.getByTestId('editor-bruise-percent').textContent())!;
    expect(`${corrected}%`).not.toBe(modelPercent);
    await page.screenshot({ path: join(shots, 'wand-after-en.png'), fullPage: true });

    await editor.getByRole('button', { name: 'Save' }).click();
    await expect.poll(() => page.getByTestId('corrected-mark').count(), { timeout: 30_000 }).toBe(1);
    await page.screenshot({ path: join(shots, 'wand-saved-en.png'), fullPage: true });
    expect((await page.getByTestId('bruise-percent').textContent())!.startsWith(`${corrected}%`)).toBe(true);
    expect(await page.getByTestId('model-percent').textContent()).toBe(`model: ${modelPercent.replace('%', '')} %`);

    // In Thai, reopened on the saved truth.
    await page.evaluate(() => localStorage.setItem('language', 'th'));
    await page.reload();
    await expect.poll(() => page.getByTestId('corrected-mark').textContent()).toBe('แก้ไขแล้ว');
    await page.getByRole('button', { name: 'แก้ไข', exact: true }).click();
    editor = await editorReady(page);
    expect(await editor.getByTestId('editor-bruise-percent').textContent()).toBe(corrected);
    expect(await untranslated(e2e, ['three-spots.png'])).toEqual([]);
    await page.screenshot({ path: join(shots, 'wand-after-th.png'), fullPage: true });
    await page.evaluate(() => localStorage.setItem('language', 'en'));
  }, 300_000);

  it('grades each fruit live, with cm², when the run had grades and a scale', async () => {
    const { page } = e2e;
    const token = await page.evaluate(() => localStorage.getItem('accessToken')!);
    const item = await scorePairViaApi(e2e, token, { grades: 'percent', px_per_cm: '20' });
    expect(item.fruits.map((f) => f.grade)).toEqual(['Reject', 'A']); // over 10 % and 0 % under `percent`
    await page.goto(e2e.url(`/results/${item.run_id}`));
    await page.getByRole('button', { name: 'Correct', exact: true }).click();
    const editor = await editorReady(page);
    const rows = editor.getByTestId('editor-fruit');
    const cell = (k: number, c: number) => rows.nth(k).locator('td').nth(c).textContent();
    expect(await editor.getByRole('columnheader').allTextContents()).toEqual([
      'Fruit',
      'Pixels',
      'Lesion pixels',
      'Bruise %',
      'Bruise cm²',
      'Grade',
    ]);
    expect([await cell(0, 4), await cell(0, 5), await cell(1, 5)]).toEqual([
      item.fruits[0].bruise_area_cm2!.toFixed(2),
      'Reject',
      'A',
    ]);
    // The lesion deleted whole: the fruit is graded A at once, 0 cm² of bruise.
    await editor.getByRole('button', { name: 'Delete region' }).click();
    const at = await stageAt(editor);
    await page.mouse.click(at(LESION).x, at(LESION).y);
    await expect.poll(() => cell(0, 5)).toBe('A');
    expect([await cell(0, 2), await cell(0, 4)]).toEqual(['0', '0.00']);
    await editor.getByRole('button', { name: 'Close' }).click();
  }, 180_000);

  it('paints with one finger on a touch screen (pointer events from touch)', async () => {
    expect(runId).toBeTruthy();
    const tokens = await e2e.page.evaluate(() => ({
      access: localStorage.getItem('accessToken')!,
      refresh: localStorage.getItem('refreshToken')!,
    }));
    const context = await e2e.browser.newContext({
      hasTouch: true,
      isMobile: true,
      viewport: { width: 1024, height: 1366 },
    });
    try {
      await context.addInitScript((t) => {
        localStorage.setItem('accessToken', t.access);
        localStorage.setItem('refreshToken', t.refresh);
        localStorage.setItem('language', 'en');
      }, tokens);
      const page = await context.newPage();
      await page.goto(e2e.url(`/results/${runId}`));
      // a tap that lands while the run page is still loading its items opens nothing: tap until the editor is there
      const shown = page.getByTestId('mask-editor');
      for (let tries = 0; tries < 12 && (await shown.count()) === 0; tries++) {
        await page.getByRole('button', { name: 'Correct', exact: true }).tap();
        await shown.waitFor({ state: 'visible', timeout: 5_000 }).catch(() => undefined);
      }
      const editor = await editorReady(page);
      const before = await numberIn(editor.getByTestId('editor-bruise-pixels'));
      await editor.getByRole('button', { name: 'Brush' }).tap();
      const at = await stageAt(editor);
      // One finger drags across healthy peel of the right fruit (x 300 -> 330 at y 90).
      const cdp = await context.newCDPSession(page);
      const touch = (type: 'touchStart' | 'touchMove' | 'touchEnd', p?: { x: number; y: number }) =>
        cdp.send('Input.dispatchTouchEvent', {
          type,
          touchPoints: p ? [{ x: p.x, y: p.y, id: 1, radiusX: 2, radiusY: 2, force: 1 }] : [],
        });
      await touch('touchStart', at({ x: 300, y: 90 }));
      for (let x = 303; x <= 330; x += 3) await touch('touchMove', at({ x, y: 90 }));
      await touch('touchEnd');
      await expect.poll(() => numberIn(editor.getByTestId('editor-bruise-pixels'))).toBeGreaterThan(before);
      const after = await numberIn(editor.getByTestId('editor-bruise-pixels'));
      // a 12-px brush (stage pixels at this fit) along 30 photo px: a band of some hundreds of pixels
      expect(after - before, `touch painted ${after - before}`).toBeGreaterThan(100);
      await page.screenshot({ path: join(shots, 'touch-stroke.png'), fullPage: true });

      // One fruit selected limits the tools to it: the wand tapped on the other fruit's dark spot (the
      // false lesion deleted before, its probability still high) adds nothing; with all fruit it does.
      await editor.getByRole('button', { name: 'Magic wand' }).tap();
      await editor.getByRole('slider', { name: 'Magic wand threshold' }).fill('50');
      await editor.getByTestId('editor-fruit-select').selectOption({ label: 'fruit 1' });
      await page.touchscreen.tap(at(FALSE).x, at(FALSE).y);
      await expect.poll(() => editor.getByRole('status').textContent()).toBe('Nothing at or above the threshold here');
      expect(await numberIn(editor.getByTestId('editor-bruise-pixels'))).toBe(after);
      await editor.getByTestId('editor-fruit-select').selectOption({ label: 'All fruit' });
      await page.touchscreen.tap(at(FALSE).x, at(FALSE).y);
      await expect.poll(() => numberIn(editor.getByTestId('editor-bruise-pixels'))).toBeGreaterThan(after);
      const spot = (await numberIn(editor.getByTestId('editor-bruise-pixels'))) - after;
      // the spot is a disc of radius 14 (616 px); the model's mask of it had 638
      expect(spot, `wand on the spot: ${spot}`).toBeGreaterThan(450);
      expect(spot).toBeLessThan(800);
    } finally {
      await context.close();
    }
  }, 180_000);
});
