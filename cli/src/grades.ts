/** `--grades codex-mango|percent|FILE` and `--weights FILE` of `mango bruise`: usage errors exit 2. */
import { existsSync, readFileSync } from 'node:fs';
import {
  GRADE_PRESETS,
  needsScale,
  parseGradeRules,
  weightKey,
  type FruitWeights,
  type GradeRules,
} from '@mango/core/grades';
import { MangoError } from '@mango/core';
import { readCsv } from '@mango/core/node';
import { UsageError } from './util.ts';

/** A preset id or a rules file (JSON). */
export function loadGradeRules(nameOrFile: string): GradeRules {
  if (GRADE_PRESETS[nameOrFile]) return GRADE_PRESETS[nameOrFile];
  if (!existsSync(nameOrFile)) {
    throw new UsageError(
      `--grades ${nameOrFile}: neither a preset (${Object.keys(GRADE_PRESETS).join(', ')}) nor a file`,
    );
  }
  let value: unknown;
  try {
    value = JSON.parse(readFileSync(nameOrFile, 'utf8'));
  } catch (e) {
    throw new UsageError(`--grades ${nameOrFile}: not valid JSON (${(e as Error).message})`);
  }
  try {
    return parseGradeRules(value, `grade rules in ${nameOrFile}`);
  } catch (e) {
    throw new UsageError((e as MangoError).message);
  }
}

/** Rules in cm² need a scale: --px-per-cm or --reference-mm. */
export function checkScaleFor(rules: GradeRules, scale: { pxPerCm?: number; referenceMm?: number }) {
  if (needsScale(rules) && !scale.pxPerCm && !scale.referenceMm) {
    throw new UsageError(
      `--grades ${rules.id} grades on bruise area in cm² and needs a scale: give --reference-mm (a round object in the photos) or --px-per-cm`,
    );
  }
}

/** `--weights FILE`: CSV with columns image,fruit,weight_g (fruit numbered from 1 as in --fruits). */
export function loadWeights(path: string): FruitWeights {
  if (!existsSync(path)) throw new UsageError(`--weights ${path}: file not found`);
  const rows = readCsv(path);
  const weights: FruitWeights = new Map();
  for (const [i, r] of rows.entries()) {
    const fruit = Number(r.fruit);
    const weight = Number(r.weight_g);
    if (!r.image || !Number.isInteger(fruit) || fruit < 1 || !(weight > 0)) {
      throw new UsageError(
        `--weights ${path}: line ${i + 2} needs image, fruit (1, 2, ...) and weight_g (grams > 0); columns: image,fruit,weight_g`,
      );
    }
    weights.set(weightKey(r.image, fruit), weight);
  }
  return weights;
}
