/**
 * `mango series day0.json day3.json ... [--out series.csv] [--svg series.svg]`: results files of
 * several runs (`mango bruise --out results.json`, or a stored run's export?format=json) as one
 * series (issue 27 item 1: a fruit_id followed over runs): their photos stacked with a `run` column
 * (the stored run's id, else the file's name) and the figure their plugin plots over the `day` column,
 * one line per fruit_id (core/src/plots.ts `stackRuns`, `seriesCsv`, `timeChart`, as the web's compare
 * page draws it). `--report series.html` writes the series report (core/src/series-report.ts: the charts,
 * a table per run and per point, every row), the one the compare page's series view downloads; `--lang th`
 * writes it in Thai.
 */
import { writeFile } from 'node:fs/promises';
import { basename } from 'node:path';
import type { Command } from 'commander';
import { runKindOf } from '@mango/core';
import { seriesCsv, stackRuns, timeChart, type PlotFields } from '@mango/core/plots';
import { registry } from '@mango/plugins';
import { readResultsFile, UsageError } from '../util.ts';
import { langOption } from './report.ts';
import type { ReportLanguage } from '@mango/core/i18n';

export function seriesCommand(program: Command) {
  program
    .command('series')
    .description(
      'the photos of several results files (runs: day 0, day 3, ...) as one table with a `run` column, ' +
        'and the plotted figure over the day column, one line per fruit_id (the run date where a photo has no day)',
    )
    .argument('<results...>', 'results.json files of `mango bruise --out` or of stored runs (export?format=json)')
    .option('--out <file>', 'the stacked rows as CSV (default: stdout)')
    .option('--svg <file>', 'the line chart per fruit_id as SVG')
    .option('--report <file>', 'the series report as one self-contained HTML file (charts, a table per run, every row)')
    .addOption(langOption())
    .action(async (inputs: string[], o: { out?: string; svg?: string; report?: string; lang: ReportLanguage }) => {
      let fields: PlotFields | undefined;
      const runs = [];
      for (const input of inputs) {
        const file = await readResultsFile(input);
        const operation = file.provenance.operation;
        const plots = runKindOf(registry, operation)?.runs.plots;
        if (!plots) throw new UsageError(`${input}: results of the kind ${operation} have no plotted figure`);
        if (fields && plots !== fields) {
          throw new UsageError(`${input}: results of the kind ${operation} plot another figure than the first file's`);
        }
        fields = plots;
        const id = file.provenance.run_id ?? basename(input).replace(/\.json$/i, '');
        runs.push({ id, created_at: file.provenance.created_at, items: file.photos });
      }
      const data = stackRuns(runs, fields!);
      if (data.photos.length === 0) throw new UsageError('the results files have no scored photo');
      const csv = seriesCsv(data);
      if (o.svg) {
        const chart = timeChart(data, null);
        if (!chart) throw new UsageError('the photos have no day, date or run date to plot over');
        const { chartSvg } = await import('@mango/core/plots-render');
        await writeFile(o.svg, await chartSvg(chart));
      }
      if (o.report) {
        const { seriesReportHtml } = await import('@mango/core/series-report');
        await writeFile(o.report, await seriesReportHtml(runs, fields!, { lang: o.lang }));
      }
      if (o.out) await writeFile(o.out, csv);
      else process.stdout.write(csv);
      console.error(
        `${data.photos.length} photo(s) of ${runs.length} run(s) over ${data.time}` +
          (o.out ? `: ${o.out}` : '') +
          (o.svg ? `, chart: ${o.svg}` : '') +
          (o.report ? `, report: ${o.report}` : ''),
      );
    });
}
