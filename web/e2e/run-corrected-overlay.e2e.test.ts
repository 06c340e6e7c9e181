/**
 * The run page's overlay thumbnail after a correction (issue 28), in headless Chromium: a photo
 * scored by the classical method (the scene of two fruit, the left one bruised) is corrected by
 * importing a Label Studio JSON export (polygons in percent, as Label Studio writes them) through the
 * run page's "Import annotations": the lesion moves to the right fruit. The thumbnail's pixels,
 * read in the page, follow the corrected masks (tinted where the imported lesion is, not where the
 * model's was), it carries the "corrected masks" badge (in English and Thai), and the run's answer
 * keeps the model's thumbnail beside it.
 */
import { mkdirSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import { asSavedBeforeOverlays, backfillOverlays } from '@mango/server/testing';
import { signInViaApi, startE2E, type E2E } from './harness.ts';
import { imagePixels, scorePairViaApi } from './editor-helpers.ts';

const W = 480;
const H = 240;
/** the imported lesion: a disc on the right fruit, where the photo has none */
const LESION = { cx: 350, cy: 120, r: 22 };
/** the model's lesion is on the left fruit (bruisedPairScene): this disc lies inside it */
const MODEL_LESION = { cx: 100, cy: 110, r: 18 };

/** A circle or ellipse as a Label Studio polygon result (points in percent of the image). */
function polygon(label: string, cx: number, cy: number, rx: number, ry = rx, n = 72) {
  const points = Array.from({ length: n }, (_, k) => {
    const a = (2 * Math.PI * k) / n;
    return [((cx + rx * Math.cos(a)) / W) * 100, ((cy + ry * Math.sin(a)) / H) * 100];
  });
  return {
    type: 'polygonlabels',
    from_name: 'label',
    to_name: 'image',
    original_width: W,
    original_height: H,
    value: { points, polygonlabels: [label] },
  };
}

/** The overlay thumbnail of the run page: which overlay it is, its pixels, and how much of each disc (photo pixels) is tinted. */
async function thumbnail(page: Page) {
  const img = await imagePixels(page, '[data-testid="run-gallery"] img[data-overlay]');
  const k = img.width / W;
  const d = img.data;
  // a lesion pixel: the overlay's tint (255, 0, 90) at 55 % leaves red well above green
  const tinted = (i: number) => d[i * 4] - d[i * 4 + 1] > 90 && d[i * 4] > 150;
  const inDisc = [LESION, MODEL_LESION].map(({ cx, cy, r }) => {
    let n = 0;
    let t = 0;
    for (let y = 0; y < img.height; y++)
      for (let x = 0; x < img.width; x++) {
        // inside the disc by at least 2 thumbnail pixels (its edge is blended by the downscale)
        if (Math.hypot((x + 0.5) / k - cx, (y + 0.5) / k - cy) > r - 2 / k) continue;
        n++;
        if (tinted(y * img.width + x)) t++;
      }
    return t / n;
  });
  return { overlay: img.kind, width: img.width, inDisc, pixels: d };
}

describe('the run page: the overlay thumbnail of a corrected photo', () => {
  let e2e: E2E;
  let token = '';
  let runId = '';
  let modelPercent = 0;
  /** the thumbnail drawn from the imported masks (the first test) */
  let correctedPixels: number[] | undefined;

  beforeAll(async () => {
    e2e = await startE2E();
    token = (await signInViaApi(e2e)).tokens.accessToken;
    const item = await scorePairViaApi(e2e, token);
    runId = item.run_id;
    modelPercent = item.bruise_percent;
  }, 120_000);
  afterAll(() => e2e?.close());

  it('imports a Label Studio export on the annotations panel: the thumbnail is redrawn from the corrected masks, with its badge', async () => {
    const { page } = e2e;
    await page.goto(e2e.url(`/results/${runId}`));
    await expect.poll(() => page.getByTestId('photo-percent').textContent()).toBe(`${modelPercent.toFixed(2)} %`);
    const before = await thumbnail(page);
    expect(before.overlay).toBe('model');
    expect(await page.getByTestId('overlay-corrected-badge').count()).toBe(0);
    // the model tinted its lesion on the left fruit and nothing where the import puts one
    expect(before.inDisc[0]).toBeLessThan(0.05);
    expect(before.inDisc[1]).toBeGreaterThan(0.8);

    // A Label Studio JSON export: the two fruit and a lesion on the right one (the upload prefix in the name).
    const tasks = [
      {
        id: 1,
        data: { image: '/data/upload/1/5f3c2a1b-pair.png' },
        annotations: [
          {
            result: [
              polygon('Fruit', 120, 120, 88, 68),
              polygon('Fruit', 350, 120, 83, 66),
              polygon('Bruise', LESION.cx, LESION.cy, LESION.r),
            ],
          },
        ],
      },
    ];
    const panel = page.getByTestId('run-annotations');
    await panel.getByTestId('annotations-input').setInputFiles({
      name: 'project-1-at-2026-11-27.json',
      mimeType: 'application/json',
      buffer: Buffer.from(JSON.stringify(tasks)),
    });
    await expect
      .poll(() => panel.getByTestId('annotations-matched').textContent(), { timeout: 30_000 })
      .toBe('Photos matched: 1: pair.png');
    expect(await panel.getByTestId('annotations-unmatched-count').count()).toBe(0);
    await expect.poll(() => page.getByTestId('overlay-corrected-badge').textContent()).toBe('corrected masks');

    // The thumbnail's pixels: the imported lesion tinted, the model's gone; the same size as before.
    const after = await thumbnail(page);
    expect(after.overlay).toBe('corrected');
    expect(after.width).toBe(before.width);
    mkdirSync('/tmp/e2e-shots', { recursive: true });
    await page.screenshot({ path: '/tmp/e2e-shots/run-corrected.png', fullPage: true });
    console.log(
      `thumbnail tint in the imported lesion ${before.inDisc[0].toFixed(3)} -> ${after.inDisc[0].toFixed(3)}, in the model's ${before.inDisc[1].toFixed(3)} -> ${after.inDisc[1].toFixed(3)}`,
    );
    expect(after.inDisc[0]).toBeGreaterThan(0.9);
    expect(after.inDisc[1]).toBeLessThan(0.02);
    const changed = after.pixels.filter((v, i) => Math.abs(v - before.pixels[i]) > 40).length;
    expect(changed).toBeGreaterThan(500);

    // The run's answer: the figures in force are the imported masks', from Label Studio; the model's thumbnail beside.
    const run = (await (
      await fetch(e2e.url(`/api-node/runs/${runId}`), { headers: { Authorization: `Bearer ${token}` } })
    ).json()) as {
      items: {
        result: { bruise_percent: number };
        truth: { source: string };
        overlay_thumbnail: string;
        model_overlay_thumbnail: string;
      }[];
    };
    const [item] = run.items;
    expect(item.truth.source).toBe('import:labelstudio');
    expect(await page.getByTestId('photo-percent').textContent()).toBe(`${item.result.bruise_percent.toFixed(2)} %`);
    expect(item.result.bruise_percent).not.toBeCloseTo(modelPercent, 1);
    expect(item.model_overlay_thumbnail).not.toBe(item.overlay_thumbnail);

    // After a reload, and in Thai.
    await page.evaluate(() => localStorage.setItem('language', 'th'));
    await page.reload();
    await expect
      .poll(() => page.getByTestId('overlay-corrected-badge').textContent(), { timeout: 30_000 })
      .toBe('มาสก์ที่แก้ไขแล้ว');
    expect((await thumbnail(page)).pixels).toEqual(after.pixels);
    await page.evaluate(() => localStorage.setItem('language', 'en'));
    correctedPixels = after.pixels;
  }, 180_000);

  it("a correction saved before corrected overlays were stored: the model's overlay, marked, until the backfill draws it; a photo not kept keeps it", async () => {
    expect(correctedPixels, 'the test before corrects the photo').toBeDefined();
    const { page } = e2e;
    const db = e2e.server.ctx.db;
    const badge = page.getByTestId('overlay-model-badge');
    // The version as the code before migration 0020 saved it: no overlay of its masks.
    await asSavedBeforeOverlays(db, [runId]);
    await page.reload();
    await expect.poll(() => badge.getAttribute('data-reason'), { timeout: 30_000 }).toBe('pending');
    expect(await badge.textContent()).toBe("model's overlay");
    expect(await page.getByTestId('overlay-corrected-badge').count()).toBe(0);
    const pending = await thumbnail(page);
    expect(pending.overlay).toBe('model');
    expect(pending.inDisc[1]).toBeGreaterThan(0.8);

    // The backfill (what a server's start runs) draws it from the stored masks and the kept photo.
    expect((await backfillOverlays(e2e.server)).drawn).toBe(1);
    await page.reload();
    await expect
      .poll(() => page.getByTestId('overlay-corrected-badge').textContent(), { timeout: 30_000 })
      .toBe('corrected masks');
    expect(await badge.count()).toBe(0);
    expect((await thumbnail(page)).pixels).toEqual(correctedPixels);

    // A photo that was not kept: nothing to draw on, the model's overlay stays and says why, in English and Thai.
    await db.deleteFrom('run_photos').where('run_id', '=', runId).execute();
    await asSavedBeforeOverlays(db, [runId]);
    expect((await backfillOverlays(e2e.server)).photoNotKept).toBe(1);
    await page.reload();
    await expect.poll(() => badge.getAttribute('data-reason'), { timeout: 30_000 }).toBe('photo-not-kept');
    expect(await badge.getAttribute('title')).toBe(
      "The photo was not kept, so the corrected masks cannot be drawn: this is the model's overlay",
    );
    expect((await thumbnail(page)).overlay).toBe('model');
    await page.screenshot({ path: '/tmp/e2e-shots/run-model-overlay-not-kept.png', fullPage: true });
    await page.evaluate(() => localStorage.setItem('language', 'th'));
    await page.reload();
    await expect.poll(() => badge.textContent(), { timeout: 30_000 }).toBe('ภาพซ้อนทับของโมเดล');
    expect(await badge.getAttribute('title')).toBe('ไม่ได้เก็บภาพถ่ายไว้ จึงวาดมาสก์ที่แก้ไขแล้วไม่ได้: นี่คือภาพซ้อนทับของโมเดล');
    await page.evaluate(() => localStorage.setItem('language', 'en'));
  }, 120_000);
});
