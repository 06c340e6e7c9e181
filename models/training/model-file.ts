/**
 * A model loader offering one trained model file (a fold's, an experiment's) with the shipped model's
 * pre-processing and output (models/manifest.json), for the training scripts' evaluations.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import type { TtaView } from '@mango/core';
import { createModelLoader, readManifest, sha256File, MODELS_DIR } from '@mango/models';

/** Test-time views to try instead of the shipped manifest's (`--tta`, `--tta-first`: comma lists). */
export interface ViewsOverride {
  tta?: TtaView[];
  tta_first?: TtaView[];
}

/** The scripts' `--tta` and `--tta-first` options (parseArgs), and the override they give. */
export const viewOptions = {
  tta: { type: 'string' },
  'tta-first': { type: 'string' },
} as const;
export function viewsOverride(values: { tta?: string; 'tta-first'?: string }): ViewsOverride {
  const list = (v?: string) => (v ? (v.split(',').map((x) => x.trim()) as TtaView[]) : undefined);
  return { tta: list(values.tta), tta_first: list(values['tta-first']) };
}

export function shippedBruiseEntry() {
  const shipped = readManifest(MODELS_DIR).models.find((m) => m.task === 'bruise-segmentation');
  if (!shipped) throw new Error('no bruise-segmentation model in models/manifest.json: run npm run train:bruise first');
  return shipped;
}

/** The loader and a dispose() that removes its temporary manifest. */
export function modelFileLoader(file: string, id: string, threads = 2, views: ViewsOverride = {}) {
  const shipped = { ...shippedBruiseEntry() };
  if (views.tta) shipped.tta = views.tta;
  if (views.tta_first) shipped.tta_first = views.tta_first;
  const dir = mkdtempSync(join(tmpdir(), `mango-${id}-`));
  const path = resolve(file);
  const entry = { ...shipped, id: `${shipped.id}-${id}`, file: path, sha256: sha256File(path) };
  writeFileSync(join(dir, 'manifest.json'), JSON.stringify({ models: [entry] }));
  return { loader: createModelLoader(dir, { threads }), dispose: () => rmSync(dir, { recursive: true, force: true }) };
}
