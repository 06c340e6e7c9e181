/**
 * Bruise benchmark (npm run bench:bruise):
 * 1. a 4000x3000 JPEG made from a shared photo: sharp decode alone vs decode + scoring, ratio vs
 *    the 2x target;
 * 2. 200 photos (shared photos resized to 1280 px into /tmp) scored with 1 and 2 worker threads.
 * Numbers are medians of a few runs; the machine is shared, so they are noisy.
 */
import { mkdirSync, readFileSync, readdirSync, existsSync } from 'node:fs';
import { join } from 'node:path';
import { Worker } from 'node:worker_threads';
import sharp from 'sharp';
import { createContext, runPlugin } from '@mango/core';
import { decodeImage, nodeImages } from '@mango/core/node';
import { sharedDir, SHARED_MISSING } from '@mango/core/testing/node';
import bruise from '../src/index.ts';

const shared = sharedDir();
if (!shared) {
  console.log(SHARED_MISSING);
  process.exit(0);
}
const runs = Number(process.env.BENCH_RUNS ?? 5);
const skipLarge = process.env.BENCH_SKIP_LARGE === '1';
const photos = Number(process.env.BENCH_PHOTOS ?? 200);
const tmp = '/tmp/mango-bruise-bench';
mkdirSync(tmp, { recursive: true });
const dev = join(shared, 'data', 'bruise-dev');
const source = join(dev, 'synthetic_composites', 'images', 'syn_mangodc_3-Center_2.jpg');

const median = (v: number[]) => [...v].sort((a, b) => a - b)[Math.floor(v.length / 2)];

if (!skipLarge) await largePhoto();

async function largePhoto() {
  // 1. One large photo.
  const big = join(tmp, 'large-4000x3000.jpg');
  if (!existsSync(big)) await sharp(source).resize(4000, 3000, { fit: 'fill' }).jpeg({ quality: 90 }).toFile(big);
  const bytes = readFileSync(big);
  const ctx = createContext(nodeImages);
  // As the product runs it (CLI, API): decoded straight to the plugin's working size.
  const options = { method: 'classical' as const };
  const maxSide = bruise.decodeMaxSide?.(bruise.options.parse(options));
  const decodeForScoring = () => decodeImage(bytes, undefined, undefined, { maxSide });
  await runPlugin(bruise, await decodeForScoring(), options, ctx); // warm-up (JIT)
  const decodeMs: number[] = [];
  const totalMs: number[] = [];
  // Two loops rather than one interleaved loop: a full decode hands V8 a 48 MB buffer whose
  // collection then lands in the next scoring run, which the product (decoding at 640 px) never pays.
  for (let k = 0; k < runs; k++) {
    const t = performance.now();
    await decodeImage(bytes);
    decodeMs.push(performance.now() - t);
  }
  for (let k = 0; k < runs; k++) {
    const t = performance.now();
    const image = await decodeForScoring();
    await runPlugin(bruise, image, options, ctx);
    totalMs.push(performance.now() - t);
  }
  const d = median(decodeMs);
  const s = median(totalMs);
  console.log(
    `4000x3000 JPEG: sharp full decode ${d.toFixed(0)} ms; decode to ${maxSide} px (shrink-on-load) + score ${s.toFixed(0)} ms`,
  );
  console.log(`ratio ${(s / d).toFixed(2)}x decode (target <= 2x): ${s / d <= 2 ? 'met' : 'NOT met'}`);
}

// 2. A directory of photos with 1 and 2 worker threads.
const dir = join(tmp, 'photos');
mkdirSync(dir, { recursive: true });
const sources = [
  ...readdirSync(join(dev, 'synthetic_composites', 'images')).map((f) =>
    join(dev, 'synthetic_composites', 'images', f),
  ),
  ...readdirSync(join(dev, 'aicup_defect_boxes', 'images')).map((f) => join(dev, 'aicup_defect_boxes', 'images', f)),
];
const files: string[] = [];
for (let k = 0; k < photos; k++) {
  const f = join(dir, `photo-${String(k).padStart(3, '0')}.jpg`);
  if (!existsSync(f))
    await sharp(sources[k % sources.length])
      .resize(1280, 1280, { fit: 'inside' })
      .jpeg({ quality: 90 })
      .toFile(f);
  files.push(f);
}

async function throughput(threads: number): Promise<number> {
  // On Node 20 `--import tsx` in execArgv does not reach a .ts worker entry, so a tiny JS entry
  // registers tsx's loader in the worker first and then imports worker.ts.
  const api = JSON.stringify(import.meta.resolve('tsx/esm/api'));
  const entry = JSON.stringify(new URL('./worker.ts', import.meta.url).href);
  const code = `import(${api}).then((m) => { m.register(); return import(${entry}); })`;
  const workers = Array.from(
    { length: threads },
    () => new Worker(code, { eval: true, execArgv: ['--import', 'tsx'] }),
  );
  const send = (w: Worker, batch: string[]) =>
    new Promise<void>((resolve, reject) => {
      const onError = (e: Error) => {
        w.off('message', onMessage);
        reject(e);
      };
      const onMessage = () => {
        w.off('error', onError);
        resolve();
      };
      w.once('message', onMessage);
      w.once('error', onError);
      w.postMessage({ files: batch });
    });
  await Promise.all(workers.map((w) => send(w, files.slice(0, 2)))); // warm-up
  const queue = [...files];
  const t = performance.now();
  await Promise.all(
    workers.map(async (w) => {
      for (let batch = queue.splice(0, 4); batch.length; batch = queue.splice(0, 4)) await send(w, batch);
    }),
  );
  const seconds = (performance.now() - t) / 1000;
  for (const w of workers) w.postMessage('exit');
  return files.length / seconds;
}

for (const threads of [1, 2]) {
  const ips = await throughput(threads);
  console.log(`${files.length} photos (long side 1280), ${threads} worker thread(s): ${ips.toFixed(1)} images/s`);
}
