import { writeFile } from 'node:fs/promises';
import type { Command } from 'commander';
import { planRun } from '@mango/core';
import { registry } from '@mango/plugins';
import { FEATURE_VALUE_NAMES, FeaturesOptions } from '@mango/plugin-features';
import { INPUTS_HELP, requireInputs } from '../inputs.ts';
import { addMaxMegapixels, maxPixelsOf } from '../limits.ts';
import { failuresByPath, runBatch, summarise } from '../batch.ts';
import { addSchemaOptions, readSchemaOptions } from '../schemaOptions.ts';
import { parseOrExit, UsageError } from '../util.ts';
import { addMetaOptions, loadMeta, type MetaFlags } from '../meta.ts';
import { featureColumns, featureTableCsv } from '@mango/plugin-features/tables';
import { type FeatureResultItem } from '@mango/plugin-features/results';
import { FEATURE_IDS, type FeatureId } from '@mango/plugin-features/names';

/** feature_analysis_results.csv layout: Image, then each selected feature's value names, full precision. */
/** The CSV of `--out x.csv`: the feature table every front end writes (core/src/results.ts). */
export const featuresCsv = (items: FeatureResultItem[], ids: FeatureId[]): string =>
  featureTableCsv(items, { columns: featureColumns(items, ids, FEATURE_VALUE_NAMES) });

const FeatureList = FeaturesOptions.pick({ features: true });

/**
 * The feature ids of `--features` (each checked against the schema's ids as it is parsed) or all of
 * them with `--all`, in canonical order, duplicates removed.
 */
export function parseFeatureList(o: { features?: string[]; all?: boolean }): FeatureId[] {
  if (o.all) return [...FEATURE_IDS];
  if (!o.features) throw new UsageError('give --features rgb,glcm,... or --all');
  const { features: ids } = parseOrExit(FeatureList, readSchemaOptions(FeatureList, o), { options: true });
  return FEATURE_IDS.filter((id) => ids.includes(id));
}

export function featuresCommand(program: Command) {
  const cmd = program
    .command('features')
    .description('compute feature values (features.md) for images; JSON like the API, or CSV')
    .argument('<inputs...>', INPUTS_HELP);
  addMaxMegapixels(cmd);
  // --features <ids>: the schema's list of feature ids (an unknown id is refused with the valid ones).
  addSchemaOptions(cmd, FeatureList, {
    help: { features: { value: 'ids', description: `comma-separated feature ids: ${FEATURE_IDS.join(',')}` } },
  });
  addMetaOptions(cmd);
  cmd
    .option('--all', `all ${FEATURE_IDS.length} features`)
    .option('--isolate', 'remove the background first (fruit-only features on opaque photos)')
    .option(
      '--out <file>',
      'results.csv or results.json (default: JSON on stdout, written only when at least one image was analysed)',
    )
    .option('--concurrency <n>', 'worker threads (default: one per core)', Number)
    .action(
      async (
        inputs: string[],
        o: {
          features?: string[];
          all?: boolean;
          isolate?: boolean;
          out?: string;
          concurrency?: number;
          maxMegapixels?: string;
        } & MetaFlags,
      ) => {
        const ids = parseFeatureList(o);
        // --meta / --meta-csv: checked before any photo is read (usage errors, exit 2)
        const meta = loadMeta(o, ['features']);
        if (o.isolate && !registry.has('remove-background')) {
          throw new UsageError('--isolate needs the remove-background plugin, which is not available in this build');
        }
        const maxPixels = maxPixelsOf(o);
        const files = await requireInputs(inputs);
        // The pipeline the server builds for the same options (/api-py/python/analyze, jobs).
        const { steps } = planRun(registry, 'features', { features: ids, ...(o.isolate ? { isolate: true } : {}) });
        const outcome = await runBatch(files, (f) => ({ path: f.path, name: f.relative, steps }), {
          concurrency: o.concurrency,
          maxPixels,
        });
        const reasons = failuresByPath(outcome);
        const items: FeatureResultItem[] = outcome.results.map(({ file, result }) => {
          const photoMeta = meta ? { meta: meta.of(file.relative) } : {};
          return result.ok
            ? { image_name: file.relative, ...(result.result as object), ...photoMeta }
            : { image_name: file.relative, error: reasons.get(file.path) ?? result.error.message, ...photoMeta };
        });
        const text = o.out?.toLowerCase().endsWith('.csv')
          ? featuresCsv(items, ids)
          : JSON.stringify(items, null, 2) + '\n';
        // A file keeps every photo, failed ones with their error; stdout gets a result only when there is one.
        if (o.out) await writeFile(o.out, text);
        else if (items.some((i) => !i.error)) process.stdout.write(text);
        process.exitCode = summarise(outcome, `features${o.out ? ` written to ${o.out}` : ''}`);
      },
    );
}
