/** Node-only test helpers: fixtures and the shared data folder beside the repository. */
import { copyFileSync, existsSync, mkdirSync, readFileSync, rmSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import sharp from 'sharp';
import { decodeImage } from '../node/index.ts';

/** The repository root (the folder holding the root package.json). */
export const repoRoot = resolve(dirname(fileURLToPath(import.meta.url)), '../../..');

/** ../shared beside the repository, or null when it is absent (tests then skip with a message). */
export function sharedDir(): string | null {
  const dir = process.env.MANGO_SHARED_DIR ?? resolve(repoRoot, '../shared');
  return existsSync(join(dir, 'data')) ? dir : null;
}

export const SHARED_MISSING = 'skipped: ../shared/data is not present beside the repository';

export async function loadImageFile(path: string) {
  return decodeImage(readFileSync(path), path);
}

/** A 4000x3000 benchmark photo made from a shared photo (see benchPhotos). */
export interface BenchPhoto {
  /** short label for the bench tables */
  name: string;
  /** the 4000x3000 JPEG (quality 90) */
  path: string;
  /** the shared photo it was made from */
  source: string;
}

/**
 * The five photos the benches time against sharp's full decode (issue 15 item 7): shared photos
 * resized to 4000x3000 (cover: the centre kept, no stretch) and saved as JPEG quality 90 in `dir`
 * (made once, reused after). Two studio composites, a tray photo, an orange fruit on a table and a
 * close-up where the fruit fills the frame. BENCH_PHOTOS_ONLY=name,name keeps only those.
 */
export async function benchPhotos(shared: string, dir: string): Promise<BenchPhoto[]> {
  const dev = join(shared, 'data', 'bruise-dev');
  const sources: [string, string][] = [
    ['composite-2', 'synthetic_composites/images/syn_mangodc_3-Center_2.jpg'],
    ['composite-1', 'synthetic_composites/images/syn_mangodc_3-Center_1.jpg'],
    ['tray', 'aicup_defect_boxes/images/00595.jpg'],
    ['orange', 'senmango_real_lesions/images/anthracnose_130.jpg'],
    ['close-up', 'senmango_real_lesions/images/anthracnose_090.jpg'],
  ];
  const only = process.env.BENCH_PHOTOS_ONLY?.split(',');
  mkdirSync(dir, { recursive: true });
  const photos: BenchPhoto[] = [];
  for (const [name, relative] of sources) {
    if (only && !only.includes(name)) continue;
    const source = join(dev, relative);
    const path = join(dir, `${name}-4000x3000.jpg`);
    if (!existsSync(path)) await sharp(source).resize(4000, 3000, { fit: 'cover' }).jpeg({ quality: 90 }).toFile(path);
    photos.push({ name, path, source });
  }
  return photos;
}

/** Median of a list of numbers (the upper one of the two middle values for an even count). */
export const median = (v: number[]) => [...v].sort((a, b) => a - b)[Math.floor(v.length / 2)];

/** Median, minimum and maximum, formatted "median (min-max)" with `digits` decimals. */
export function spread(v: number[], digits = 2): string {
  return `${median(v).toFixed(digits)} (${Math.min(...v).toFixed(digits)}-${Math.max(...v).toFixed(digits)})`;
}

/** Milliseconds of `runs` full decodes of a file by sharp (after one warm-up), as the benches' yardstick. */
export async function fullDecodeMs(path: string, runs: number): Promise<number[]> {
  const bytes = readFileSync(path);
  await decodeImage(bytes);
  const ms: number[] = [];
  for (let k = 0; k < runs; k++) {
    const t = performance.now();
    await decodeImage(bytes);
    ms.push(performance.now() - t);
  }
  return ms;
}

/** A fresh folder `dir` holding `n` copies of `file` (p0.jpg, p1.jpg, ...). */
export function copiesOf(file: string, dir: string, n: number): string {
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(dir, { recursive: true });
  for (let k = 0; k < n; k++) copyFileSync(file, join(dir, `p${k}.jpg`));
  return dir;
}

/**
 * Milliseconds per photo of a command run on a folder, start-up taken out by difference: each run
 * times `command(few)` and `command(many)` (folders of `fewCount` and `manyCount` photos) and gives
 * (many - few) / (manyCount - fewCount). One figure per run.
 */
export function perPhotoByDifference(
  command: (dir: string) => void,
  few: string,
  fewCount: number,
  many: string,
  manyCount: number,
  runs: number,
): number[] {
  const time = (dir: string) => {
    const t = performance.now();
    command(dir);
    return performance.now() - t;
  };
  return Array.from({ length: runs }, () => (time(many) - time(few)) / (manyCount - fewCount));
}
