import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { encodeImage } from '@mango/core/node';
import { sceneWithDisc } from '@mango/core/testing';
import { signInViaApi, startE2E, type E2E } from './harness.ts';
import { untranslated } from './i18n-helpers.ts';

/** Two mangoes and a 25 mm coin at 32 px/cm, a 3.5 cm² bruise on the left fruit (as cli/src/units.test.ts). */
async function coinPhoto(dir: string) {
  const { image } = sceneWithDisc(32, 21);
  const r = Math.sqrt(3584 / Math.PI);
  for (let y = 0; y < image.height; y++)
    for (let x = 0; x < image.width; x++) {
      if ((x - 330) ** 2 + (y - 360) ** 2 <= r * r) image.data.set([95, 60, 25], (y * image.width + x) * 4);
    }
  const path = join(dir, 'two-mangoes.jpg');
  writeFileSync(path, await encodeImage(image, 'jpeg', { quality: 92 }));
  return path;
}

describe('reference scale and grades in the web app', () => {
  let e2e: E2E;
  let photo: string;
  let user: { username: string };
  beforeAll(async () => {
    e2e = await startE2E();
    ({ user } = await signInViaApi(e2e));
    photo = await coinPhoto(mkdtempSync(join(tmpdir(), 'mango-units-e2e-')));
  });
  afterAll(async () => {
    await e2e?.close();
  });

  it('bruise page with a 25 mm coin and Codex grades: the stored run shows cm², grades and the lot summary', async () => {
    const { page } = e2e;
    await page.goto(e2e.url('/bruise'));
    await page.getByTestId('file-input').setInputFiles([photo]);
    await page.getByLabel('Reference object diameter (mm)').fill('25');
    await page.getByLabel('Grades').selectOption('codex-mango');
    await page.getByRole('button', { name: 'Process' }).click();
    await page.getByRole('dialog').getByRole('button', { name: 'Confirm' }).click();
    await page.waitForURL('**/showarea/accuracy', { timeout: 90_000 });
    const runId = await page.evaluate(
      () => (JSON.parse(localStorage.getItem('uploadedFiles') ?? '[]') as { run_id?: string }[])[0]?.run_id,
    );
    expect(runId).toBeTruthy();

    await page.goto(e2e.url(`/results/${runId}`));
    const lot = page.getByTestId('run-lot');
    await lot.waitFor();
    expect(await lot.innerText()).toMatch(/codex-mango – 2 of 2 fruit graded, accepted: 2 \(100\.0 %\)/);
    const counts = await lot.locator('tbody tr').allInnerTexts();
    // The shipped model's reading of this synthetic scene (sha256 a2b980ed…): the painted 3.5 cm² bruise
    // reads 3.55 cm² (Class I) and the right fruit none (Extra); the 4000-step model (a50f686f…) 3.54 cm², the
    // 2000-step one (310da39a…) 3.84 cm², the one before that (e7cedefb…) 4.3 cm² (Class II) and 0.9 cm² of
    // false lesion on the right fruit (Class I). The page must show the grades the stored run holds.
    expect(counts.map((t) => t.replace(/\s+/g, ' ').trim())).toEqual([
      'Extra 1 yes',
      'Class I 1 yes',
      'Class II 0 yes',
      'Out of grade 0 no',
    ]);
    const photoRow = await page.getByTestId('run-photo').locator('td').allInnerTexts();
    expect(photoRow.at(-1)).toBe('Class I, Extra');
    await page.getByRole('button', { name: 'Fruit of two-mangoes.jpg' }).click();
    expect(await page.getByTestId('fruit-grade').allInnerTexts()).toEqual([
      'Class I (size C, estimated)',
      'Extra (size C, estimated)',
    ]);

    // the same run in Thai: the lot summary, grades and numbers in Thai
    await page.getByRole('group', { name: 'Language / ภาษา' }).getByRole('button', { name: 'ไทย' }).click();
    await page.getByRole('heading', { name: 'สรุปล็อต' }).waitFor();
    expect(await lot.innerText()).toMatch(/จัดเกรดแล้ว 2 จาก 2 ผล, ผ่าน: 2 \(100\.0 %\)/);
    expect(await page.getByTestId('fruit-grade').allInnerTexts()).toEqual([
      'ชั้น 1 (Class I) (ขนาด C (ประมาณ))',
      'พิเศษ (Extra) (ขนาด C (ประมาณ))',
    ]);
    await page.screenshot({ path: '/tmp/units-run-graded.png', fullPage: true });
    // nothing left in English but names: the method, model, rules, file and user
    const names = ['auto', 'classical', 'model', 'bruise-unet', 'codex-mango', 'two-mangoes.jpg', user.username];
    expect(await untranslated(e2e, names)).toEqual([]);
    // the results table of the bruise page, and one photo's view, in Thai
    await page.goto(e2e.url('/showarea/accuracy'));
    await page.getByRole('heading', { name: 'ผลพื้นที่รอยช้ำ' }).waitFor();
    await page.getByRole('button', { name: 'ดู two-mangoes.jpg' }).click();
    await page.getByRole('dialog').waitFor();
    await page.screenshot({ path: '/tmp/units-showarea-view.png', fullPage: true });
    expect(await untranslated(e2e, names)).toEqual([]);
    // the dialog is modal: nothing behind it (the language switch included) takes a click until it closes
    await page.keyboard.press('Escape');
    await page.getByRole('dialog').waitFor({ state: 'detached' });
    await page.getByRole('group', { name: 'Language / ภาษา' }).getByRole('button', { name: 'English' }).click();
  });

  it('Codex grades without a scale: the API refusal is shown', async () => {
    const { page } = e2e;
    await page.goto(e2e.url('/bruise'));
    await page.getByTestId('file-input').setInputFiles([photo]);
    await page.getByLabel('Grades').selectOption('codex-mango');
    await page.getByRole('button', { name: 'Process' }).click();
    await page.getByRole('dialog').getByRole('button', { name: 'Confirm' }).click();
    await expect
      .poll(() => e2e.alerts.at(-1))
      .toMatch(/^Error: grades codex-mango grades on bruise area in cm² and needs a scale/);
  });
});
