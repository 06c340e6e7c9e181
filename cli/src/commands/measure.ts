/**
 * `mango measure DIR --out table.csv`: one joined per-fruit table of bruise figures and features
 * (issue 27 item 3). Each photo is one feature analysis per fruit (the features plugin's
 * `perFruit`): the bruise plugin finds the fruit once, and every fruit is measured on its own at
 * full resolution. The table is core's measurement table (`measureTableCsv`), with its provenance
 * sidecar. `--meta` / `--meta-csv` and `--grades` / `--weights` / `--lot` are `mango bruise`'s own
 * (the same builders): the photos' metadata become columns of every fruit row and of the provenance,
 * and each fruit is graded by its bruise figures as `mango bruise` grades it (columns `grade`, ...).
 */
import { writeFile } from 'node:fs/promises';
import type { Command } from 'commander';
import { planRun } from '@mango/core';
import { gradeResult } from '@mango/plugin-bruise/grades';
import { makeProvenance, provenanceSidecarName } from '@mango/core/results';
import { registry } from '@mango/plugins';
import { BruiseOptions } from '@mango/plugin-bruise';
import { FEATURE_VALUE_NAMES, FeaturesOptions, scaledNames } from '@mango/plugin-features';
import { INPUTS_HELP, requireInputs } from '../inputs.ts';
import { addMaxMegapixels, maxPixelsOf } from '../limits.ts';
import { runBatch, summarise } from '../batch.ts';
import { addSchemaOptions, readSchemaOptions } from '../schemaOptions.ts';
import { parseOrExit, UsageError } from '../util.ts';
import { VERSION } from '../version.ts';
import { addGradeOptions, readGradeFlags, reportLot, type GradeFlags } from '../grades.ts';
import { addMetaOptions, loadMeta, type MetaFlags } from '../meta.ts';
import { parseFeatureList } from './features.ts';
import { BRUISE_FLAG_HELP } from './bruise.ts';
import { measureTableCsv } from '@mango/plugin-features/tables';
import { type FeatureResultItem } from '@mango/plugin-features/results';
import { FEATURE_IDS } from '@mango/plugin-features/names';

/** The bruise options measure offers, as `mango bruise` does (the features plugin's fields are the bruise schema's). */
const FRUIT_FLAGS = ['method', 'pxPerCm', 'referenceMm'] as const;
const FruitOptions = BruiseOptions.pick({ method: true, pxPerCm: true, referenceMm: true });

interface MeasureFlags extends MetaFlags, GradeFlags {
  features?: string[];
  all?: boolean;
  out?: string;
  method?: string;
  pxPerCm?: string;
  referenceMm?: string;
  concurrency?: number;
  maxMegapixels?: string;
}

export function measureCommand(program: Command) {
  const cmd = program
    .command('measure')
    .description(
      'one row per fruit: its bruise figures and its features at full resolution (cm and cm² with a scale), as CSV or JSON',
    )
    .argument('<inputs...>', INPUTS_HELP);
  addSchemaOptions(cmd, FeaturesOptions.pick({ features: true }), {
    help: { features: { value: 'ids', description: `comma-separated feature ids: ${FEATURE_IDS.join(',')}` } },
  });
  cmd.option('--all', `all ${FEATURE_IDS.length} features`);
  addSchemaOptions(cmd, BruiseOptions, { only: [...FRUIT_FLAGS], help: BRUISE_FLAG_HELP });
  cmd
    .option(
      '--out <file>',
      'table.csv (one row per fruit) or results.json (one item per photo, with its fruits); a provenance sidecar beside it',
    )
    .option('--concurrency <n>', 'worker threads (default: one per core)', Number);
  addGradeOptions(cmd, 'the table');
  addMetaOptions(cmd);
  addMaxMegapixels(cmd);
  cmd.action(async (inputs: string[], o: MeasureFlags) => {
    if (!o.out) throw new UsageError('give --out table.csv (or results.json)');
    const ids = parseFeatureList(o);
    const fruit = parseOrExit(FruitOptions, readSchemaOptions(FruitOptions, o), { options: true });
    const options = {
      features: ids,
      perFruit: true,
      method: fruit.method,
      ...(fruit.pxPerCm ? { pxPerCm: fruit.pxPerCm } : {}),
      ...(fruit.referenceMm ? { referenceMm: fruit.referenceMm } : {}),
    };
    // --grades / --weights / --lot and --meta / --meta-csv: checked before any photo is read (usage errors, exit 2).
    const graded = readGradeFlags(o, fruit);
    // the table's columns are the feature table's and the bruise per-fruit table's: no metadata name may be one
    const meta = loadMeta(o, ['features', 'bruise']);
    // The plan the server makes of the same options (an analysis per fruit: POST /api-node/jobs `features`, `per_fruit`).
    const plan = planRun(registry, 'features', options);
    const files = await requireInputs(inputs);
    const startedAt = new Date().toISOString();
    const digests = new Map<string, string>();
    const outcome = await runBatch(files, (f) => ({ path: f.path, name: f.relative, steps: plan.steps }), {
      concurrency: o.concurrency,
      maxPixels: maxPixelsOf(o),
      onResult: (f, r) => void (r.sha256 && digests.set(f.path, r.sha256)),
    });
    const items: FeatureResultItem[] = outcome.results.map(({ file, result }) => {
      // every photo's metadata (a warning for one that gets none), a failed one's too
      const photoMeta = meta ? { meta: meta.of(file.relative) } : {};
      if (!result.ok) return { image_name: file.relative, error: result.error.message, ...photoMeta };
      const item = { image_name: file.relative, ...(result.result as object), ...photoMeta } as FeatureResultItem;
      if (!graded || !item.fruits) return item;
      // each fruit graded by its bruise figures, as `mango bruise --grades` grades it
      const { fruits, grades } = gradeResult(
        { filename: item.image_name, fruits: item.fruits },
        graded.rules,
        graded.weights,
      );
      return { ...item, grades, fruits };
    });
    const first = items.find((i) => !i.error);
    const provenance = makeProvenance(
      {
        app_version: VERSION,
        source: 'cli',
        run_id: null,
        operation: plan.kind.runs.operation,
        method: fruit.method,
        options: { ...plan.options, ...(graded ? { grades: graded.rules.id } : {}) },
        created_at: startedAt,
        inputs: outcome.results.map(({ file }) => ({
          filename: file.relative,
          sha256: digests.get(file.path) ?? '',
        })),
        ...(meta ? { meta: meta.provenance } : {}),
      },
      first ? plan.kind.runs.ranWith(first) : {},
    );
    const text = o.out.toLowerCase().endsWith('.json')
      ? JSON.stringify(items, null, 2) + '\n'
      : measureTableCsv(items, { features: ids, known: FEATURE_VALUE_NAMES, scaled: scaledColumns(ids, options) });
    await writeFile(o.out, text);
    await writeFile(provenanceSidecarName(o.out), JSON.stringify(provenance, null, 2) + '\n');
    if (graded) await reportLot(items as Parameters<typeof reportLot>[0], graded.rules, o, true);
    const fruitCount = items.reduce((a, i) => a + (i.fruits?.length ?? 0), 0);
    process.exitCode = summarise(outcome, `measure: ${fruitCount} fruit written to ${o.out}`);
  });
}

/** The cm / cm² columns: every photo has them when a scale is given or asked for from a reference. */
const scaledColumns = (ids: readonly string[], options: { pxPerCm?: number; referenceMm?: number }) =>
  options.pxPerCm || options.referenceMm ? scaledNames(ids) : [];
