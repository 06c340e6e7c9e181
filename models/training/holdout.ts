/**
 * One model file on a list of annotated real photos it never trained on (for a full model: the
 * annotated photos whose source fruit is outside its training set), with the product's own
 * TypeScript inference and the annotations of ANNOTATION.md (annotations/real-dev.coco.json).
 *
 *   node --import tsx models/training/holdout.ts --files LIST [--model FILE.onnx] [--data DIR] --out FILE
 *
 * --model: a trained model file (default: the installed one), with the installed one's pre-processing.
 * The report has the kfold.ts report's shape for these photos (per_image_out_of_fold.annotated_real),
 * so analysis/head_to_head.py compares two such reports photo by photo (paired bootstrap).
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { createModelLoader } from '@mango/models';
import { evaluateBruise } from '@mango/plugin-bruise/eval';
import { modelFileLoader, shippedBruiseEntry } from './model-file.ts';

const { values } = parseArgs({
  options: {
    files: { type: 'string' },
    model: { type: 'string' },
    data: { type: 'string', default: resolve(import.meta.dirname, '../../../shared/data/bruise-dev') },
    out: { type: 'string' },
  },
});
if (!values.files || !values.out) {
  console.error('usage: holdout.ts --files LIST [--model FILE.onnx] [--data DIR] --out FILE');
  process.exit(2);
}
const names = new Set(
  readFileSync(values.files, 'utf8')
    .split('\n')
    .map((l) => l.trim())
    .filter(Boolean),
);
const file = values.model ? modelFileLoader(values.model, 'holdout') : undefined;
const t = performance.now();
const ev = await evaluateBruise({
  images: join(values.data!, 'senmango_real_lesions/images'),
  truth: resolve(import.meta.dirname, 'annotations/real-dev.coco.json'),
  method: 'model',
  models: file?.loader ?? createModelLoader(),
  only: (name) => names.has(name),
});
file?.dispose();
const r = ev.pixel!;
const report = {
  model: values.model ? resolve(values.model) : shippedBruiseEntry().id,
  photos_listed: names.size,
  pooled: { ...r, per_image: undefined },
  per_image_out_of_fold: { annotated_real: r.per_image },
};
writeFileSync(values.out, JSON.stringify(report, null, 2) + '\n');
console.log(
  `${r.images} of ${names.size} listed photos (${((performance.now() - t) / 1000).toFixed(0)} s): error median ${r.abs_error_median} / p90 ${r.abs_error_p90} / max ${r.abs_error_max}, CCC ${r.lin_ccc}, fruit IoU median ${r.fruit_iou_median}, lesion IoU median ${r.bruise_iou_median}\nwritten to ${values.out}`,
);
