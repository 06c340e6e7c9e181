/** `mango report results.json --out report.html`: the self-contained HTML report of a results file. */
import { readFile, writeFile } from 'node:fs/promises';
import type { Command } from 'commander';
import { ResultsFile } from '@mango/core/results';
import { parseOrExit, UsageError } from '../util.ts';
import { DEFAULT_REPORT_THRESHOLD, reportWithPlots } from '@mango/plugin-bruise/report';

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
    .action(async (input: string, o: { out: string; threshold: string }) => {
      let raw: unknown;
      try {
        raw = JSON.parse(await readFile(input, 'utf8'));
      } catch (e) {
        throw new UsageError(`${input}: not a readable JSON file (${(e as Error).message})`);
      }
      const file = parseOrExit(ResultsFile, raw);
      const threshold = Number(o.threshold);
      if (!Number.isFinite(threshold) || threshold < 0 || threshold > 100) {
        throw new UsageError(`--threshold must be a percentage from 0 to 100 (got ${o.threshold})`);
      }
      await writeFile(o.out, await reportWithPlots(file, { threshold }));
      console.error(`report of ${file.photos.length} photo(s) written to ${o.out}`);
    });
}
