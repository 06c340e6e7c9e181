/**
 * Re-scoring a stored run with another model (issue 28 item 4), in headless Chromium: a run scored
 * by the shipped model shows no re-scoring control while the server has one model; once a second
 * version is registered (the shipped network reading each photo once, without test-time augmentation)
 * the control lists both, starts the job, shows its progress and links to the new run; both runs then
 * show the two models side by side, photo by photo, with the difference, in English and in Thai.
 */
import { mkdirSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MODELS_DIR } from '@mango/models';
import { signInViaApi, startE2E, type E2E } from './harness.ts';
import { addOneViewModel, shippedBruiseModel } from './model-helpers.ts';

const shipped = shippedBruiseModel();
const photo = readFileSync(join(MODELS_DIR, 'fixtures', 'sample-1.png'));

describe('re-scoring a run with another model', () => {
  let e2e: E2E;
  let runId = '';
  let percent = 0;
  let token = '';
  // A second version: the shipped network reading each photo once (no test-time augmentation).
  let copy = '';

  beforeAll(async () => {
    e2e = await startE2E();
    token = (await signInViaApi(e2e)).tokens.accessToken;
    const fd = new FormData();
    fd.append('images', new Blob([photo]), 'sample-1.png');
    const res = await fetch(e2e.url('/api-py/python/bruise_detection/DeepLearning'), {
      method: 'POST',
      headers: { Authorization: `Bearer ${token}` },
      body: fd,
    });
    expect(res.status).toBe(200);
    const [item] = (await res.json()) as { run_id: string; bruise_percent: number; model_id: string }[];
    expect(item.model_id).toBe(shipped.id);
    runId = item.run_id;
    percent = item.bruise_percent;
  }, 120_000);
  afterAll(() => e2e?.close());

  it('starts the job from the run page, links to the new run, and shows both models side by side', async () => {
    const { page } = e2e;
    await page.goto(e2e.url(`/results/${runId}`));
    await expect.poll(() => page.getByTestId('run-photo').count(), { timeout: 30_000 }).toBe(1);
    // One model on the server: nothing to re-score with.
    expect(await page.getByTestId('rescore-control').count()).toBe(0);

    copy = await addOneViewModel(e2e);
    await page.reload();
    const control = page.getByTestId('rescore-control');
    await control.waitFor({ timeout: 30_000 });
    const select = page.getByTestId('rescore-model');
    expect(await select.locator('option').allTextContents()).toEqual([
      `${shipped.id} (${shipped.sha256.slice(0, 8)}) – in force – this run`,
      `${copy} (${shipped.sha256.slice(0, 8)})`,
    ]);
    expect(await select.inputValue()).toBe(copy);
    await control.getByRole('button', { name: 'Re-score' }).click();
    const done = page.getByTestId('rescore-done');
    await done.waitFor({ timeout: 60_000 });
    expect(await done.textContent()).toContain('Re-scored.');

    // The first run beside its re-scoring.
    const compare = page.getByTestId('rescore-compare');
    await compare.waitFor({ timeout: 30_000 });
    expect(await page.getByTestId('rescore-first-model').textContent()).toBe(
      `${shipped.id} (sha256 ${shipped.sha256.slice(0, 8)})`,
    );
    expect(await page.getByTestId('rescore-second-model').textContent()).toBe(
      `${copy} (sha256 ${shipped.sha256.slice(0, 8)})`,
    );
    const href = await done.getByRole('link', { name: 'Open the re-scored run' }).getAttribute('href');
    const res = await fetch(e2e.url(`/api-node/runs/${href!.split('/').pop()}`), {
      headers: { Authorization: `Bearer ${token}` },
    });
    const other = ((await res.json()) as { items: { result: { bruise_percent: number } }[] }).items[0].result
      .bruise_percent;
    const d = other - percent;
    const signed = `${d > 0 ? '+' : ''}${d.toFixed(2)}`;
    console.info(`re-scored sample-1.png: ${percent} % (4 views) -> ${other} % (1 view), difference ${d}`);
    const row = (await page.getByTestId('rescore-photo').first().locator('td').allTextContents()).map((s) => s.trim());
    expect(row).toEqual(['sample-1.png', percent.toFixed(2), other.toFixed(2), signed]);
    // One photo: its difference is the mean and the median.
    expect(await page.getByTestId('rescore-mean').textContent()).toBe(signed);
    expect(await page.getByTestId('rescore-median').textContent()).toBe(signed);
    const artifacts = resolve(import.meta.dirname, 'artifacts');
    mkdirSync(artifacts, { recursive: true });
    await page.screenshot({ path: join(artifacts, 'rescore-side-by-side.png'), fullPage: true });

    // The new run says where it came from, with the same comparison.
    await done.getByRole('link', { name: 'Open the re-scored run' }).click();
    await page.getByRole('heading', { name: 'Re-scored from another run' }).waitFor({ timeout: 30_000 });
    expect(page.url()).not.toContain(runId);
    await page.getByTestId('rescore-compare').waitFor();
    expect(await page.getByTestId('rescore-second-model').textContent()).toContain(copy);

    // In Thai.
    await page.evaluate(() => localStorage.setItem('language', 'th'));
    await page.goto(e2e.url(`/results/${runId}`));
    await page.getByRole('heading', { name: 'ผลการให้คะแนนใหม่ด้วยโมเดลอื่น' }).waitFor({ timeout: 30_000 });
    const th = await page.getByTestId('rescore-compare').innerText();
    expect(th).toContain('ผลต่างเฉลี่ย');
    expect(th).toContain('ค่ามัธยฐานของผลต่าง');
    expect(await page.getByTestId('rescore-control').getByRole('button', { name: 'ให้คะแนนใหม่' }).count()).toBe(1);
  }, 180_000);
});
