// Installs a trained bruise model: writes its entry (sha256, input, output) into models/manifest.json.
// node models/training/install-model.mjs models/bruise-unet-320.onnx runs/full/train.json
import { createHash } from 'node:crypto';
import { readFileSync, writeFileSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';

const [file, trainJson] = process.argv.slice(2);
const info = JSON.parse(readFileSync(trainJson, 'utf8'));
const sha256 = createHash('sha256').update(readFileSync(file)).digest('hex');
const side = info.input_side;
const id = basename(file, '.onnx');
const manifestPath = join(dirname(file), 'manifest.json');
const manifest = JSON.parse(readFileSync(manifestPath, 'utf8'));
const entry = {
  id,
  task: 'bruise-segmentation',
  file: basename(file),
  sha256,
  license: 'MIT (weights); trained on the dev split of shared/data, whose photos state no licence: see the card',
  input: {
    name: 'input',
    width: side,
    height: side,
    layout: 'NCHW',
    mean: [0.5, 0.5, 0.5],
    std: [0.25, 0.25, 0.25],
    fruit_channel: false,
    crop: 'two-stage',
  },
  output: { name: 'logits', classes: ['fruit', 'bruise'], activation: 'logit' },
  // averaged over the four quarter turns, in both looks: a group, so a turned photo gives the same
  // views and the same number up to resampling (core's QUARTER_TURNS; model card, "Invariance")
  tta: ['identity', 'rot90', 'rot180', 'rot270'],
  tta_first: ['identity', 'rot90', 'rot180', 'rot270'],
  card: `${id}.md`,
  training: { steps: info.steps, seed: info.seed, photos: info.photos, seconds: info.seconds, torch: info.torch },
};
manifest.models = [entry, ...(manifest.models ?? []).filter((m) => m.id !== id)];
// formatted as the repository's prettier formats it, so `npm run lint` stays green after a retrain
const prettier = await import('prettier');
const options = (await prettier.resolveConfig(manifestPath)) ?? {};
writeFileSync(manifestPath, await prettier.format(JSON.stringify(manifest), { ...options, filepath: manifestPath }));
console.log(`installed ${id}: sha256 ${sha256}`);
