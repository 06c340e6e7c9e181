/**
 * The model card's example pictures (models/card/*.jpg): the worst out-of-fold cases of the grouped
 * k-fold report, each scored again by the fold model that never saw that fruit, drawn as the photo
 * beside the product's overlay (fruit outline, bruise tinted), 180 px high.
 *
 *   node --import tsx models/training/card-pictures.ts [--runs models/training/runs] [--data ../shared/data/bruise-dev]
 *
 * Cases: the composite with the largest error, the healthy photo scored highest, the lesioned photo
 * scored lowest, and one typical lesioned photo (the median of its class) for contrast; then two AI CUP
 * anthracnose boxes (the shipped model: no model trains on that set), enlarged, with the box drawn.
 */
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import sharp from 'sharp';
import { createContext, runPlugin } from '@mango/core';
import { decodeImage, nodeImages, readCsv } from '@mango/core/node';
import bruise from '@mango/plugin-bruise';
import { createModelLoader, MODELS_DIR, readManifest, sha256File } from '@mango/models';

const here = import.meta.dirname;
const { values } = parseArgs({
  options: {
    runs: { type: 'string', default: resolve(here, 'runs') },
    data: { type: 'string', default: resolve(here, '../../../shared/data/bruise-dev') },
    report: { type: 'string', default: resolve(here, 'kfold-report.json') },
    out: { type: 'string', default: resolve(MODELS_DIR, 'card') },
  },
});
const report = JSON.parse(readFileSync(values.report!, 'utf8'));
const shipped = readManifest(MODELS_DIR).models.find((m) => m.task === 'bruise-segmentation')!;
const foldOf = new Map<string, number>();
for (const r of readCsv(join(values.runs!, 'fold-0/folds.csv'))) foldOf.set(`${r.set}/${r.filename}`, Number(r.fold));

type Comp = { filename: string; truth_percent: number; predicted_percent: number };
type Lab = { filename: string; class: string; lesioned: number; predicted_percent: number };
const comps: Comp[] = report.per_image_out_of_fold.composites;
const labs: Lab[] = report.per_image_out_of_fold.senmango;
const by = <T>(xs: T[], f: (x: T) => number) => [...xs].sort((a, b) => f(a) - f(b));
const worstComp = by(comps, (c) => -Math.abs(c.predicted_percent - c.truth_percent))[0];
const healthy = by(
  labs.filter((l) => !l.lesioned),
  (l) => -l.predicted_percent,
)[0];
const lesioned = by(
  labs.filter((l) => l.lesioned),
  (l) => l.predicted_percent,
);
const typical = lesioned[Math.floor(lesioned.length / 2)];
const cases = [
  {
    name: 'worst-composite',
    set: 'composites',
    dir: 'synthetic_composites',
    file: worstComp.filename,
    note: `truth ${worstComp.truth_percent} %, model ${worstComp.predicted_percent} %`,
  },
  {
    name: 'healthy-highest',
    set: 'senmango',
    dir: 'senmango_real_lesions',
    file: healthy.filename,
    note: `healthy, model ${healthy.predicted_percent} %`,
  },
  {
    name: 'lesioned-lowest',
    set: 'senmango',
    dir: 'senmango_real_lesions',
    file: lesioned[0].filename,
    note: `${lesioned[0].class}, model ${lesioned[0].predicted_percent} %`,
  },
  {
    name: 'lesioned-typical',
    set: 'senmango',
    dir: 'senmango_real_lesions',
    file: typical.filename,
    note: `${typical.class}, model ${typical.predicted_percent} % (median lesioned photo)`,
  },
];

// The annotated real photos (pixel truth of ANNOTATION.md): the largest bruise % error and the worst
// fruit outline, out of fold.
type Real = { filename: string; truth_percent: number; predicted_percent: number; fruit_iou: number };
const real: Real[] = report.per_image_out_of_fold.annotated_real ?? [];
if (real.length > 0) {
  const worst = by(real, (r) => -Math.abs(r.predicted_percent - r.truth_percent))[0];
  const outline = by(real, (r) => r.fruit_iou)[0];
  cases.push(
    {
      name: 'real-worst-error',
      set: 'senmango',
      dir: 'senmango_real_lesions',
      file: worst.filename,
      note: `annotated ${worst.truth_percent} %, model ${worst.predicted_percent} %`,
    },
    {
      name: 'real-worst-outline',
      set: 'senmango',
      dir: 'senmango_real_lesions',
      file: outline.filename,
      note: `fruit IoU ${outline.fruit_iou}; annotated ${outline.truth_percent} %, model ${outline.predicted_percent} %`,
    },
  );
}

mkdirSync(values.out!, { recursive: true });
for (const c of cases) {
  // A photo in no fold trained no model: any fold model never saw it (fold 0 scores it).
  const fold = foldOf.get(`${c.set}/${c.file}`) ?? 0;
  const dir = mkdtempSync(join(tmpdir(), 'mango-card-'));
  const file = resolve(values.runs!, `fold-${fold}/model.onnx`);
  const entry = { ...shipped, id: `${shipped.id}-fold-${fold}`, file, sha256: sha256File(file) };
  writeFileSync(join(dir, 'manifest.json'), JSON.stringify({ models: [entry] }));
  const bytes = readFileSync(join(values.data!, c.dir, 'images', c.file));
  const image = await decodeImage(bytes, c.file);
  const r = await runPlugin(
    bruise,
    image,
    { method: 'model' },
    createContext(nodeImages, { models: createModelLoader(dir), filename: c.file }),
  );
  rmSync(dir, { recursive: true, force: true });
  const picture = r.images.overlay;
  if (picture?.kind !== 'picture') throw new Error(`${c.file}: no overlay`);
  const overlay = await nodeImages.encode(picture.image, picture.format, { quality: picture.quality });
  const h = 180;
  const [a, b] = await Promise.all(
    [bytes, overlay].map((x) => sharp(x).rotate().resize({ height: h }).jpeg({ quality: 80 }).toBuffer()),
  );
  const wa = (await sharp(a).metadata()).width!;
  const wb = (await sharp(b).metadata()).width!;
  const out = join(values.out!, `${c.name}.jpg`);
  await sharp({ create: { width: wa + wb + 6, height: h, channels: 3, background: '#ffffff' } })
    .composite([
      { input: a, left: 0, top: 0 },
      { input: b, left: wa + 6, top: 0 },
    ])
    .jpeg({ quality: 80 })
    .toFile(out);
  console.log(`${out}: ${c.file} (fold ${fold}) ${c.note}; this run ${r.bruise_percent} %`);
}

// A missed AI CUP anthracnose box (no model trains on that set): the region around the box, photo
// beside overlay, enlarged 2x, the box drawn in red. Scored by the shipped model.
const boxes = readCsv(join(values.data!, 'aicup_defect_boxes/boxes.csv')).filter((b) => b.class === 'anthracnose');
for (const b of boxes.slice(0, 2)) {
  const bytes = readFileSync(join(values.data!, 'aicup_defect_boxes/images', b.filename));
  const image = await decodeImage(bytes, b.filename);
  const r = await runPlugin(
    bruise,
    image,
    { method: 'model' },
    createContext(nodeImages, { models: createModelLoader(), filename: b.filename }),
  );
  const picture = r.images.overlay;
  if (picture?.kind !== 'picture') throw new Error(`${b.filename}: no overlay`);
  const overlay = await nodeImages.encode(picture.image, picture.format, { quality: picture.quality });
  const [x, y, w, h] = [b.x, b.y, b.w, b.h].map(Number);
  const side = Math.round(Math.max(w, h) * 3);
  const left = Math.max(0, Math.min(image.width - side, Math.round(x + w / 2 - side / 2)));
  const top = Math.max(0, Math.min(image.height - side, Math.round(y + h / 2 - side / 2)));
  const box = Buffer.from(
    `<svg xmlns="http://www.w3.org/2000/svg" width="${side}" height="${side}"><rect x="${x - left}" y="${y - top}" ` +
      `width="${w}" height="${h}" fill="none" stroke="red" stroke-width="2"/></svg>`,
  );
  // sharp applies one resize and one extract per pipeline, so each step is its own pipeline
  const crop = async (src: Uint8Array) => {
    const full = await sharp(src).resize(image.width, image.height).toBuffer();
    const cut = await sharp(full)
      .extract({ left, top, width: side, height: side })
      .composite([{ input: box }])
      .toBuffer();
    return sharp(cut)
      .resize(side * 2)
      .jpeg({ quality: 85 })
      .toBuffer();
  };
  const [a, o] = await Promise.all([crop(bytes), crop(overlay)]);
  const out = join(values.out!, `aicup-missed-${b.filename.replace(/\.jpg$/, '')}.jpg`);
  await sharp({ create: { width: side * 4 + 6, height: side * 2, channels: 3, background: '#ffffff' } })
    .composite([
      { input: a, left: 0, top: 0 },
      { input: o, left: side * 2 + 6, top: 0 },
    ])
    .jpeg({ quality: 85 })
    .toFile(out);
  console.log(`${out}: ${b.filename} anthracnose box ${w}x${h}; photo ${r.bruise_percent} %`);
}
