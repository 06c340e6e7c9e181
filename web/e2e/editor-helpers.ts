/** Steps the mask editor's end-to-end tests share: the detail page of a photo scored on the Bruise page, the editor's stage. */
import { basename } from 'node:path';
import { expect } from 'vitest';
import type { Locator, Page } from 'playwright-core';
import { encodeImage } from '@mango/core/node';
import { bruisedPairScene } from '@mango/core/testing';
import type { E2E } from './harness.ts';

/** Scores `photo` on the Bruise page and opens its row's detail page, /viewphoto/result. */
export async function openDetailPage(e2e: E2E, photo: string) {
  const { page } = e2e;
  await page.goto(e2e.url('/bruise'));
  await page.getByTestId('file-input').setInputFiles(photo);
  await page.getByRole('button', { name: 'Process' }).click();
  await page.getByRole('dialog').getByRole('button', { name: 'Confirm' }).click();
  await page.waitForURL('**/showarea/accuracy', { timeout: 90_000 });
  await page
    .getByTestId('result-row')
    .first()
    .getByRole('button', { name: basename(photo), exact: true })
    .click();
  await page.waitForURL('**/viewphoto/result');
}

/** The page position of a photo pixel on the editor's stage (a 480 x 240 photo fitted, as the editor fits it). */
export async function stageAt(editor: Locator) {
  const canvas = editor.getByTestId('mask-editor-stage').locator('canvas').first();
  await canvas.scrollIntoViewIfNeeded();
  const box = (await canvas.boundingBox())!;
  const scale = Math.min(box.width / 480, box.height / 240);
  return (p: { x: number; y: number }) => ({ x: box.x + p.x * scale, y: box.y + p.y * scale });
}

/** Waits for the editor to show its masks and the magic wand to have its probability. */
export async function editorReady(page: Page) {
  const editor = page.getByTestId('mask-editor');
  await expect.poll(() => editor.getByTestId('editor-bruise-pixels').count(), { timeout: 60_000 }).toBe(1);
  await expect
    .poll(() => editor.getByRole('button', { name: /^(Magic wand|ไม้กายสิทธิ์)$/ }).isEnabled(), { timeout: 60_000 })
    .toBe(true);
  return editor;
}

/**
 * The scene of two fruit, one bruised (`bruisedPairScene`, 480 x 240), scored by the classical method
 * through the API as `pair.png` with the form `fields` (grades, px_per_cm, ...): a stored run.
 */
export async function scorePairViaApi(e2e: E2E, token: string, fields: Record<string, string> = {}) {
  const fd = new FormData();
  fd.append('images', new Blob([(await encodeImage(bruisedPairScene().image, 'png')) as BlobPart]), 'pair.png');
  for (const [name, value] of Object.entries(fields)) fd.append(name, value);
  const res = await fetch(e2e.url('/api-py/python/bruise_detection/Classical'), {
    method: 'POST',
    headers: { Authorization: `Bearer ${token}` },
    body: fd,
  });
  expect(res.status).toBe(200);
  const [item] = (await res.json()) as {
    run_id: string;
    bruise_percent: number;
    total_mango_pixels: number;
    fruits: { bruise_percent: number; grade?: string; bruise_area_cm2?: number }[];
  }[];
  return item;
}

/** The pixels of the image `selector` shows (RGBA at its own size), read in the page, and its `data-overlay`. */
export async function imagePixels(page: Page, selector: string) {
  return page.evaluate(async (sel) => {
    const img = document.querySelector<HTMLImageElement>(sel);
    if (!img) throw new Error(`no image ${sel}`);
    await img.decode();
    const canvas = document.createElement('canvas');
    canvas.width = img.naturalWidth;
    canvas.height = img.naturalHeight;
    const ctx = canvas.getContext('2d')!;
    ctx.drawImage(img, 0, 0);
    const data = Array.from(ctx.getImageData(0, 0, canvas.width, canvas.height).data);
    return { kind: img.dataset.overlay, width: canvas.width, height: canvas.height, data };
  }, selector);
}
