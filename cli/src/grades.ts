/**
 * `--grades codex-mango|percent|FILE`, `--weights FILE` and `--lot FILE` of `mango bruise` and `mango
 * measure` (one builder, one reader): usage errors exit 2.
 */
import { existsSync, readFileSync } from 'node:fs';
import type { Command } from 'commander';
import { writeFile } from 'node:fs/promises';
import {
  formatLotSummary,
  GRADE_PRESETS,
  lotSummary,
  needsScale,
  parseGradeRules,
  weightKey,
  type FruitWeights,
  type GradeRules,
} from '@mango/plugin-bruise/grades';
import { MangoError } from '@mango/core';
import { readCsv } from '@mango/core/node';
import { UsageError } from './util.ts';

export interface GradeFlags {
  grades?: string;
  weights?: string;
  lot?: string;
}

/** Adds `--grades`, `--weights` and `--lot` to a command; `table` names the table that gets the grade columns. */
export function addGradeOptions(cmd: Command, table: string): Command {
  return cmd
    .option(
      '--grades <rules>',
      `grade each fruit: codex-mango (needs a scale), percent, or a rules file (JSON); adds grade columns to ${table}`,
    )
    .option(
      '--weights <file>',
      "CSV image,fruit,weight_g: the fruit weights the size groups come from (else estimated from each fruit's area)",
    )
    .option('--lot <file>', 'write the lot summary (fruit per grade, share accepted) as JSON');
}

/**
 * The grade rules and weights of `--grades` / `--weights` / `--lot`, checked before any photo is read:
 * rules in cm² need a scale, `--weights` and `--lot` need `--grades`. Undefined without `--grades`.
 */
export function readGradeFlags(
  o: GradeFlags,
  scale: { pxPerCm?: number; referenceMm?: number },
): { rules: GradeRules; weights?: FruitWeights } | undefined {
  const rules = o.grades ? loadGradeRules(o.grades) : undefined;
  if (rules) checkScaleFor(rules, scale);
  if (o.weights && !rules) throw new UsageError('--weights needs --grades');
  if (o.lot && !rules) throw new UsageError('--lot needs --grades');
  return rules && { rules, ...(o.weights ? { weights: loadWeights(o.weights) } : {}) };
}

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

/**
 * The lot summary of graded results: printed beside the table (to stderr when the CSV itself is on
 * stdout, `toStdout` false), and written as JSON to `--lot FILE` when given.
 */
export async function reportLot(
  items: Parameters<typeof lotSummary>[0],
  rules: GradeRules,
  o: Pick<GradeFlags, 'lot'>,
  toStdout: boolean,
): Promise<void> {
  const lot = lotSummary(items, rules);
  (toStdout ? process.stdout : process.stderr).write(formatLotSummary(lot));
  if (o.lot) await writeFile(o.lot, JSON.stringify({ rules: rules.id, name: rules.name, ...lot }, null, 2) + '\n');
}
