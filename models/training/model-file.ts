/**
 * A model loader offering one trained model file (a fold's, an experiment's) with the shipped model's
 * pre-processing and output (models/manifest.json), for the training scripts' evaluations.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { createModelLoader, readManifest, sha256File, MODELS_DIR } from '@mango/models';

export function shippedBruiseEntry() {
  const shipped = readManifest(MODELS_DIR).models.find((m) => m.task === 'bruise-segmentation');
  if (!shipped) throw new Error('no bruise-segmentation model in models/manifest.json: run npm run train:bruise first');
  return shipped;
}

/** The loader and a dispose() that removes its temporary manifest. */
export function modelFileLoader(file: string, id: string, threads = 2) {
  const shipped = shippedBruiseEntry();
  const dir = mkdtempSync(join(tmpdir(), `mango-${id}-`));
  const path = resolve(file);
  const entry = { ...shipped, id: `${shipped.id}-${id}`, file: path, sha256: sha256File(path) };
  writeFileSync(join(dir, 'manifest.json'), JSON.stringify({ models: [entry] }));
  return { loader: createModelLoader(dir, { threads }), dispose: () => rmSync(dir, { recursive: true, force: true }) };
}
