/**
 * The bruise page's colour-card toggle (issue 26), in a real browser against a real server, on a real
 * dev photo with a ColorChecker rendered into it under a warm light (as the card bench makes them):
 * ticked (the default) the request leaves `colour_card` at the server's default (auto) and the photo
 * page says the card was found, and not found on a photo without one; unticked the request carries
 * `colour_card=off` and the result has no card. Skips with a message when ../shared is absent.
 */
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { encodeImage } from '@mango/core/node';
import { applyLightCast, poseHomography, renderColourCard } from '@mango/core/testing';
import { SHARED_MISSING, loadImageFile, sharedDir } from '@mango/core/testing/node';
import { signInViaApi, startE2E, type E2E } from './harness.ts';

const shared = sharedDir();
const source = shared && join(shared, 'data/bruise-dev/synthetic_composites/images/syn_mangodc_3-Center_2.jpg');
const present = Boolean(source && existsSync(source));
if (!present) console.warn(`colour-card e2e: ${SHARED_MISSING}`);

/** Keeps the text fields of every FormData the page posts to /api-py (the request bodies as sent). */
function recordForms() {
  const sent: Record<string, string>[] = [];
  (window as unknown as { __forms: typeof sent }).__forms = sent;
  const original = window.fetch.bind(window);
  window.fetch = (input, init) => {
    const url = typeof input === 'string' ? input : input instanceof URL ? input.href : input.url;
    if (url.includes('/api-py/') && init?.body instanceof FormData) {
      const fields: Record<string, string> = {};
      init.body.forEach((v, k) => {
        if (typeof v === 'string') fields[k] = v;
      });
      sent.push(fields);
    }
    return original(input, init);
  };
}

describe.skipIf(!present)('the bruise page colour-card toggle', () => {
  let e2e: E2E;
  let dir: string;
  let card: string;
  let plain: string;
  let token = '';
  beforeAll(async () => {
    e2e = await startE2E();
    token = (await signInViaApi(e2e)).tokens.accessToken;
    await e2e.page.addInitScript(recordForms);
    dir = mkdtempSync(join(tmpdir(), 'mango-e2e-card-'));
    const photo = await loadImageFile(source!);
    const h = poseHomography({ x: 1340, y: 1130, pitchPx: 36, angleDeg: 160, tiltX: 0.03 });
    const withCard = applyLightCast(renderColourCard(photo, h, { blur: 1, noise: 2 }), 3500, 0);
    card = join(dir, 'card.png');
    plain = join(dir, 'plain.png');
    writeFileSync(card, await encodeImage(withCard, 'png'));
    writeFileSync(plain, await encodeImage(photo, 'png'));
  }, 120_000);
  afterAll(async () => {
    await e2e?.close();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  /** Scores the photos from the bruise page (the toggle as given); the request's fields and each photo's page text. */
  const score = async (files: string[], correct: boolean) => {
    const { page } = e2e;
    await page.goto(e2e.url('/bruise'));
    const toggle = page.getByLabel('Correct the colours to a ColorChecker in the photo');
    expect(await toggle.isChecked()).toBe(true);
    if (!correct) await toggle.uncheck();
    await page.getByTestId('file-input').setInputFiles(files);
    await page.getByRole('button', { name: 'Process' }).click();
    await page.getByRole('dialog').getByRole('button', { name: 'Confirm' }).click();
    await page.waitForURL('**/showarea/accuracy', { timeout: 120_000 });
    const forms = await page.evaluate(() => (window as unknown as { __forms: Record<string, string>[] }).__forms);
    expect(forms).toHaveLength(1);
    const runId = (await page.getByRole('link', { name: 'Open stored run' }).getAttribute('href'))!.replace(
      '/results/',
      '',
    );
    const run = (await (
      await fetch(e2e.url(`/api-node/runs/${runId}`), { headers: { Authorization: `Bearer ${token}` } })
    ).json()) as { options: Record<string, unknown> };
    const shown: Record<string, { card: string | null; percent: string }> = {};
    for (const f of files) {
      const name = f.split('/').pop()!;
      await page.getByRole('button', { name, exact: true }).click();
      await page.waitForURL('**/viewphoto/result');
      await page.getByTestId('bruise-percent').waitFor();
      const fact = page.getByTestId('colour-card');
      shown[name] = {
        card: (await fact.count()) ? await fact.innerText() : null,
        percent: await page.getByTestId('bruise-percent').innerText(),
      };
      await page.getByRole('button', { name: 'Back' }).click();
      await page.waitForURL('**/showarea/accuracy');
    }
    return { fields: forms[0], options: run.options, shown };
  };

  it('ticked: the server default (auto) corrects to the card found; unticked: colour_card=off and no card', async () => {
    const auto = await score([card, plain], true);
    // the default is not sent: the server's schema default is auto
    expect(auto.fields).not.toHaveProperty('colour_card');
    expect(auto.options.colourCard).toBe('auto');
    const found = /^found: (\d+) patches, colour difference ([\d.]+) → ([\d.]+) \(median ΔE2000\)$/.exec(
      auto.shown['card.png'].card ?? '',
    );
    expect(found, auto.shown['card.png'].card ?? 'no colour card shown').not.toBeNull();
    expect(Number(found![1])).toBeGreaterThanOrEqual(18);
    expect(Number(found![2])).toBeGreaterThan(5);
    expect(Number(found![3])).toBeLessThan(2);
    expect(auto.shown['plain.png'].card).toBe('not found (colours as photographed)');

    const off = await score([card], false);
    expect(off.fields.colour_card).toBe('off');
    expect(off.options.colourCard).toBe('off');
    expect(off.shown['card.png'].card).toBeNull();
    // uncorrected, the warm cast moves the bruise %
    expect(off.shown['card.png'].percent).not.toBe(auto.shown['card.png'].percent);
  }, 300_000);
});
