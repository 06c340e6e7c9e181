/**
 * Model-path benchmark (part of npm run bench:bruise), as a user runs it: `mango bruise` on a
 * directory, timed from outside. Start-up and warm-up are taken out by difference: a directory of 24
 * copies of a photo minus a directory of 4 copies, divided by 20 (`BENCH_COPIES=2,6` for the short
 * measure; more than one copy: `mango` scores a single photo without a worker thread).
 * 1. a 4000x3000 JPEG, --concurrency 1, against sharp's full decode of the same file in this run
 *    (target: at most 3x);
 * 2. the 1280x720 AI CUP tray photos, two workers (target: at least 3 photos per second).
 * Each figure is the median of BENCH_RUNS runs (default 3); the machine is shared, so it is noisy.
 */
import { spawnSync } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, readdirSync, rmSync } from 'node:fs';
import { join, resolve } from 'node:path';
import sharp from 'sharp';
import { fullDecodeMs, median, sharedDir, SHARED_MISSING } from '@mango/core/testing/node';

const shared = sharedDir();
if (!shared) {
  console.log(SHARED_MISSING);
  process.exit(0);
}
const runs = Number(process.env.BENCH_RUNS ?? 3);
const cli = resolve(import.meta.dirname, '../../../cli/bin/mango.js');
const tmp = '/tmp/mango-model-bench';
const dev = join(shared, 'data', 'bruise-dev');

function copies(src: string, name: string, n: number, offset = 0): string {
  const dir = join(tmp, name);
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(dir, { recursive: true });
  const list = readdirSync(src).filter((f) => f.endsWith('.jpg'));
  for (let k = 0; k < n; k++) copyFileSync(join(src, list[(k + offset) % list.length]), join(dir, `p${k}.jpg`));
  return dir;
}

function mango(dir: string, concurrency: number): number {
  const t = performance.now();
  const r = spawnSync(
    process.execPath,
    [cli, 'bruise', dir, '--method', 'model', '--concurrency', String(concurrency), '--out', join(tmp, 'out.csv')],
    {
      encoding: 'utf8',
    },
  );
  if (r.status !== 0) throw new Error(`mango bruise failed: ${r.stderr}`);
  return performance.now() - t;
}

/** Milliseconds per photo beyond start-up: (time of n + 1 photos - time of 1 photo) / n. */
function perPhoto(one: string, many: string, n: number, concurrency: number) {
  const a: number[] = [];
  const b: number[] = [];
  for (let k = 0; k < runs; k++) {
    a.push(mango(one, concurrency));
    b.push(mango(many, concurrency));
  }
  return (median(b) - median(a)) / n;
}

mkdirSync(tmp, { recursive: true });
// 1. A 4000x3000 JPEG.
const bigSrc = join(tmp, 'big');
mkdirSync(bigSrc, { recursive: true });
const big = join(bigSrc, 'large-4000x3000.jpg');
if (!existsSync(big))
  await sharp(join(dev, 'synthetic_composites', 'images', 'syn_mangodc_3-Center_2.jpg'))
    .resize(4000, 3000, { fit: 'fill' })
    .jpeg({ quality: 90 })
    .toFile(big);
const d = median(await fullDecodeMs(big, 5));
// The steady pace: a directory of 24 copies minus one of 4, over 20 (short runs time the warm-up).
const [few, many] = (process.env.BENCH_COPIES ?? '4,24').split(',').map(Number);
const bigMs = perPhoto(copies(bigSrc, `big${few}`, few), copies(bigSrc, `big${many}`, many), many - few, 1);
console.log(
  `model path, 4000x3000 JPEG, mango bruise --concurrency 1: ${bigMs.toFixed(0)} ms per photo; sharp full decode ${d.toFixed(0)} ms; ` +
    `ratio ${(bigMs / d).toFixed(2)}x (target <= 3x): ${bigMs / d <= 3 ? 'met' : 'NOT met'}`,
);

// 2. Tray photos, 1280x720, two workers.
const trays = join(dev, 'aicup_defect_boxes', 'images');
const n = 40;
const trayMs = perPhoto(copies(trays, 'tray1', 2), copies(trays, 'tray41', n + 2), n, 2);
console.log(
  `model path, 1280x720 tray photos, 2 workers: ${(1000 / trayMs).toFixed(2)} photos/s (target >= 3): ${1000 / trayMs >= 3 ? 'met' : 'NOT met'}`,
);
