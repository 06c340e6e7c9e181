/**
 * Speed of remove-background on 4000x3000 photos against sharp's full decode of the same file, in
 * one run (target: at most 3x). Run with `npm run bench:tools`.
 * 1. Per photo through the CLI, as a user runs it: `mango remove-background <folder> --concurrency 1`
 *    (decode, cut-out and PNG encode and write included), start-up taken out by difference: a
 *    folder of 24 copies minus a folder of 4 (not 1: `mango` runs a single photo without a worker
 *    thread), divided by 20 (BENCH_COPIES=4,24). Twenty photos per figure measure the steady pace of
 *    a directory run, as a user scoring thousands of photos gets it; with 2 and 6 copies (the
 *    earlier default) the worker's first photos, still compiled cold, weighed in and the runs
 *    spread over +-20 %. Each run times 3 full decodes (median) and the two CLI runs; the ratio is
 *    given over the runs as median (min-max).
 * 2. In this process, the stages on each photo: decode, segmentation + cut-out, PNG encode (and its size).
 * The five photos are core's benchPhotos (BENCH_PHOTOS_ONLY=close-up,... keeps some). The CLI runs
 * dist/ (npm run build:node first). BENCH_CONCURRENCY=2 runs the command with two workers instead of one.
 * The machine is shared, so timings are noisy.
 */
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { createContext, runPlugin } from '@mango/core';
import { decodeImage, encodeImage, nodeImages } from '@mango/core/node';
import {
  benchPhotos,
  copiesOf,
  fullDecodeMs,
  median,
  perPhotoByDifference,
  sharedDir,
  spread,
  SHARED_MISSING,
} from '@mango/core/testing/node';
import removeBackground from '../src/index.ts';

const shared = sharedDir();
if (!shared) {
  console.log(SHARED_MISSING);
  process.exit(0);
}
const runs = Number(process.env.BENCH_RUNS ?? 3);
const [few, many] = (process.env.BENCH_COPIES ?? '4,24').split(',').map(Number);
const stages = process.env.BENCH_STAGES !== '0';
// One worker by default: one photo at a time, as the decode it is compared with.
const concurrency = Number(process.env.BENCH_CONCURRENCY ?? 1);
const tmp = '/tmp/mango-remove-background-bench';
const cli = resolve(import.meta.dirname, '../../../cli/bin/mango.js');
const photos = await benchPhotos(shared, join(tmp, 'photos'));

function mango(dir: string) {
  const r = spawnSync(
    process.execPath,
    [cli, 'remove-background', dir, '--out-dir', join(tmp, 'out'), '--concurrency', String(concurrency)],
    { encoding: 'utf8' },
  );
  if (r.status !== 0) throw new Error(`mango remove-background failed: ${r.stderr}`);
}

console.log(
  `remove-background, 4000x3000 JPEGs, mango remove-background --concurrency ${concurrency}, per photo ((${many} - ${few} copies) / ${many - few}), ${runs} runs:`,
);
for (const photo of photos) {
  const dirFew = copiesOf(photo.path, join(tmp, `${photo.name}-${few}`), few);
  const dirMany = copiesOf(photo.path, join(tmp, `${photo.name}-${many}`), many);
  // Each run: the median of 3 full decodes, then the CLI on both folders.
  const decodes: number[] = [];
  const perPhoto: number[] = [];
  for (let k = 0; k < runs; k++) {
    decodes.push(median(await fullDecodeMs(photo.path, 3)));
    perPhoto.push(...perPhotoByDifference(mango, dirFew, few, dirMany, many, 1));
  }
  const ratios = perPhoto.map((ms, k) => ms / decodes[k]);
  console.log(
    `  ${photo.name.padEnd(12)} ${median(perPhoto).toFixed(0).padStart(5)} ms per photo, sharp full decode ${median(decodes).toFixed(0)} ms: ` +
      `ratio ${spread(ratios)}x (target <= 3x): ${median(ratios) <= 3 ? 'met' : 'NOT met'}`,
  );
}

if (stages) {
  console.log(`\nstages in this process (median of ${runs} runs after a warm-up):`);
  for (const photo of photos) {
    const bytes = readFileSync(photo.path);
    const decodeMs: number[] = [];
    const segmentMs: number[] = [];
    const encodeMs: number[] = [];
    let fruits = 0;
    let pngBytes = 0;
    for (let k = 0; k < runs + 1; k++) {
      const t0 = performance.now();
      const image = await decodeImage(bytes);
      const t1 = performance.now();
      // The plugin as the API and the CLI run it (default options).
      const cut = await runPlugin(removeBackground, image, {}, createContext(nodeImages));
      const t2 = performance.now();
      pngBytes = (await encodeImage(cut.image, 'png')).length;
      const t3 = performance.now();
      fruits = cut.fruits;
      if (k === 0) continue; // warm-up
      decodeMs.push(t1 - t0);
      segmentMs.push(t2 - t1);
      encodeMs.push(t3 - t2);
    }
    const d = median(decodeMs);
    const s = median(segmentMs);
    const e = median(encodeMs);
    console.log(
      `  ${photo.name.padEnd(12)} decode ${d.toFixed(0)} ms, segmentation + cut-out ${s.toFixed(0)} ms, PNG encode ${e.toFixed(0)} ms ` +
        `(${(pngBytes / 1e6).toFixed(2)} MB) ` +
        `(${fruits} fruit): ${((d + s + e) / d).toFixed(2)}x decode`,
    );
  }
}
// Timings on a shared, busy machine are noisy: a fixed JS loop shows how much slower than usual.
const c0 = performance.now();
let acc = 0;
for (let i = 0; i < 1e8; i++) acc += i & 7;
console.log(
  `(load check: 1e8-step JS loop ${(performance.now() - c0).toFixed(0)} ms; ~70-100 ms on an idle core${acc < 0 ? '' : ''})`,
);
