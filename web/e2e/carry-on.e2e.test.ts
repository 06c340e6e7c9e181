/**
 * A web batch that carries on (issue 27 item 5): one good photo with a text file renamed .jpg, a
 * 0-byte file and a cut JPEG. The bruise and feature pages list the bad files inline with their
 * reason (no alert) and score the good photo; the spec's alerts for a wrong extension and an empty
 * selection stay. More than 10 photos (a batch job) with grades and a bad file: the same inline
 * list, and the results keep their grades. Screenshots in web/e2e/artifacts/ (git-ignored).
 */
import { copyFileSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createImage } from '@mango/core';
import { encodeImage } from '@mango/core/node';
import { bruisedPairScene } from '@mango/core/testing';
import { signInViaApi, startE2E, type E2E } from './harness.ts';

const ARTIFACTS = resolve(import.meta.dirname, 'artifacts');

describe('a web batch carries on past bad files', () => {
  let e2e: E2E;
  let dir: string;
  let good: string;
  let bad: string[];
  beforeAll(async () => {
    e2e = await startE2E();
    await signInViaApi(e2e);
    mkdirSync(ARTIFACTS, { recursive: true });
    dir = mkdtempSync(join(tmpdir(), 'mango-e2e-carry-on-'));
    good = join(dir, 'good.png');
    writeFileSync(good, await encodeImage(bruisedPairScene().image, 'png'));
    const jpeg = await encodeImage(createImage(64, 48, [200, 150, 40, 255]), 'jpeg');
    const files: [string, Uint8Array | string][] = [
      ['notes.jpg', 'a text file renamed .jpg'],
      ['empty.jpg', new Uint8Array(0)],
      ['cut.jpg', jpeg.subarray(0, Math.floor(jpeg.length / 3))],
    ];
    bad = files.map(([name, bytes]) => {
      const path = join(dir, name);
      writeFileSync(path, bytes);
      return path;
    });
  });
  afterAll(async () => {
    await e2e?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  /** The inline list: its heading and each failed photo as [name, reason]. */
  async function failedList() {
    const { page } = e2e;
    const box = page.getByTestId('failed-photos');
    await box.waitFor({ timeout: 90_000 });
    const items = box.getByTestId('failed-photo');
    const rows = await Promise.all(
      Array.from({ length: await items.count() }, async (_, i) => [
        await items.nth(i).locator('.file-name').innerText(),
        await items.nth(i).locator('.failed-reason').innerText(),
      ]),
    );
    return { heading: await box.locator('p').first().innerText(), rows };
  }

  const REASONS = [
    ['notes.jpg', 'Not a supported image (JPEG or PNG expected).'],
    ['empty.jpg', 'The file is empty (0 bytes).'],
    ['cut.jpg', 'The image is damaged and could not be read.'],
  ];

  it('keeps the spec alerts: a wrong extension only, and Process with no files', async () => {
    const { page, alerts } = e2e;
    const before = alerts.length;
    const txt = join(dir, 'notes.txt');
    writeFileSync(txt, 'plain text');
    await page.goto(e2e.url('/bruise'));
    await page.getByTestId('file-input').setInputFiles([txt]);
    await expect.poll(() => alerts.length).toBe(before + 1);
    await page.getByRole('button', { name: 'Process' }).click();
    await expect
      .poll(() => alerts.slice(before))
      .toEqual(['Only .jpg, .jpeg, and .png files are allowed.', 'Please select files to upload.']);
  });

  it('bruise: the three bad files listed with their reason, the good photo scored', async () => {
    const { page, alerts } = e2e;
    const before = alerts.length;
    await page.goto(e2e.url('/bruise'));
    await page.getByTestId('file-input').setInputFiles([bad[0], good, bad[1], bad[2]]);
    await expect.poll(() => page.locator('.file-list li').count()).toBe(4);
    await page.getByRole('button', { name: 'Process' }).click();
    await page.getByRole('dialog').getByRole('button', { name: 'Confirm' }).click();
    const { heading, rows } = await failedList();
    expect(heading).toBe('3 of 4 photos could not be processed.');
    expect(rows).toEqual(REASONS);
    // the server's own words are the tooltip of each line
    expect(await page.getByTestId('failed-photo').nth(1).getAttribute('title')).toBe('empty.jpg is empty (0 bytes)');
    expect(new URL(page.url()).pathname).toBe('/bruise');
    expect(alerts.slice(before)).toEqual([]);
    await page.screenshot({ path: join(ARTIFACTS, 'carry-on-bruise.png'), fullPage: true });
    await page.getByRole('button', { name: 'View the results of the scored photos (1)' }).click();
    await page.waitForURL('**/showarea/accuracy');
    // the table renders after the page has fetched the result: wait for it before reading a row
    await expect.poll(() => page.getByTestId('result-row').count()).toBe(1);
    const row = await page.getByTestId('result-row').nth(0).locator('td').allInnerTexts();
    expect(row[0]).toBe('good.png');
    expect(Number(row[2])).toBeGreaterThan(1);
  });

  it('analysis: the same bad files listed, the good photo analysed', async () => {
    const { page, alerts } = e2e;
    const before = alerts.length;
    await page.goto(e2e.url('/analysis'));
    await page.getByLabel('RGB Color Space').check();
    await page.getByTestId('file-input').setInputFiles([good, ...bad]);
    await page.getByRole('button', { name: 'Analyze' }).click();
    const { heading, rows } = await failedList();
    expect(heading).toBe('3 of 4 photos could not be processed.');
    expect(rows).toEqual(REASONS);
    expect(alerts.slice(before)).toEqual([]);
    await page.getByRole('button', { name: 'View the results of the scored photos (1)' }).click();
    await page.waitForURL('**/analysis/result');
    await expect.poll(() => page.getByTestId('feature-row').count()).toBe(4);
    const first = page.getByTestId('feature-row').nth(0);
    expect(await first.locator('th').innerText()).toBe('good.png');
    expect(Number((await first.locator('td').allInnerTexts())[0])).toBeGreaterThan(0);
  });

  it('11 photos with grades (a batch job) and a 0-byte file: listed inline, 10 rows with their grades', async () => {
    const { page, alerts } = e2e;
    const before = alerts.length;
    const photos = Array.from({ length: 10 }, (_, i) => {
      const path = join(dir, `crate-${String(i).padStart(2, '0')}.png`);
      copyFileSync(good, path);
      return path;
    });
    await page.goto(e2e.url('/bruise'));
    await page.getByTestId('file-input').setInputFiles([...photos, bad[1]]);
    await page.locator('select[name="grades"]').selectOption('percent');
    await page.getByRole('button', { name: 'Process' }).click();
    await page.getByRole('dialog').getByRole('button', { name: 'Confirm' }).click();
    await page.getByTestId('job-progress').waitFor();
    const { heading, rows } = await failedList();
    expect(heading).toBe('1 of 11 photos could not be processed.');
    expect(rows).toHaveLength(1);
    expect(rows[0][0]).toBe('empty.jpg');
    expect(rows[0][1]).toMatch(/empty/);
    expect(alerts.slice(before)).toEqual([]);
    await page.getByRole('button', { name: 'View the results of the scored photos (10)' }).click();
    await page.waitForURL('**/showarea/accuracy');
    await expect.poll(() => page.getByTestId('result-row').count()).toBe(10);
    // the grades were applied to the job's photos: the photo page shows each fruit's grade
    await page.getByRole('button', { name: 'View crate-00.png' }).click();
    await page.getByRole('dialog').getByRole('button', { name: 'Details' }).click();
    await page.waitForURL('**/viewphoto/result');
    await page.getByTestId('grades').waitFor();
    const grades = await page.getByTestId('fruit-grade').allInnerTexts();
    expect(grades.length).toBeGreaterThan(0);
    for (const g of grades) expect(g.trim()).not.toBe('');
  });
});
