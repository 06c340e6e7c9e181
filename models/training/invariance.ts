/**
 * Invariance of the bruise % (issue 25 item 4): the same photos turned, mirrored, under a warm or cool
 * white-balance cast, at +-0.5 EV, at half resolution, written as JPEG quality 40, with sensor noise.
 * For each variant, the change of the photo's bruise % against the original, median / p90 / max,
 * with the product's own decoding and inference (the installed model, or --method classical).
 *
 *   node --import tsx models/training/invariance.ts [--images DIR] [--limit N] [--method auto|model|classical] [--out FILE]
 *     [--model FILE.onnx] [--files LIST] [--tta V,V,..] [--tta-first V,V,..] [--variants K,K,..]
 *
 * --model: a trained model file (a fold's, an experiment's) instead of the installed one, with the
 * installed one's pre-processing; --tta / --tta-first (with --model): the test-time views of the fruit squares
 * and of the first look (identity, flip-h, flip-v, rot90, rot180, rot270) instead of the manifest's;
 * --files: a file of photo names (one a line) instead of the default; --variants: only these variants.
 *
 * Default photos: the annotated real photos (annotations/real-dev.coco.json) in the dev split.
 * Variant parameters: plugins/bruise/src/invariance.ts (INVARIANCE_VARIANTS).
 */
import { readFileSync, readdirSync, writeFileSync, existsSync } from 'node:fs';
import { basename, join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { quantile, type RasterImage } from '@mango/core';
import { decodeImage, encodeImage } from '@mango/core/node';
import { sharedDir, SHARED_MISSING } from '@mango/core/testing/node';
import { createModelLoader } from '@mango/models';
import { modelFileLoader, viewOptions, viewsOverride } from './model-file.ts';
import { analyseBruise, BruiseOptions, INVARIANCE_VARIANTS, summariseBruise } from '@mango/plugin-bruise';

const { values } = parseArgs({
  options: {
    images: { type: 'string' },
    limit: { type: 'string', default: '60' },
    method: { type: 'string', default: 'auto' },
    out: { type: 'string', default: resolve(import.meta.dirname, 'invariance-report.json') },
    model: { type: 'string' },
    files: { type: 'string' },
    variants: { type: 'string' },
    ...viewOptions,
  },
});
const shared = sharedDir();
if (!shared && !values.images) {
  console.log(SHARED_MISSING);
  process.exit(0);
}
const dir = values.images ?? join(shared!, 'data/bruise-dev/senmango_real_lesions/images');
const coco = resolve(import.meta.dirname, 'annotations/real-dev.coco.json');
let files: string[];
if (!values.images && existsSync(coco)) {
  files = (JSON.parse(readFileSync(coco, 'utf8')) as { images: { file_name: string }[] }).images.map(
    (i) => i.file_name,
  );
} else files = readdirSync(dir).filter((f) => /\.(jpe?g|png)$/i.test(f));
if (values.files) {
  const wanted = new Set(
    readFileSync(values.files, 'utf8')
      .split('\n')
      .map((l) => l.trim()),
  );
  files = files.filter((f) => wanted.has(f));
}
files = files.sort().slice(0, Number(values.limit));

const params = BruiseOptions.parse({ method: values.method });
const file = values.model ? modelFileLoader(values.model, 'experiment', 1, viewsOverride(values)) : undefined;
const models = file?.loader ?? createModelLoader(undefined, { threads: 1 });
const percent = async (image: RasterImage) => {
  const a = await analyseBruise(image, params, { models });
  return { percent: summariseBruise(a).bruise_percent, method: a.method };
};

const allVariants: Record<string, { describe: string; make: (i: RasterImage) => RasterImage | Promise<RasterImage> }> =
  {
    ...INVARIANCE_VARIANTS,
    jpeg40: {
      describe: 'written as JPEG quality 40 (sharp, 4:2:0) and read back',
      make: async (i: RasterImage) => decodeImage(await encodeImage(i, 'jpeg', { quality: 40 }), 'q40.jpg'),
    },
  };
// --variants: only these (an experiment on the turns, say); every one by default
const chosen = values.variants?.split(',').map((v) => v.trim()) ?? Object.keys(allVariants);
for (const v of chosen)
  if (!allVariants[v]) throw new Error(`--variants: no variant ${v} (${Object.keys(allVariants).join(', ')})`);
const variants = Object.fromEntries(chosen.map((v) => [v, allVariants[v]]));
/** each photo's bruise % and its change under each variant (to pool reports of several fold models) */
const perPhoto: { file: string; percent: number; change: Record<string, number> }[] = [];
let method = '';
const t0 = performance.now();
for (const f of files) {
  const image = await decodeImage(readFileSync(join(dir, f)), f);
  const base = await percent(image);
  method = base.method;
  const change: Record<string, number> = {};
  for (const [k, v] of Object.entries(variants)) {
    const p = (await percent(await v.make(image))).percent;
    change[k] = Math.abs(p - base.percent);
  }
  perPhoto.push({ file: f, percent: base.percent, change });
}
/** Each variant's changes over the photos, from the per-photo record. */
const changes = (k: string) => perPhoto.map((p) => p.change[k]);
/** Rounded to 2 decimals; no photos, no quantile (null). */
const r = <T extends number | null>(x: T): T => (x === null ? x : Math.round(x * 100) / 100) as T;
const report = {
  method,
  model: values.model ? basename(values.model) : 'installed',
  views: viewsOverride(values),
  photos: files.length,
  images: dir,
  seconds: Math.round((performance.now() - t0) / 1000),
  variants: Object.fromEntries(
    Object.entries(variants).map(([k, v]) => [
      k,
      {
        describe: v.describe,
        change_median: r(quantile(changes(k), 0.5)),
        change_p90: r(quantile(changes(k), 0.9)),
        change_max: r(Math.max(...changes(k))),
      },
    ]),
  ),
  per_photo: perPhoto.map((p) => ({
    ...p,
    change: Object.fromEntries(Object.entries(p.change).map(([k, v]) => [k, Math.round(v * 1e4) / 1e4])),
  })),
};
writeFileSync(values.out!, JSON.stringify(report, null, 2) + '\n');
console.log(`invariance of the bruise % (${method}, ${files.length} photos; change in points, median / p90 / max):`);
for (const [k, v] of Object.entries(report.variants))
  console.log(`  ${k.padEnd(8)} ${v.change_median} / ${v.change_p90} / ${v.change_max}   (${v.describe})`);
console.log(`written to ${values.out}`);
file?.dispose();
