/**
 * The mask editor end to end (issue 28 item 5), in headless Chromium: a user's stored run, the
 * Correct button of its photo, a missed lesion painted and the model's lesion erased, Save; the run
 * then shows the corrected % (marked corrected, the model's beside it) and its CSV has both.
 * Screenshots of the editor (its tools, photo and live figures) before and after, in English and Thai, go to
 * $MANGO_SCREENSHOTS (or a temp dir).
 */
import { mkdirSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import Papa from 'papaparse';
import type { Page } from 'playwright-core';
import { LAB_GRADE_RULES } from '@mango/core/testing';
import { signInViaApi, startE2E, type E2E } from './harness.ts';
import { scorePairViaApi, stageAt } from './editor-helpers.ts';

const shots = process.env.MANGO_SCREENSHOTS ?? mkdtempSync(join(tmpdir(), 'mango-editor-shots-'));
mkdirSync(shots, { recursive: true });

/** The editor alone (tools, photo, live figures), without the sticky header and the floating language switch over it. */
const shootEditor = (page: Page, name: string) =>
  page
    .getByTestId('mask-editor')
    .screenshot({ path: join(shots, name), style: 'header.navbar, .language-switch { visibility: hidden; }' });

describe('the mask editor', () => {
  let e2e: E2E;
  let token = '';
  let runId = '';
  let model = { bruise_percent: 0, total_mango_pixels: 0 };

  beforeAll(async () => {
    e2e = await startE2E();
    token = (await signInViaApi(e2e)).tokens.accessToken;
    const item = await scorePairViaApi(e2e, token);
    runId = item.run_id;
    model = item;
    expect(model.bruise_percent).toBeGreaterThan(0);
  }, 120_000);
  afterAll(() => e2e?.close());

  it('paints a missed lesion, erases the false one, saves: the run and its CSV show both figures', async () => {
    const { page } = e2e;
    await page.goto(e2e.url(`/results/${runId}`));
    await page.getByRole('button', { name: 'Correct' }).click();
    const editor = page.getByTestId('mask-editor');
    await expect
      .poll(() => editor.getByTestId('editor-bruise-percent').textContent(), { timeout: 30_000 })
      .toBe(model.bruise_percent.toFixed(2));
    await shootEditor(page, 'editor-before-en.png');
    const canvas = editor.getByTestId('mask-editor-stage').locator('canvas').first();
    // the editor opens below the run's plots: the strokes must land inside the viewport
    await canvas.scrollIntoViewIfNeeded();
    const box = (await canvas.boundingBox())!;
    // the photo (480 x 240) fitted to the stage, as the editor fits it
    const scale = Math.min(box.width / 480, box.height / 240);
    const at = (x: number, y: number) => [box.x + x * scale, box.y + y * scale] as const;

    // A missed lesion on the right fruit: a brush stroke on the lesion layer.
    await page.mouse.move(...at(330, 120));
    await page.mouse.down();
    for (let x = 330; x <= 370; x += 4) await page.mouse.move(...at(x, 120));
    await page.mouse.up();
    const painted = Number(
      await editor
        .getByTestId('editor-bruise-pixels')
        .textContent()
        .then((s) => s!.replace(/,/g, '')),
    );
    // The model's lesion (centre 100, 110) erased with a large eraser.
    await editor.getByRole('button', { name: 'Eraser' }).click();
    await editor.locator('input[type=range]').first().fill('120');
    await page.mouse.move(...at(100, 110));
    await page.mouse.down();
    await page.mouse.move(...at(102, 112));
    await page.mouse.up();
    const after = Number(
      await editor
        .getByTestId('editor-bruise-pixels')
        .textContent()
        .then((s) => s!.replace(/,/g, '')),
    );
    expect(painted, `painted ${painted}, after ${after}, model ${model.bruise_percent}`).toBeGreaterThan(0);
    expect(after).toBeGreaterThan(0);
    expect(after).toBeLessThan(painted);
    const percent = await editor.getByTestId('editor-bruise-percent').textContent();
    expect(percent).not.toBe(model.bruise_percent.toFixed(2));
    await shootEditor(page, 'editor-after-en.png');

    // Undo brings the erased lesion back, redo erases it again.
    await editor.focus();
    await page.keyboard.press('Control+z');
    await expect.poll(() => editor.getByTestId('editor-bruise-pixels').textContent()).not.toBe(String(after));
    await page.keyboard.press('Control+Shift+z');
    await expect.poll(() => editor.getByTestId('editor-bruise-percent').textContent()).toBe(percent);

    await editor.getByRole('button', { name: 'Save' }).click();
    // the save counts the figures and draws the overlay on the server: seconds on a loaded machine
    await expect.poll(() => page.getByTestId('corrected-mark').count(), { timeout: 30_000 }).toBe(1);
    await expect.poll(() => page.getByTestId('photo-percent').textContent()).toBe(`${percent} %`);
    expect(await page.getByTestId('model-percent').textContent()).toContain(model.bruise_percent.toFixed(2));

    const csv = await (
      await fetch(e2e.url(`/api-node/runs/${runId}/export?table=images`), {
        headers: { Authorization: `Bearer ${token}` },
      })
    ).text();
    const [row] = Papa.parse<Record<string, string>>(csv.trim(), { header: true }).data;
    expect(row.corrected).toBe('true');
    expect(Number(row.bruise_percent).toFixed(2)).toBe(percent);
    expect(Number(row.model_bruise_percent)).toBe(model.bruise_percent);
    expect(Number(row.model_fruit_pixels)).toBe(model.total_mango_pixels);

    // The editor in Thai, opened on the corrected truth.
    await page.evaluate(() => localStorage.setItem('language', 'th'));
    await page.goto(e2e.url(`/results/${runId}`));
    await page.getByRole('button', { name: 'แก้ไข' }).click();
    await expect.poll(() => page.getByTestId('editor-bruise-percent').textContent(), { timeout: 30_000 }).toBe(percent);
    await shootEditor(page, 'editor-after-th.png');
    // And before a correction, in Thai: a new run of the same photo, the model's masks.
    const fresh = await scorePairViaApi(e2e, token);
    await page.goto(e2e.url(`/results/${fresh.run_id}`));
    await page.getByRole('button', { name: 'แก้ไข' }).click();
    await expect
      .poll(() => page.getByTestId('editor-bruise-percent').textContent(), { timeout: 30_000 })
      .toBe(fresh.bruise_percent.toFixed(2));
    await shootEditor(page, 'editor-before-th.png');
  }, 180_000);

  it("grades the live figures with the run's own grade set (a lab's rules, not a preset)", async () => {
    const { page } = e2e;
    const item = await scorePairViaApi(e2e, token, { grades: JSON.stringify(LAB_GRADE_RULES) });
    // the left fruit's lesion is over 8 % of it, the right fruit has none
    expect(item.fruits.map((f) => f.grade)).toEqual(['Juice', 'Premium']);
    // (the test before ends in Thai)
    await page.evaluate(() => localStorage.setItem('language', 'en'));
    await page.goto(e2e.url(`/results/${item.run_id}`));
    // The run's lot summary counts the fruit per grade of the lab's rules, in their order.
    const lot = page.getByTestId('run-lot').locator('tbody tr');
    await expect
      .poll(() => lot.allInnerTexts(), { timeout: 30_000 })
      .toEqual(['Premium\t1\tyes', 'Standard\t0\tyes', 'Juice\t1\tno']);
    await page.getByRole('button', { name: 'Correct', exact: true }).click();
    const editor = page.getByTestId('mask-editor');
    const grades = () => editor.getByTestId('editor-fruit-grade').allTextContents();
    await expect.poll(grades, { timeout: 30_000 }).toEqual(['Juice', 'Premium']);
    // The left lesion deleted whole: graded Premium at once, by the lab's rules.
    await editor.getByRole('button', { name: 'Delete region' }).click();
    const at = await stageAt(editor);
    await page.mouse.click(at({ x: 100, y: 110 }).x, at({ x: 100, y: 110 }).y);
    await expect.poll(grades).toEqual(['Premium', 'Premium']);
    await editor.getByRole('button', { name: 'Close' }).click();
  }, 120_000);
});
