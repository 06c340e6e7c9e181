/**
 * Scores every photo in a folder with the bruise plugin, in this process, and writes one CSV row per
 * photo. The library route; `npx mango bruise <dir> --out results.csv` does the same from the CLI.
 *
 *   node --import tsx examples/batch-score/score.ts <dir> [--out results.csv] [--method classical|auto]
 */
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { basename, extname, join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';
import { createContext, runPlugin, userMessage } from '@mango/core';
import { toCsv as csvText } from '@mango/core/csv';
import { nodeImages } from '@mango/core/node';
import bruise from '@mango/plugin-bruise';
import { type BruiseResultItem } from '@mango/plugin-bruise/results';

const IMAGE = new Set(['.jpg', '.jpeg', '.png', '.webp']);

/** data.csv's columns (the web export and `mango bruise`), then a few added fields and the error. */
export const CSV_COLUMNS = [
  'Filename',
  'Total Mango Pixels',
  'Bruise Percentage',
  'Non-Bruise Percentage',
  'bruise_pixels',
  'fruit_count',
  'lesion_count',
  'method',
  'error',
] as const;

export interface ScoredPhoto {
  filename: string;
  /** the bruise figures (the HTTP item without its overlay: this example renders none) */
  item?: Omit<BruiseResultItem, 'overlay_img'>;
  error?: string;
}

export function listPhotos(dir: string): string[] {
  return readdirSync(dir)
    .filter((f) => IMAGE.has(extname(f).toLowerCase()))
    .sort()
    .map((f) => join(dir, f));
}

/** Scores one photo after another; a bad file becomes a row with its error, the rest go on. */
export async function scoreDirectory(
  dir: string,
  method: 'classical' | 'auto' = 'classical',
  onPhoto?: (p: ScoredPhoto) => void,
): Promise<ScoredPhoto[]> {
  const out: ScoredPhoto[] = [];
  for (const path of listPhotos(dir)) {
    const filename = basename(path);
    let scored: ScoredPhoto;
    try {
      const image = await nodeImages.decode(readFileSync(path), filename);
      // want: [] asks for no overlay image.
      const ctx = createContext(nodeImages, { filename, want: [] });
      const { images: _images, ...item } = await runPlugin(bruise, image, { method }, ctx);
      scored = { filename, item };
    } catch (e) {
      scored = { filename, error: userMessage(e) };
    }
    onPhoto?.(scored);
    out.push(scored);
  }
  return out;
}

export function toCsv(photos: ScoredPhoto[]): string {
  const rows = photos.map(({ filename, item, error }) =>
    item
      ? [
          filename,
          item.total_mango_pixels,
          item.bruise_percent,
          item.non_bruise_percent,
          item.bruise_pixels,
          item.fruits.length,
          item.fruits.reduce((n, f) => n + f.lesion_count, 0),
          item.method,
          '',
        ]
      : [filename, '', '', '', '', '', '', '', error ?? 'failed'],
  );
  return csvText(CSV_COLUMNS, rows);
}

async function main() {
  const { values, positionals } = parseArgs({
    allowPositionals: true,
    options: {
      out: { type: 'string', default: 'results.csv' },
      method: { type: 'string', default: 'classical' },
    },
  });
  const dir = positionals[0];
  if (!dir) throw new Error('usage: score.ts <dir> [--out results.csv] [--method classical|auto]');
  if (values.method !== 'classical' && values.method !== 'auto') throw new Error('--method is classical or auto');
  const photos = await scoreDirectory(resolve(dir), values.method, (p) =>
    console.log(p.item ? `${p.filename}  ${p.item.bruise_percent.toFixed(2)}% bruised` : `${p.filename}  ${p.error}`),
  );
  writeFileSync(values.out, toCsv(photos));
  const failed = photos.filter((p) => p.error).length;
  console.log(`${photos.length} photos scored${failed ? `, ${failed} failed` : ''}; wrote ${resolve(values.out)}`);
  if (failed) process.exitCode = 1;
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  main().catch((e: unknown) => {
    console.error(e instanceof Error ? e.message : e);
    process.exit(2);
  });
}
