/**
 * The embeddable widget on a partner page served from another origin (examples/widget-embed), against
 * a real product server: dropzone, keyboard, shadow DOM isolation, events, server mode with a partner
 * API key, local mode in a Web Worker, and a revoked key.
 */
import { mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import { createContext, runPlugin } from '@mango/core';
import { decodeImage, encodeImage, nodeImages } from '@mango/core/node';
import { SHARED_MISSING, sharedDir } from '@mango/core/testing/node';
import bruise from '@mango/plugin-bruise';
import { createModelLoader, MODELS_DIR, readManifest } from '@mango/models';
import { startE2E, signInViaApi, type E2E } from './harness.ts';
import { startEmbedServer, type EmbedServer, type EmbedServerOptions } from '../../examples/widget-embed/serve.ts';
import { generateSamplePhoto } from '../../examples/sample-photos/generate.ts';
import { type BruiseResultItem } from '@mango/plugin-bruise/results';

const BRUISE_PATH = '/api-py/python/bruise_detection/DeepLearning';

interface Captured {
  type: 'mango-result' | 'mango-error';
  target: string;
  detail: BruiseResultItem[] | { message: string };
}

/** A shared photo when ../shared is there, else a generated sample (written to a temp dir). */
async function pickPhoto(tmp: string): Promise<string> {
  const shared = sharedDir();
  if (shared) {
    const dir = join(shared, 'data/bruise-dev/synthetic_composites/images');
    const name = readdirSync(dir).sort()[0];
    return join(dir, name);
  }
  console.warn(`${SHARED_MISSING}; using a generated sample photo`);
  const path = join(tmp, 'mango-02.png');
  writeFileSync(path, await encodeImage(generateSamplePhoto(1).image, 'png'));
  return path;
}

/** Listens on the document: both events must bubble out of the shadow root (composed). */
async function captureEvents(page: Page) {
  await page.evaluate(() => {
    const w = window as unknown as { __mango: unknown[] };
    w.__mango = [];
    for (const type of ['mango-result', 'mango-error']) {
      document.addEventListener(type, (e) => {
        w.__mango.push({ type, target: (e.target as HTMLElement).id, detail: (e as CustomEvent).detail });
      });
    }
  });
}

async function nextEvent(page: Page, count: number): Promise<Captured> {
  await page.waitForFunction((n) => (window as unknown as { __mango: unknown[] }).__mango.length > n, count, {
    timeout: 90_000,
  });
  return page.evaluate((n) => (window as unknown as { __mango: Captured[] }).__mango[n], count);
}

const eventCount = (page: Page) => page.evaluate(() => (window as unknown as { __mango: unknown[] }).__mango.length);

/** Chooses a file the way a keyboard user does: focus the dropzone, press Enter, pick in the chooser. */
async function chooseWithKeyboard(page: Page, widget: string, file: string, key: 'Enter' | ' ' = 'Enter') {
  await page.locator(`#${widget} .dropzone`).focus();
  const chooser = page.waitForEvent('filechooser');
  await page.keyboard.press(key === ' ' ? 'Space' : key);
  await (await chooser).setFiles(file);
}

describe('embeddable bruise widget', () => {
  let e2e: E2E;
  let embed: EmbedServer;
  let embedOptions: EmbedServerOptions;
  let accessToken: string;
  let key: { id: number; key: string };
  let tmp: string;
  let photo: string;
  const requests: string[] = [];

  beforeAll(async () => {
    tmp = mkdtempSync(join(tmpdir(), 'mango-widget-e2e-'));
    photo = await pickPhoto(tmp);
    e2e = await startE2E();
    accessToken = (await signInViaApi(e2e)).tokens.accessToken;
    // The partner page is filled in per request, so the key can be set once its origin is known.
    embedOptions = { productUrl: e2e.server.url, apiKey: '' };
    embed = await startEmbedServer(embedOptions);
    const res = await fetch(e2e.url('/api-node/api-keys'), {
      method: 'POST',
      headers: { 'Content-Type': 'application/json', Authorization: `Bearer ${accessToken}` },
      body: JSON.stringify({ name: 'widget e2e', allowedOrigins: [embed.url], rateLimitPerMinute: 60 }),
    });
    expect(res.status).toBe(201);
    key = (await res.json()) as { id: number; key: string };
    embedOptions.apiKey = key.key;
    // Leave the product page signInViaApi opened first, so none of its late requests is counted below.
    await e2e.page.goto('about:blank');
    e2e.page.on('request', (r) => requests.push(r.url()));
    // A standing listener keeps file-chooser interception on, so no Enter can race its set-up.
    e2e.page.on('filechooser', () => {});
    await e2e.page.goto(`${embed.url}/`);
    await e2e.page.waitForFunction(() => customElements.get('mango-bruise-widget') !== undefined);
    await captureEvents(e2e.page);
  });

  afterAll(async () => {
    await embed?.close();
    await e2e?.close();
    if (tmp) rmSync(tmp, { recursive: true, force: true });
  });

  it('runs on a page of another origin, with api-base defaulting to where the script came from', async () => {
    expect(new URL(embed.url).origin).not.toBe(new URL(e2e.server.url).origin);
    const base = await e2e.page.evaluate(
      () => (document.getElementById('local-widget') as HTMLElement & { apiBase: string }).apiBase,
    );
    expect(base).toBe(e2e.server.url);
  });

  it('is labelled for screen readers and reachable by keyboard', async () => {
    const page = e2e.page;
    const dropzone = page.locator('#server-widget .dropzone');
    await expect(dropzone.getAttribute('role')).resolves.toBe('button');
    await expect(dropzone.getAttribute('tabindex')).resolves.toBe('0');
    await expect(page.locator('#server-widget [role="status"]').getAttribute('aria-live')).resolves.toBe('polite');
    // accessible name from the prompt text
    const snapshot = await page.locator('#server-widget').ariaSnapshot();
    expect(snapshot).toContain('button "Drop mango photos here, or press to choose"');
    // Tab reaches the first widget's dropzone from the top of the page
    await page.locator('body').focus();
    await page.keyboard.press('Tab');
    const focused = await page.evaluate(() => {
      const host = document.activeElement as HTMLElement;
      return { host: host.id, inner: host.shadowRoot?.activeElement?.className };
    });
    expect(focused).toEqual({ host: 'server-widget', inner: 'dropzone' });
  });

  it('keeps the page styles and its own apart (shadow root, custom properties)', async () => {
    const page = e2e.page;
    // the page hides its own .dropzone elements and sets a serif font on everything
    await expect(page.locator('#server-widget .dropzone').isVisible()).resolves.toBe(true);
    const styles = await page.evaluate(() => {
      const root = document.getElementById('server-widget')!.shadowRoot!;
      const prompt = getComputedStyle(root.querySelector('.prompt')!);
      const box = getComputedStyle(root.querySelector('.root')!);
      const pageResult = getComputedStyle(document.getElementById('page-result')!);
      return {
        font: prompt.fontFamily,
        letterSpacing: prompt.letterSpacing,
        radius: box.borderTopLeftRadius,
        pageColor: pageResult.color,
        localBg: getComputedStyle(document.getElementById('local-widget')!.shadowRoot!.querySelector('.root')!)
          .backgroundColor,
      };
    });
    expect(styles.font).not.toContain('Georgia');
    expect(styles.letterSpacing).toBe('normal');
    expect(styles.radius).toBe('6px'); // --mango-radius from the page
    expect(styles.localBg).toBe('rgb(246, 251, 242)'); // --mango-bg on #local-widget
    expect(styles.pageColor).toBe('rgb(102, 51, 153)'); // the page's .result is untouched
  });

  it('speaks Thai with locale="th"', async () => {
    const prompt = await e2e.page.locator('#local-widget .prompt').textContent();
    expect(prompt).toBe('วางรูปมะม่วงที่นี่ หรือกดเพื่อเลือกไฟล์');
  });

  it('refuses a dropped file that is not an image with a mango-error', async () => {
    const page = e2e.page;
    const n = await eventCount(page);
    const dataTransfer = await page.evaluateHandle(() => {
      const dt = new DataTransfer();
      dt.items.add(new File(['hello'], 'notes.txt', { type: 'text/plain' }));
      return dt;
    });
    const dropzone = page.locator('#server-widget .dropzone');
    await dropzone.dispatchEvent('dragenter', { dataTransfer });
    await expect(page.locator('#server-widget .prompt').textContent()).resolves.toBe('Release to measure');
    await dropzone.dispatchEvent('drop', { dataTransfer });
    const event = await nextEvent(page, n);
    expect(event).toEqual({
      type: 'mango-error',
      target: 'server-widget',
      detail: { message: 'Choose JPEG, PNG or WebP photos.' },
    });
    await expect(page.locator('#server-widget [role="alert"]').textContent()).resolves.toBe(
      'Error: Choose JPEG, PNG or WebP photos.',
    );
  });

  it('server mode: uploads with the partner key and shows what the API answers', async () => {
    const page = e2e.page;
    const n = await eventCount(page);
    // every text the live status region announces, in order
    await page.evaluate(() => {
      const status = document.getElementById('server-widget')!.shadowRoot!.querySelector('[role="status"]')!;
      const seen: string[] = [];
      (window as unknown as { __status: string[] }).__status = seen;
      new MutationObserver(() => seen.push(status.textContent ?? '')).observe(status, {
        childList: true,
        characterData: true,
        subtree: true,
      });
    });
    await chooseWithKeyboard(page, 'server-widget', photo, 'Enter');
    const event = await nextEvent(page, n);
    expect(event.type, JSON.stringify(event.detail)).toBe('mango-result');
    expect(event.target).toBe('server-widget');
    const [item] = event.detail as BruiseResultItem[];
    expect(item.filename).toBe(basename(photo));

    // the same file through the API with the same key, from the same origin
    const form = new FormData();
    form.append('images', new Blob([readFileSync(photo)]), basename(photo));
    const res = await fetch(e2e.url(BRUISE_PATH), {
      method: 'POST',
      headers: { Authorization: `Bearer ${key.key}`, Origin: embed.url },
      body: form,
    });
    expect(res.status).toBe(200);
    const [api] = (await res.json()) as BruiseResultItem[];
    expect(item.bruise_percent).toBe(api.bruise_percent);
    expect(item.non_bruise_percent).toBe(api.non_bruise_percent);
    expect(item.total_mango_pixels).toBe(api.total_mango_pixels);

    // shown with two decimals, with the overlay and the per-fruit table
    const result = page.locator('#server-widget .result');
    await expect(result.locator('.bruise dd').textContent()).resolves.toBe(`${api.bruise_percent.toFixed(2)}%`);
    await expect(result.locator('.healthy dd').textContent()).resolves.toBe(`${api.non_bruise_percent.toFixed(2)}%`);
    await expect(result.locator('img.overlay').getAttribute('alt')).resolves.toContain(basename(photo));
    await expect(result.locator('table.fruits tbody tr').count()).resolves.toBe(api.fruits.length);
    await expect(page.locator('#server-widget [role="status"]').textContent()).resolves.toBe('Measured 1 photo.');
    const announced = await page.evaluate(() => (window as unknown as { __status: string[] }).__status);
    expect(announced[0]).toMatch(/^Uploading\.\.\. \d+%$/);
    expect(announced).toContain('Measuring bruises...');
    expect(announced.at(-1)).toBe('Measured 1 photo.');
  });

  it('local mode: runs the bruise model in the browser, uploads no photo, agrees with the server', async () => {
    const page = e2e.page;
    const before = requests.length;
    const n = await eventCount(page);
    await chooseWithKeyboard(page, 'local-widget', photo, ' ');
    const event = await nextEvent(page, n);
    expect(event.type, JSON.stringify(event.detail)).toBe('mango-result');
    expect(event.target).toBe('local-widget');
    const [item] = event.detail as BruiseResultItem[];
    const shipped = readManifest(MODELS_DIR).models.find((m) => m.task === 'bruise-segmentation')!;
    expect(item.method).toBe('model');
    expect(item.model_id).toBe(shipped.id);
    expect(item.model_sha256).toBe(shipped.sha256);

    // The same photo scored by the server (onnxruntime-node through the plugin in Node).
    const image = await decodeImage(readFileSync(photo), basename(photo));
    const node = await runPlugin(
      bruise,
      image,
      {},
      createContext(nodeImages, { models: createModelLoader(), filename: basename(photo) }),
    );
    expect(node.method).toBe('model');
    console.info(
      `local mode ${item.bruise_percent.toFixed(4)}% vs Node ${node.bruise_percent.toFixed(4)}% (${basename(photo)})`,
    );
    expect(item.filename).toBe(basename(photo));
    // The overlay, encoded in the widget's worker (canvas) into the same kind of data URL as the server's.
    expect(item.overlay_img.startsWith('data:image/jpeg;base64,')).toBe(true);
    await expect(page.locator('#local-widget .result img.overlay').count()).resolves.toBe(1);
    expect(Math.abs(item.bruise_percent - node.bruise_percent)).toBeLessThanOrEqual(0.5);
    expect(Math.abs(item.total_mango_pixels - node.total_mango_pixels)).toBeLessThanOrEqual(
      0.005 * node.total_mango_pixels,
    );
    await expect(page.locator('#local-widget .result .bruise dd').textContent()).resolves.toBe(
      `${item.bruise_percent.toFixed(2)}%`,
    );
    // Fetched lazily from the api-base: the runtime and the model, never the photo.
    const fetched = requests.slice(before).filter((u) => !u.startsWith('blob:') && !u.startsWith('data:'));
    expect(fetched.filter((u) => u.includes(BRUISE_PATH))).toEqual([]);
    for (const u of fetched) expect(u.startsWith(`${e2e.server.url}/widget/`), u).toBe(true);
    expect(fetched).toContain(`${e2e.server.url}/widget/models/${shipped.file}`);
    expect(fetched).toContain(`${e2e.server.url}/widget/ort/ort-wasm-simd-threaded.wasm`);
  });

  it('asked for nothing but the page, the widget script and the bruise API', () => {
    const allowed = [
      `${embed.url}/`,
      `${e2e.server.url}/widget/models/manifest.json`,
      `${e2e.server.url}/widget/ort/ort.wasm.bundle.min.mjs`,
      `${e2e.server.url}/widget/ort/ort-wasm-simd-threaded.wasm`,
      `${e2e.server.url}/widget/models/${readManifest(MODELS_DIR).models[0]?.file}`,
      `${e2e.server.url}/widget/mango-bruise-widget.iife.js`,
      `${e2e.server.url}${BRUISE_PATH}`,
    ];
    const others = requests.filter(
      (u) =>
        !allowed.includes(u) && !u.startsWith('blob:') && !u.startsWith('data:') && u !== `${embed.url}/favicon.ico`,
    );
    expect(others).toEqual([]);
  });

  it('loads as an ES module imported from another origin (the server allows it with CORS)', async () => {
    const page = await e2e.context.newPage();
    try {
      await page.goto(`${embed.url}/module.html`);
      await page.waitForFunction(() => document.body.dataset.widgetLoaded !== undefined, null, { timeout: 15_000 });
      expect(await page.evaluate(() => document.body.dataset.widgetLoaded)).toBe('true');
      // api-base defaults to the origin the module came from
      const base = await page.evaluate(
        () => (document.getElementById('server-widget') as HTMLElement & { apiBase: string }).apiBase,
      );
      expect(base).toBe(e2e.server.url);
    } finally {
      await page.close();
    }
  });

  it('reports a mango-error once the key is revoked', async () => {
    const res = await fetch(e2e.url(`/api-node/api-keys/${key.id}`), {
      method: 'DELETE',
      headers: { Authorization: `Bearer ${accessToken}` },
    });
    expect(res.status).toBe(200);
    const direct = new FormData();
    direct.append('images', new Blob([readFileSync(photo)]), basename(photo));
    const refused = await fetch(e2e.url(BRUISE_PATH), {
      method: 'POST',
      headers: { Authorization: `Bearer ${key.key}`, Origin: embed.url },
      body: direct,
    });
    expect(refused.status).toBe(401);

    // this time the photo is dragged and dropped onto the widget
    const page = e2e.page;
    const n = await eventCount(page);
    const dataTransfer = await page.evaluateHandle(
      ({ name, base64 }) => {
        const bytes = Uint8Array.from(atob(base64), (c) => c.charCodeAt(0));
        const dt = new DataTransfer();
        dt.items.add(new File([bytes], name, { type: name.endsWith('.png') ? 'image/png' : 'image/jpeg' }));
        return dt;
      },
      { name: basename(photo), base64: readFileSync(photo).toString('base64') },
    );
    await page.locator('#server-widget .dropzone').dispatchEvent('drop', { dataTransfer });
    const event = await nextEvent(page, n);
    expect(event.type).toBe('mango-error');
    expect(event.target).toBe('server-widget');
    // Either the API's 401 {detail}, or, as the key's origin is no longer allowed by CORS, a refused request.
    expect((event.detail as { message: string }).message).toMatch(
      /^(Invalid or revoked API key|The bruise service could not be reached)/,
    );
    await expect(page.locator('#server-widget [role="alert"]').isVisible()).resolves.toBe(true);
  });
});

describe('API keys and API reference pages', () => {
  let e2e: E2E;
  beforeAll(async () => {
    e2e = await startE2E();
    await signInViaApi(e2e);
  });
  afterAll(async () => {
    await e2e?.close();
  });

  it('creates a key shown once with a copy button, lists it and revokes it', async () => {
    const page = e2e.page;
    await e2e.context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: e2e.server.url });
    await page.goto(e2e.url('/apikeys'));
    await page.getByText('No API keys yet.').waitFor();
    await page.getByLabel('Name').fill('Partner shop');
    await page.getByLabel('Allowed origins').fill('https://shop.example.com/\nhttp://127.0.0.1:5174');
    await page.getByLabel('Rate limit (requests per minute)').fill('30');
    await page.getByRole('button', { name: 'Create key' }).click();
    const shown = (await page.getByTestId('new-key').textContent())!;
    expect(shown).toMatch(/^mbt_/);
    await page.getByRole('button', { name: 'Copy' }).click();
    await page.getByRole('button', { name: 'Copied' }).waitFor();
    expect(await page.evaluate(() => navigator.clipboard.readText())).toBe(shown);

    const row = page.locator('tbody tr', { hasText: 'Partner shop' });
    await expect(row.locator('td').nth(2).textContent()).resolves.toBe(
      'https://shop.example.com, http://127.0.0.1:5174',
    );
    await expect(row.locator('td').nth(3).textContent()).resolves.toBe('30');
    // the key works against the API, and is never shown again
    const list = (await page.evaluate(async () => {
      const res = await fetch('/api-node/api-keys', {
        headers: { Authorization: `Bearer ${localStorage.getItem('accessToken')}` },
      });
      return res.json();
    })) as { prefix: string; key?: string }[];
    expect(list).toHaveLength(1);
    expect(list[0].key).toBeUndefined();
    expect(shown.startsWith(list[0].prefix)).toBe(true);
    await page.reload();
    await row.waitFor();
    await expect(page.getByTestId('new-key').count()).resolves.toBe(0);

    await row.getByRole('button', { name: 'Revoke Partner shop' }).click();
    await page.getByRole('dialog').getByRole('button', { name: 'Revoke' }).click();
    await row.locator('td', { hasText: 'Revoked' }).waitFor();
    await expect(row.getByRole('button').count()).resolves.toBe(0);
  });

  it('shows a form error from the server for a bad origin', async () => {
    const page = e2e.page;
    await page.goto(e2e.url('/apikeys'));
    await page.getByLabel('Name').fill('Bad');
    await page.getByLabel('Allowed origins').fill('https://shop.example.com/path');
    await page.getByRole('button', { name: 'Create key' }).click();
    await expect(page.getByRole('alert').textContent()).resolves.toMatch(/origin/i);
  });

  it('renders the reference from /api/openapi.json: paths, methods, summaries, schemas', async () => {
    const doc = (await (await fetch(e2e.url('/api/openapi.json'))).json()) as {
      paths: Record<string, Record<string, { summary?: string }>>;
    };
    const page = e2e.page;
    await page.goto(e2e.url('/api-docs'));
    const bruise = page.locator('article.endpoint', {
      has: page.locator('h3', { hasText: '/api-py/python/bruise_detection/DeepLearning' }),
    });
    await bruise.waitFor();
    await expect(bruise.locator('.method').first().textContent()).resolves.toBe('POST');
    const summary = doc.paths['/api-py/python/bruise_detection/DeepLearning'].post.summary;
    if (summary) await expect(bruise.locator('.summary').textContent()).resolves.toBe(summary);
    await expect(bruise.locator('.media-type').first().textContent()).resolves.toBe('multipart/form-data');
    await expect(bruise.locator('li > code', { hasText: /^images$/ }).count()).resolves.toBe(1);
    await expect(bruise.getByRole('link', { name: 'BruiseResultItem' }).count()).resolves.toBeGreaterThan(0);
    // every operation of the document is on the page
    const operations = Object.values(doc.paths).reduce((n, item) => n + Object.keys(item).length, 0);
    await expect(page.locator('article.endpoint').count()).resolves.toBe(operations);
    // the component schema lists its fields
    const component = page.locator('#schema-BruiseResultItem');
    await expect(component.locator('li code', { hasText: 'bruise_percent' }).first().isVisible()).resolves.toBe(true);
  });
});
