/**
 * The widget's local mode reports the colour card (issue 26): a real dev photo with a ColorChecker
 * rendered into it under a warm 3500 K light, chosen in the local widget of the partner page
 * (examples/widget-embed) in Chromium. The bruise plugin runs in the widget's Web Worker with its
 * defaults (colour card auto): the `mango-result` item has the card found, its correction and the
 * scale from it, as the server's answer has them for the same photo, and the widget shows both, in
 * Thai and in English. Needs the built widget (the e2e project's global setup builds it); skips
 * with a message when ../shared is absent.
 */
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, Page } from 'playwright-core';
import { PATCH_PITCH_MM, localScale } from '@mango/core';
import { encodeImage } from '@mango/core/node';
import { applyLightCast, poseHomography, renderPhotographedCard } from '@mango/core/testing';
import { SHARED_MISSING, loadImageFile, sharedDir } from '@mango/core/testing/node';
import { client, signUp, startTestServer, type TestServer } from '@mango/server/testing';
import { launchBrowser } from '../../web/e2e/harness.ts';
import { startEmbedServer, type EmbedServer } from '../../examples/widget-embed/serve.ts';
import { LOCALES } from './strings.ts';
import { type BruiseResultItem } from '@mango/plugin-bruise/results';

const shared = sharedDir();
const source = shared && join(shared, 'data/bruise-dev/synthetic_composites/images/syn_mangodc_3-Center_2.jpg');
const missing = !source || !existsSync(source);
if (missing) console.warn(`widget local mode colour card: ${SHARED_MISSING}`);

/** Where the card is drawn (as the CLI's and the server's colour-card tests draw it). */
const POSE = { x: 1340, y: 1130, pitchPx: 36, angleDeg: 160, tiltX: 0.03 };

describe.skipIf(missing)('widget local mode with a colour card in the photo', () => {
  let server: TestServer;
  let embed: EmbedServer;
  let browser: Browser;
  let page: Page;
  let dir: string;
  let photo: string;

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'mango-widget-card-'));
    photo = join(dir, 'card.png');
    const plain = await loadImageFile(source!);
    writeFileSync(photo, await encodeImage(applyLightCast(renderPhotographedCard(plain, POSE), 3500, 0), 'png'));
    server = await startTestServer({ workerThreads: 1 });
    embed = await startEmbedServer({ productUrl: server.url, apiKey: '' });
    browser = await launchBrowser();
    page = await browser.newPage();
    await page.goto(`${embed.url}/`);
    await page.waitForFunction(() => customElements.get('mango-bruise-widget') !== undefined);
    await page.evaluate(() => {
      const w = window as unknown as { __mango: { type: string; detail: unknown }[] };
      w.__mango = [];
      for (const type of ['mango-result', 'mango-error'])
        document.addEventListener(type, (e) => w.__mango.push({ type, detail: (e as CustomEvent).detail }));
    });
  }, 120_000);

  afterAll(async () => {
    await browser?.close();
    await embed?.close();
    await server?.close();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it('finds the card, corrects to it and takes the scale from it, as the server does; shows both', async () => {
    // the hidden file input of the local widget (playwright reaches into its open shadow root)
    await page.locator('#local-widget input[type="file"]').setInputFiles(photo);
    await page.waitForFunction(() => (window as unknown as { __mango: unknown[] }).__mango.length > 0, null, {
      timeout: 240_000,
    });
    const event = await page.evaluate(
      () => (window as unknown as { __mango: { type: string; detail: unknown }[] }).__mango[0],
    );
    expect(event.type, JSON.stringify(event.detail)).toBe('mango-result');
    const [item] = event.detail as BruiseResultItem[];
    const card = item.colour_card!;
    expect(card.found).toBe(true);
    expect(card.patches).toBeGreaterThanOrEqual(18);
    expect(card.delta_e_after!.median).toBeLessThan(2);
    expect(card.matrix).toHaveLength(3);
    expect(item.scale_source).toBe('colour-card');
    const truth = localScale(poseHomography(POSE), 2.5, 1.5) / (PATCH_PITCH_MM.classic / 10);
    console.info(`widget local mode card scale: ${item.px_per_cm!.toFixed(3)} px/cm, truth ${truth.toFixed(3)}`);
    expect(Math.abs(item.px_per_cm! / truth - 1)).toBeLessThan(0.01);

    // the server, given the same photo with the same (default) options, reads the same card
    const { accessToken } = await signUp(client(server), 'Widget Card');
    const fd = new FormData();
    fd.append('images', new Blob([readFileSync(photo)]), 'card.png');
    const res = await fetch(`${server.url}/api-py/python/bruise_detection/DeepLearning`, {
      method: 'POST',
      headers: { authorization: `Bearer ${accessToken}` },
      body: fd,
    });
    expect(res.status).toBe(200);
    const [served] = (await res.json()) as BruiseResultItem[];
    expect(served.colour_card!.found).toBe(true);
    expect(served.colour_card!.patches).toBe(card.patches);
    expect(Math.abs(served.px_per_cm! / item.px_per_cm! - 1)).toBeLessThan(0.002);
    expect(Math.abs(served.bruise_percent - item.bruise_percent)).toBeLessThanOrEqual(0.5);

    // shown in the widget's language (the page's local widget speaks Thai), then in English
    const fixed = (d: { median: number } | null) => d!.median.toFixed(1);
    const shown = async () => ({
      card: await page.locator('#local-widget .result .card dd').textContent(),
      scale: await page.locator('#local-widget .result .scale dd').textContent(),
    });
    for (const locale of ['th', 'en'] as const) {
      await page.evaluate((l) => document.getElementById('local-widget')!.setAttribute('locale', l), locale);
      const t = LOCALES[locale];
      await expect(shown()).resolves.toEqual({
        card: t.cardFound(card.patches, fixed(card.delta_e_before), fixed(card.delta_e_after)),
        scale: t.scaleFromCard(item.px_per_cm!.toFixed(2)),
      });
    }
    await expect(page.locator('#local-widget .result .card dt').textContent()).resolves.toBe('Colour card');
  }, 300_000);
});
