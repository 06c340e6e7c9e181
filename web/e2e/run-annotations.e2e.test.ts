/**
 * The run page's annotations (issue 28 item 2), in headless Chromium: a COCO file built in the test
 * from masks (the scene's two fruit, a lesion on the right one where the photo has none; and an entry
 * for a photo the run does not have) is imported through "Import annotations"; the page shows how
 * many photos matched and the entry that did not with its reason, and the photo's figure becomes the
 * imported masks' (marked corrected, the model's beside it). "Download annotations (COCO)" then gives
 * back the same masks; a CVAT zip imported next moves the figure again. Then a refusal, and the panel
 * in Thai.
 */
import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { decodeCocoRle, type CocoRle } from '@mango/core';
import { cocoFileOfMasks } from '@mango/plugin-bruise/coco';
import { cvatZip } from '@mango/server/testing';
import { signInViaApi, startE2E, type E2E } from './harness.ts';
import { scorePairViaApi } from './editor-helpers.ts';
import { untranslated } from './i18n-helpers.ts';

const W = 480;
const H = 240;

interface Coco {
  images: { file_name: string }[];
  annotations: { category_id: number; segmentation: CocoRle }[];
}

/** The scene's two fruit (its ellipses) and a lesion of radius r at (cx, cy) on them, at the photo's size. */
function correctedMasks(cx = 350, cy = 120, r = 15) {
  const fruit = new Uint8Array(W * H);
  const bruise = new Uint8Array(W * H);
  const inEllipse = (x: number, y: number, cx: number, cy: number, rx: number, ry: number) =>
    ((x + 0.5 - cx) / rx) ** 2 + ((y + 0.5 - cy) / ry) ** 2 <= 1;
  for (let y = 0; y < H; y++)
    for (let x = 0; x < W; x++) {
      const i = y * W + x;
      if (inEllipse(x, y, 120, 120, 88, 68) || inEllipse(x, y, 350, 120, 83, 66)) fruit[i] = 1;
      if (fruit[i] && (x - cx) ** 2 + (y - cy) ** 2 <= r ** 2) bruise[i] = 1;
    }
  return { width: W, height: H, fruit, bruise };
}
const count = (m: Uint8Array) => m.reduce((a, v) => a + (v ? 1 : 0), 0);

describe('the run page: download and import annotations', () => {
  let e2e: E2E;
  let token = '';
  let username = '';
  let runId = '';
  let modelPercent = 0;

  beforeAll(async () => {
    e2e = await startE2E();
    const signedIn = await signInViaApi(e2e);
    token = signedIn.tokens.accessToken;
    username = signedIn.user.username;
    const item = await scorePairViaApi(e2e, token);
    runId = item.run_id;
    modelPercent = item.bruise_percent;
  }, 120_000);
  afterAll(() => e2e?.close());

  it('imports a COCO file: the counts, the unmatched entry with its reason, the corrected figure; exports it back', async () => {
    const { page } = e2e;
    const masks = correctedMasks();
    const expected = (100 * count(masks.bruise)) / count(masks.fruit);
    expect(expected.toFixed(2)).not.toBe(modelPercent.toFixed(2));
    const coco = cocoFileOfMasks([
      { filename: 'pair.png', masks },
      { filename: 'not-in-run.png', masks },
    ]);

    await page.goto(e2e.url(`/results/${runId}`));
    await expect.poll(() => page.getByTestId('photo-percent').textContent()).toBe(`${modelPercent.toFixed(2)} %`);
    expect(await page.getByTestId('corrected-mark').count()).toBe(0);
    const panel = page.getByTestId('run-annotations');
    await panel.getByTestId('annotations-input').setInputFiles({
      name: 'corrections.json',
      mimeType: 'application/json',
      buffer: Buffer.from(JSON.stringify(coco)),
    });
    await expect
      .poll(() => panel.getByTestId('annotations-matched').textContent(), { timeout: 30_000 })
      .toBe('Photos matched: 1: pair.png');
    expect(await panel.getByTestId('annotations-unmatched-count').textContent()).toBe('Not matched: 1');
    const miss = (await panel.getByTestId('annotations-unmatched').allTextContents())[0];
    expect(miss).toMatch(/^not-in-run\.png: \S.{5,}/);

    // The photo's figure is the imported masks', marked corrected, the model's beside it.
    await expect.poll(() => page.getByTestId('photo-percent').textContent()).toBe(`${expected.toFixed(2)} %`);
    expect(await page.getByTestId('corrected-mark').count()).toBe(1);
    expect(await page.getByTestId('model-percent').textContent()).toBe(`model: ${modelPercent.toFixed(2)} %`);

    // Download annotations (COCO): the run's corrected photo with the same masks (IoU 1).
    const [download] = await Promise.all([
      page.waitForEvent('download'),
      panel.getByRole('button', { name: 'Download annotations (COCO)' }).click(),
    ]);
    expect(download.suggestedFilename()).toMatch(/\.json$/);
    const back = JSON.parse(readFileSync((await download.path())!, 'utf8')) as Coco;
    expect(back.images.map((i) => i.file_name)).toEqual(['pair.png']);
    const union = (category: number) => {
      const m = new Uint8Array(W * H);
      for (const a of back.annotations)
        if (a.category_id === category)
          decodeCocoRle(a.segmentation).mask.forEach((v, i) => {
            if (v) m[i] = 1;
          });
      return m;
    };
    expect(union(1)).toEqual(masks.fruit);
    expect(union(2)).toEqual(masks.bruise);

    // A CVAT "Segmentation mask 1.1" zip (as Windows names its type): a new version, the figure follows it.
    const cvat = correctedMasks(110, 130, 25);
    const cvatPercent = (100 * count(cvat.bruise)) / count(cvat.fruit);
    await panel.getByTestId('annotations-input').setInputFiles({
      name: 'cvat-export.zip',
      mimeType: 'application/x-zip-compressed',
      buffer: Buffer.from(await cvatZip([{ stem: 'pair', ...cvat }])),
    });
    await expect
      .poll(() => page.getByTestId('photo-percent').textContent(), { timeout: 30_000 })
      .toBe(`${cvatPercent.toFixed(2)} %`);
    expect(await panel.getByTestId('annotations-matched').textContent()).toBe('Photos matched: 1: pair.png');
    expect(await panel.getByTestId('annotations-unmatched-count').count()).toBe(0);
    expect(await page.getByTestId('model-percent').textContent()).toBe(`model: ${modelPercent.toFixed(2)} %`);
  }, 180_000);

  it('refuses a file that is no annotation format, with the reason; the panel in Thai', async () => {
    const { page } = e2e;
    const panel = page.getByTestId('run-annotations');
    await panel.getByTestId('annotations-input').setInputFiles({
      name: 'notes.json',
      mimeType: 'application/json',
      buffer: Buffer.from(JSON.stringify({ hello: 'world' })),
    });
    await expect.poll(() => panel.getByRole('alert').textContent(), { timeout: 30_000 }).toMatch(/\S{5,}/);
    expect(await panel.getByTestId('annotations-answer').count()).toBe(0);

    await page.evaluate(() => localStorage.setItem('language', 'th'));
    await page.reload();
    await expect
      .poll(() => panel.getByRole('button', { name: 'ดาวน์โหลดคำอธิบายประกอบ (COCO)' }).count(), { timeout: 30_000 })
      .toBe(1);
    expect(await panel.getByText('นำเข้าคำอธิบายประกอบ').count()).toBe(1);
    // the user's own data: the photo's name, their name, the method the run used
    expect(await untranslated(e2e, ['pair.png', username, 'classical'])).toEqual([]);
    await page.evaluate(() => localStorage.setItem('language', 'en'));
  }, 120_000);
});
