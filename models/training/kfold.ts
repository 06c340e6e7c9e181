/**
 * Grouped k-fold estimate of the bruise model, with the product's own TypeScript inference.
 *
 *   node --import tsx models/training/kfold.ts --runs models/training/runs --folds 5 --data ../shared/data/bruise-dev
 *     [--partial] [--skip-classical] [--tta V,V,..] [--tta-first V,V,..]
 *
 * Fold k's model (runs/fold-k/model.onnx) never saw a photo of the source fruit in fold k
 * (runs/full/folds.csv, written by the training); it scores exactly those photos. The out-of-fold
 * results of all folds are pooled into one figure per measure, and each fold's own figure gives the
 * spread. The AI CUP photos never train any model, so every fold model scores all of them. The
 * classical method is scored on the same photos for the side-by-side table.
 */
import { createHash } from 'node:crypto';
import { existsSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { readCsv } from '@mango/core/node';
import { modelFileLoader, shippedBruiseEntry, viewOptions, viewsOverride } from './model-file.ts';
import { evaluateBruise, summariseLabelSet, summarisePixelSet, type BruiseEvaluation } from '@mango/plugin-bruise/eval';

const { values } = parseArgs({
  options: {
    runs: { type: 'string', default: resolve(import.meta.dirname, 'runs') },
    folds: { type: 'string', default: '5' },
    data: { type: 'string', default: resolve(import.meta.dirname, '../../../shared/data/bruise-dev') },
    out: { type: 'string', default: resolve(import.meta.dirname, 'kfold-report.json') },
    'skip-classical': { type: 'boolean', default: false },
    // score only the folds trained so far (a partial estimate, said so in the report)
    partial: { type: 'boolean', default: false },
    ...viewOptions,
  },
});
const runs = values.runs!;
const k = Number(values.folds);
const data = values.data!;
const realCoco = resolve(import.meta.dirname, 'annotations/real-dev.coco.json');
const realImages = join(data, 'senmango_real_lesions/images');
const sets = {
  images: join(data, 'synthetic_composites/images'),
  truth: join(data, 'synthetic_composites'),
  labels: join(data, 'senmango_real_lesions/labels.csv'),
  boxes: join(data, 'aicup_defect_boxes/boxes.csv'),
};

const foldOf = new Map<string, number>();
// every training run writes the same folds.csv (the grouping depends only on the data)
const foldsCsv = ['full', ...Array.from({ length: k }, (_, f) => `fold-${f}`)]
  .map((d) => join(runs, d, 'folds.csv'))
  .find((p) => existsSync(p));
if (!foldsCsv) throw new Error(`no folds.csv under ${runs}: train the folds first`);
const foldOfGroup = new Map<string, number>();
for (const r of readCsv(foldsCsv)) {
  foldOf.set(`${r.set}/${r.filename}`, Number(r.fold));
  foldOfGroup.set(r.group, Number(r.fold));
}
/**
 * A labelled SenMango photo the folds.csv does not list (outside the recipe's training set) is scored once:
 * by the fold that held out its source group, else (no model trained on that group) by fold sha1(group)
 * mod k. Before 2026-11-29 every fold model scored it, so it stood k times in the pooled AUC, scored too by
 * models that trained on its source fruit (analysis/labels_once.py).
 */
const senmangoGroup = new Map(
  readCsv(join(data, 'senmango_real_lesions/provenance.csv')).map((r) => [r.filename, r.source_group]),
);
const unlistedFold = (name: string): number | undefined => {
  const group = senmangoGroup.get(name);
  if (group === undefined) return undefined;
  return foldOfGroup.get(group) ?? Number(BigInt(`0x${createHash('sha1').update(group).digest('hex')}`) % BigInt(k));
};
const shipped = shippedBruiseEntry();

/** A model loader offering only this fold's model, with the shipped model's pre-processing. */
const foldLoader = (fold: number) =>
  modelFileLoader(resolve(runs, `fold-${fold}/model.onnx`), `fold-${fold}`, 2, viewsOverride(values));

const round = (v: number) => Math.round(v * 1e4) / 1e4;
function spread(xs: number[]) {
  const ok = xs.filter((x) => Number.isFinite(x));
  const mean = ok.reduce((a, b) => a + b, 0) / ok.length;
  const sd = Math.sqrt(ok.reduce((a, b) => a + (b - mean) ** 2, 0) / Math.max(1, ok.length - 1));
  return {
    mean: round(mean),
    sd: round(sd),
    min: round(Math.min(...ok)),
    max: round(Math.max(...ok)),
    folds: xs.map(round),
  };
}

const trained = Array.from({ length: k }, (_, f) => f).filter((f) => existsSync(join(runs, `fold-${f}/model.onnx`)));
if (trained.length < k && !values.partial) {
  throw new Error(`folds ${trained.length} of ${k} trained: train the rest, or pass --partial`);
}
if (trained.length === 0) throw new Error('no fold is trained yet');
/** Photos of the given folds (the AI CUP photos train no model, so they belong to every fold). */
const inFolds = (fs: number[]) => (name: string) => {
  const fold = foldOf.get(`composites/${name}`) ?? foldOf.get(`senmango/${name}`) ?? unlistedFold(name);
  return fold === undefined || fs.includes(fold);
};
const perFold: BruiseEvaluation[] = [];
/** Each fold model on its held-out annotated real photos (pixel truth of ANNOTATION.md, COCO). */
const realPerFold: BruiseEvaluation[] = [];
for (const f of trained) {
  const { loader, dispose } = foldLoader(f);
  const t = performance.now();
  // A fold can hold no composite (29 composites over 5 folds by source group): then only its
  // labelled photos and the boxes are scored, and the pooled composite figures come from the others.
  const hasComposites = [...foldOf].some(([key, fold]) => key.startsWith('composites/') && fold === f);
  const ev = await evaluateBruise({
    ...sets,
    ...(hasComposites ? {} : { images: undefined, truth: undefined }),
    method: 'model',
    models: loader,
    only: inFolds([f]),
  });
  const real = await evaluateBruise({
    images: realImages,
    truth: realCoco,
    method: 'model',
    models: loader,
    only: (name) => foldOf.get(`senmango/${name}`) === f,
  });
  realPerFold.push(real);
  dispose();
  console.log(
    `fold ${f}: ${real.pixel?.images} annotated real photos: CCC ${real.pixel?.lin_ccc}, fruit IoU median ${real.pixel?.fruit_iou_median}, lesion IoU median ${real.pixel?.bruise_iou_median}`,
  );
  console.log(
    `fold ${f}: ${ev.pixel?.images ?? 0} composites, ${ev.labels?.images} labelled photos, ${ev.boxes?.boxes} boxes ` +
      `(${((performance.now() - t) / 1000).toFixed(0)} s)`,
  );
  perFold.push(ev);
}

const wanted = new Set(['anthracnose', 'latex']);
const pooled = {
  real: summarisePixelSet(realPerFold.flatMap((e) => e.pixel!.per_image)),
  pixel: summarisePixelSet(perFold.flatMap((e) => e.pixel?.per_image ?? [])),
  labels: summariseLabelSet(perFold.flatMap((e) => e.labels!.per_image)),
  // every fold model scores every box: the pooled share is the mean over the fold models
  boxes: spread(perFold.map((e) => e.boxes!.found_share)),
  box_hits: spread(perFold.map((e) => e.boxes!.hit_share)),
  box_control_hits: spread(perFold.map((e) => e.boxes!.control_hit_share)),
};
const folds = {
  real_lin_ccc: spread(realPerFold.map((e) => e.pixel!.lin_ccc)),
  real_abs_error_median: spread(realPerFold.map((e) => e.pixel!.abs_error_median ?? NaN)),
  real_abs_error_p90: spread(realPerFold.map((e) => e.pixel!.abs_error_p90 ?? NaN)),
  real_fruit_iou_median: spread(realPerFold.map((e) => e.pixel!.fruit_iou_median ?? NaN)),
  real_lesion_iou_median: spread(realPerFold.map((e) => e.pixel!.bruise_iou_median ?? NaN)),
  abs_error_median: spread(perFold.map((e) => e.pixel?.abs_error_median ?? NaN)),
  abs_error_p90: spread(perFold.map((e) => e.pixel?.abs_error_p90 ?? NaN)),
  lin_ccc: spread(perFold.map((e) => e.pixel?.lin_ccc ?? NaN)),
  clean_max_percent: spread(perFold.map((e) => e.pixel?.clean_max_percent ?? NaN)),
  bruise_iou_median: spread(perFold.map((e) => e.pixel?.bruise_iou_median ?? NaN)),
  auc: spread(perFold.map((e) => e.labels!.auc)),
  boxes_found_share: spread(perFold.map((e) => e.boxes!.found_share)),
  boxes_hit_share: spread(perFold.map((e) => e.boxes!.hit_share)),
  boxes_control_hit_share: spread(perFold.map((e) => e.boxes!.control_hit_share)),
};

let classical: BruiseEvaluation | undefined;
let classicalReal: BruiseEvaluation | undefined;
// the classical method on exactly the photos the fold models scored
if (!values['skip-classical']) {
  classical = await evaluateBruise({ ...sets, method: 'classical', only: inFolds(trained) });
  classicalReal = await evaluateBruise({
    images: realImages,
    truth: realCoco,
    method: 'classical',
    only: (name) => trained.includes(foldOf.get(`senmango/${name}`) ?? -1),
  });
}

const strip = (e?: BruiseEvaluation) =>
  e && {
    pixel: e.pixel && { ...e.pixel, per_image: undefined },
    labels: e.labels && { ...e.labels, per_image: undefined },
    boxes: e.boxes && { ...e.boxes, per_box: undefined },
  };
const report = {
  model: shipped.id,
  folds: k,
  folds_scored: trained,
  // the test-time views, when not the shipped manifest's (--tta, --tta-first)
  views: viewsOverride(values),
  complete: trained.length === k,
  grouping: 'source_group of the provenance.csv files; a composite and the photo it was made from share a fold',
  pooled_out_of_fold: {
    annotated_real: { ...pooled.real, per_image: undefined },
    pixel: { ...pooled.pixel, per_image: undefined },
    labels: { ...pooled.labels, per_image: undefined },
    boxes_found_share: pooled.boxes,
    boxes_hit_share: pooled.box_hits,
    boxes_control_hit_share: pooled.box_control_hits,
    boxes_per_fold: perFold.map((e) => ({
      found: e.boxes!.found,
      hits: e.boxes!.hits,
      boxes: e.boxes!.boxes,
      control_windows: e.boxes!.control_windows,
      control_hit_share: e.boxes!.control_hit_share,
      by_class: e.boxes!.by_class,
    })),
  },
  per_fold_spread: folds,
  classical_same_photos: strip(classical),
  classical_same_annotated_real: classicalReal?.pixel && { ...classicalReal.pixel, per_image: undefined },
  per_image_out_of_fold: {
    annotated_real: pooled.real.per_image,
    composites: pooled.pixel.per_image,
    senmango: pooled.labels.per_image,
  },
  boxes_wanted: [...wanted],
};
// formatted as the repository's prettier formats it, so `npm run lint` stays green after a run
const prettier = await import('prettier');
const prettierOptions = (await prettier.resolveConfig(values.out!)) ?? {};
writeFileSync(
  values.out!,
  await prettier.format(JSON.stringify(report), { ...prettierOptions, filepath: values.out! }),
);
const p = pooled.pixel;
const l = pooled.labels;
const r = pooled.real;
console.log(`grouped ${k}-fold (folds scored: ${trained.join(', ')}), pooled out-of-fold (spread over folds in the report):
  annotated real (${r.images}): error median ${r.abs_error_median} / p90 ${r.abs_error_p90} / max ${r.abs_error_max}, CCC ${r.lin_ccc}, fruit IoU median ${r.fruit_iou_median} (min ${r.fruit_iou_min}), lesion IoU median ${r.bruise_iou_median}, clean max ${r.clean_max_percent}
  composites: error median ${p.abs_error_median} / p90 ${p.abs_error_p90} / max ${p.abs_error_max}, CCC ${p.lin_ccc}, bruise IoU median ${p.bruise_iou_median}, clean max ${p.clean_max_percent}
  senmango: AUC ${l.auc}, medians ${JSON.stringify(l.median_percent_by_class)}
  aicup: boxes found ${JSON.stringify(pooled.boxes)}
  aicup: boxes hit ${JSON.stringify(pooled.box_hits)}, control windows hit ${JSON.stringify(pooled.box_control_hits)}
written to ${values.out}`);
