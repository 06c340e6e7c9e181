/** `mango report results.json --out report.html`: the self-contained HTML report of a results file. */
import { writeFile } from 'node:fs/promises';
import { Option, type Command } from 'commander';
import { runKindOf, runOperations } from '@mango/core';
import { REPORT_LANGUAGES, type ReportLanguage } from '@mango/core/i18n';
import { registry } from '@mango/plugins';
import { readResultsFile, UsageError } from '../util.ts';
import { DEFAULT_REPORT_THRESHOLD } from '@mango/plugin-bruise/report';

/** `--lang en|th`: the language of a report (its figures the same in both); English by default. */
export const langOption = () =>
  new Option('--lang <language>', 'the report’s language').choices(REPORT_LANGUAGES).default('en');

export function reportCommand(program: Command) {
  program
    .command('report')
    .description(
      'one self-contained HTML report (summary, histogram, per-photo table, overlays, provenance) from ' +
        'a results.json of `mango bruise --out` or of a stored run (export?format=json)',
    )
    .argument('<results>', 'results.json')
    .requiredOption('--out <file>', 'report.html')
    .option(
      '--threshold <percent>',
      `bruise % the share of photos over is counted for`,
      String(DEFAULT_REPORT_THRESHOLD),
    )
    .addOption(langOption())
    .action(async (input: string, o: { out: string; threshold: string; lang: ReportLanguage }) => {
      const file = await readResultsFile(input);
      const threshold = Number(o.threshold);
      if (!Number.isFinite(threshold) || threshold < 0 || threshold > 100) {
        throw new UsageError(`--threshold must be a percentage from 0 to 100 (got ${o.threshold})`);
      }
      // The report the results' kind of run declares (its plugin's runs.report), as a stored run's export.
      const operation = file.provenance.operation;
      const report = runKindOf(registry, operation)?.runs.report;
      if (!report) {
        const known = runOperations(registry).filter((op) => runKindOf(registry, op)?.runs.report);
        throw new UsageError(
          `${input}: results of the kind ${operation} have no report (reports exist for: ${known.join(', ')})`,
        );
      }
      await writeFile(o.out, await report(file, { threshold, lang: o.lang }));
      console.error(`report of ${file.photos.length} photo(s) written to ${o.out}`);
    });
}
