/**
 * npm run bench:perfruit (after npm run build:node)
 * Time per photo of the 13 features per fruit at full resolution (option perFruit: the bruise
 * plugin finds the fruit with the installed model, each fruit is measured on its own crop) beside
 * today's per-image analysis (the photo downscaled to 1024 px). Photos: two AI CUP tray photos
 * with two fruit each (1280 x 720) and a 4000 x 3000 copy of the first (Lanczos, JPEG q92, decoded
 * in full as a front end decodes it). One thread for the features; the model's own threads count in
 * the CPU time. BENCH_ROUNDS rounds (default 3), medians (min-max). Numbers are noisy on a shared machine.
 */
import { mkdtempSync, rmSync, writeFileSync, readFileSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { createContext, runPlugin, type RasterImage } from '@mango/core';
import { decodeImage, encodeImage, nodeImages, resizeImage } from '@mango/core/node';
import { loadImageFile, sharedDir, spread } from '@mango/core/testing/node';
import { createModelLoader } from '@mango/models';
import bruise from '@mango/plugin-bruise';
import features from '../src/index.ts';
import { FEATURE_IDS } from '../src/names.ts';

const rounds = Number(process.env.BENCH_ROUNDS ?? 3);

/** CPU time of this process (all its threads) and wall-clock time, in seconds. */
async function time<T>(fn: () => Promise<T>): Promise<[T, { cpu: number; wall: number }]> {
  const c0 = process.cpuUsage();
  const w0 = performance.now();
  const v = await fn();
  const c = process.cpuUsage(c0);
  return [v, { cpu: (c.user + c.system) / 1e6, wall: (performance.now() - w0) / 1000 }];
}

const fmt = (xs: number[]) => `${spread(xs)} s`;

async function main() {
  const shared = sharedDir();
  if (!shared) {
    console.log('skipped: ../shared (the photos) is not present');
    return;
  }
  const dir = mkdtempSync(join(tmpdir(), 'bench-perfruit-'));
  try {
    const tray = (name: string) => join(shared, 'data/bruise-dev/aicup_defect_boxes/images', name);
    const first = await loadImageFile(tray('34737.jpg'));
    const large = join(dir, '34737-4000x3000.jpg');
    writeFileSync(large, await encodeImage(await resizeImage(first, 4000, 3000), 'jpeg', { quality: 92 }));
    const photos: [string, string][] = [
      ['34737.jpg (1280x720)', tray('34737.jpg')],
      ['10911.jpg (1280x720)', tray('10911.jpg')],
      ['34737 at 4000x3000', large],
    ];
    const models = createModelLoader();
    const ctx = () => createContext(nodeImages, { models });
    const all = { features: [...FEATURE_IDS] };
    console.log(`load average at start: ${loadavg()[0].toFixed(1)}; ${rounds} rounds`);
    console.log(
      '| photo | fruit | per image (today, 1024 px): CPU / wall | per fruit, full resolution: CPU / wall | of which the bruise plugin (CPU) |',
    );
    console.log('|---|---|---|---|---|');
    for (const [label, path] of photos) {
      const bytes = new Uint8Array(readFileSync(path));
      const today: { cpu: number[]; wall: number[] } = { cpu: [], wall: [] };
      const fruit: { cpu: number[]; wall: number[] } = { cpu: [], wall: [] };
      const masks: number[] = [];
      let count = 0;
      // a warm-up of each path (module loading, the model's session, sharp's first resize)
      const image = async (): Promise<RasterImage> => decodeImage(bytes, label);
      await runPlugin(features, await image(), { ...all, perFruit: true }, ctx());
      for (let r = 0; r < rounds; r++) {
        const [, t] = await time(async () => runPlugin(features, await image(), all, ctx()));
        today.cpu.push(t.cpu);
        today.wall.push(t.wall);
        const [out, f] = await time(async () => runPlugin(features, await image(), { ...all, perFruit: true }, ctx()));
        count = out.fruits?.length ?? 0;
        fruit.cpu.push(f.cpu);
        fruit.wall.push(f.wall);
        const [, b] = await time(async () =>
          runPlugin(bruise, await image(), {}, { ...ctx(), want: ['fruit-labels'] }),
        );
        masks.push(b.cpu);
      }
      console.log(
        `| ${label} | ${count} | ${fmt(today.cpu)} / ${fmt(today.wall)} | ${fmt(fruit.cpu)} / ${fmt(fruit.wall)} | ${fmt(masks)} |`,
      );
    }
    console.log(`load average at the end: ${loadavg()[0].toFixed(1)}`);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

await main();
