/**
 * The widget's local mode, time per photo as a visitor of the partner page sees it: the partner page
 * of examples/widget-embed in headless Chromium, its local widget (the bruise plugin and the model on
 * onnxruntime-web, single-threaded, in the widget's Web Worker). One warm-up photo first (the runtime
 * and model fetch, the first run; not counted), then one photo per selection: the wall time from
 * `setInputFiles` to its `mango-result` event (and, in brackets, from the input's `change` event in
 * the page, i.e. without playwright handing the file over), for
 * 1. a 4000x3000 JPEG (the model bench's, /tmp/mango-model-bench/big; made here if missing);
 * 2. the first 5 of the 1280x720 AI CUP tray photos.
 * Each photo BENCH_RUNS times (default 3); the medians, the bruise_percent the widget reported (to
 * compare with Node's: `mango bruise <photo> --method model`) and the load average are printed.
 * Needs the built widget: built here (as web/e2e/global-setup.ts does) when missing or older than
 * its sources.
 *
 *   node --conditions=source --import tsx widget/bench/local.ts     (or npm run bench:local -w @mango/widget)
 */
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, statSync } from 'node:fs';
import { loadavg } from 'node:os';
import { basename, join, resolve } from 'node:path';
import sharp from 'sharp';
import { median, sharedDir, SHARED_MISSING, repoRoot } from '@mango/core/testing/node';
import { startTestServer } from '@mango/server/testing';
import type { BruiseResultItem } from '@mango/plugin-bruise/results';
import { launchBrowser } from '../../web/e2e/harness.ts';
import { startEmbedServer } from '../../examples/widget-embed/serve.ts';

const shared = sharedDir();
if (!shared) {
  console.log(SHARED_MISSING);
  process.exit(0);
}
const runs = Number(process.env.BENCH_RUNS ?? 3);
const dev = join(shared, 'data', 'bruise-dev');
const load = () =>
  loadavg()
    .map((l) => l.toFixed(2))
    .join(', ');
console.log(`load average at start: ${load()} (1, 5, 15 min)`);

// The built widget: rebuilt when missing or older than what it bundles (the widget, core, the plugin).
const widget = resolve(import.meta.dirname, '..');
const bundle = join(widget, 'dist', 'mango-bruise-widget.iife.js');
const newest = (dir: string) =>
  Math.max(...readdirSync(dir, { recursive: true }).map((f) => statSync(join(dir, String(f))).mtimeMs));
const sources = ['widget/src', 'core/src', 'plugins/bruise/src'].map((d) => newest(join(repoRoot, d)));
if (!existsSync(bundle) || statSync(bundle).mtimeMs < Math.max(...sources)) {
  console.log('building the widget (npm run build -w @mango/widget) ...');
  const vite = join(repoRoot, 'node_modules/vite/bin/vite.js');
  execFileSync(process.execPath, [vite, 'build', '--logLevel', 'warn'], { cwd: widget, stdio: 'inherit' });
}

// The photos: the model bench's 4000x3000 JPEG (made as plugins/bruise/bench/model.ts makes it), 5 trays.
const big = '/tmp/mango-model-bench/big/large-4000x3000.jpg';
if (!existsSync(big)) {
  mkdirSync(resolve(big, '..'), { recursive: true });
  await sharp(join(dev, 'synthetic_composites', 'images', 'syn_mangodc_3-Center_2.jpg'))
    .resize(4000, 3000, { fit: 'fill' })
    .jpeg({ quality: 90 })
    .toFile(big);
}
const trayDir = join(dev, 'aicup_defect_boxes', 'images');
const trays = readdirSync(trayDir)
  .filter((f) => f.endsWith('.jpg'))
  .sort()
  .slice(0, 5)
  .map((f) => join(trayDir, f));

const server = await startTestServer({ workerThreads: 1 });
const embed = await startEmbedServer({ productUrl: server.url, apiKey: '' });
const browser = await launchBrowser();
try {
  const page = await browser.newPage();
  await page.goto(`${embed.url}/`);
  await page.waitForFunction(() => customElements.get('mango-bruise-widget') !== undefined);
  // Each event with its time (epoch ms, as Node's performance.timeOrigin + now()); the input's changes too.
  // (No named functions in here: tsx would wrap them in its __name helper, which the page lacks.)
  await page.evaluate(() => {
    const w = window as unknown as { __mango: { type: string; at: number; detail: unknown }[]; __change: number[] };
    w.__mango = [];
    w.__change = [];
    for (const type of ['mango-result', 'mango-error'])
      document.addEventListener(type, (e) =>
        w.__mango.push({ type, at: performance.timeOrigin + performance.now(), detail: (e as CustomEvent).detail }),
      );
    const root = document.getElementById('local-widget')!.shadowRoot!;
    root.addEventListener('change', () => w.__change.push(performance.timeOrigin + performance.now()), true); // capture: before the widget's own
  });
  const input = page.locator('#local-widget input[type="file"]');

  /** One selection of one photo: ms from setInputFiles, ms from the change event, the item. */
  async function score(photo: string) {
    const n = await page.evaluate(() => (window as unknown as { __mango: unknown[] }).__mango.length);
    const t0 = performance.timeOrigin + performance.now();
    await input.setInputFiles(photo);
    await page.waitForFunction((k) => (window as unknown as { __mango: unknown[] }).__mango.length > k, n, {
      timeout: 300_000,
    });
    const { event, change } = await page.evaluate((k) => {
      const w = window as unknown as { __mango: { type: string; at: number; detail: unknown }[]; __change: number[] };
      return { event: w.__mango[k], change: w.__change.at(-1)! };
    }, n);
    if (event.type !== 'mango-result') throw new Error(`${basename(photo)}: ${JSON.stringify(event.detail)}`);
    const [item] = event.detail as BruiseResultItem[];
    return { ms: event.at - t0, fromChange: event.at - change, item };
  }

  const warm = await score(trays[0]);
  console.log(
    `warm-up (${basename(trays[0])}; runtime and model fetched, first run): ${warm.ms.toFixed(0)} ms, ` +
      `method ${warm.item.method} ${warm.item.model_id ?? ''}`,
  );

  const kinds = { '4000x3000 JPEG': [big], '1280x720 tray photos': trays };
  const ms = new Map<string, number[]>();
  const fromChange = new Map<string, number[]>();
  const percent = new Map<string, Set<string>>();
  for (let r = 0; r < runs; r++)
    for (const photo of [big, ...trays]) {
      const s = await score(photo);
      ms.set(photo, [...(ms.get(photo) ?? []), s.ms]);
      fromChange.set(photo, [...(fromChange.get(photo) ?? []), s.fromChange]);
      percent.set(photo, (percent.get(photo) ?? new Set()).add(s.item.bruise_percent.toFixed(4)));
    }
  for (const [kind, photos] of Object.entries(kinds)) {
    const all = photos.flatMap((p) => ms.get(p)!);
    const changed = photos.flatMap((p) => fromChange.get(p)!);
    console.log(
      `widget local mode, ${kind}: median ${median(all).toFixed(0)} ms per photo ` +
        `(from the change event ${median(changed).toFixed(0)} ms; ${all.length} selections, ` +
        `min ${Math.min(...all).toFixed(0)}, max ${Math.max(...all).toFixed(0)})`,
    );
    for (const p of photos)
      console.log(
        `  ${basename(p)}: median ${median(ms.get(p)!).toFixed(0)} ms; bruise_percent ${[...percent.get(p)!].join(' / ')}`,
      );
  }
} finally {
  console.log(`load average at end: ${load()}`);
  await browser.close();
  await embed.close();
  await server.close();
}
process.exit(0);
