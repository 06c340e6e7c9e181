import { mkdir, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import type { Command } from 'commander';
import type { BruiseResultItem } from '@mango/core';
import { csvTable, type CsvColumn } from '@mango/core/csv';
import { BruiseOptions } from '@mango/plugin-bruise';
import { collectInputs, INPUTS_HELP } from '../inputs.ts';
import { runBatch, summarise } from '../batch.ts';
import { addSchemaOptions, readSchemaOptions, type FlagHelp } from '../schemaOptions.ts';
import { parseOrExit } from '../util.ts';

/** A bruise item's figures: the HTTP item without its overlay (written to --overlays instead). */
export type BruiseFigures = Omit<BruiseResultItem, 'overlay_img'>;

/** data.csv's columns (the web export), then the added scalar fields. */
export const BRUISE_CSV_COLUMNS: CsvColumn<BruiseFigures>[] = [
  ['Filename', (r) => r.filename],
  ['Total Mango Pixels', (r) => r.total_mango_pixels],
  ['Bruise Percentage', (r) => r.bruise_percent],
  ['Non-Bruise Percentage', (r) => r.non_bruise_percent],
  ['bruise_pixels', (r) => r.bruise_pixels],
  ['fruit_count', (r) => r.fruits.length],
  ['lesion_count', (r) => r.fruits.reduce((a, f) => a + f.lesion_count, 0)],
  ['severity', (r) => r.severity ?? ''],
  ['method', (r) => r.method],
  ['version', (r) => r.version],
  ['width', (r) => r.width],
  ['height', (r) => r.height],
  ['elapsed_ms', (r) => r.elapsed_ms],
  ['px_per_cm', (r) => r.px_per_cm ?? ''],
  ['fruit_area_cm2', (r) => r.fruit_area_cm2 ?? ''],
  ['bruise_area_cm2', (r) => r.bruise_area_cm2 ?? ''],
];

export function bruiseCsv(items: BruiseFigures[]): string {
  return csvTable(BRUISE_CSV_COLUMNS, items);
}

interface BruiseFlags {
  out?: string;
  overlays?: string;
  masks?: string;
  method?: string;
  pxPerCm?: string;
  concurrency?: number;
}

/** The CLI's wording of the BruiseOptions it offers as flags (names, kinds and defaults come from the schema). */
const BRUISE_FLAG_HELP: Record<string, FlagHelp> = {
  method: { value: 'method', description: 'auto | classical | model' },
  pxPerCm: { description: 'pixels per centimetre: also report areas in cm²' },
};

export function bruiseCommand(program: Command) {
  const cmd = program
    .command('bruise')
    .description('bruise-to-fruit ratio of every photo: CSV or JSON, overlays and masks')
    .argument('<inputs...>', INPUTS_HELP)
    .option('--out <file>', 'results.csv or results.json (default: CSV on stdout)')
    .option('--overlays <dir>', 'write each overlay (fruit outline, bruises tinted) as <name>.overlay.jpg')
    .option('--masks <dir>', 'write <name>.fruit.png and <name>.bruise.png (8-bit, 0 or 255, input size)');
  addSchemaOptions(cmd, BruiseOptions, { only: ['method', 'pxPerCm'], help: BRUISE_FLAG_HELP });
  cmd
    .option('--concurrency <n>', 'worker threads (default: one per core)', Number)
    .action(async (inputs: string[], o: BruiseFlags) => {
      const options = parseOrExit(BruiseOptions, readSchemaOptions(BruiseOptions, o));
      const { files, missing } = await collectInputs(inputs);
      const outcome = await runBatch(
        files,
        (f) => ({
          path: f.path,
          name: f.relative,
          steps: [{ plugin: 'bruise', options: { method: options.method, pxPerCm: options.pxPerCm } }],
          // The plugin's extra images these flags write (none: it renders no overlay).
          images: [...(o.overlays ? ['overlay'] : []), ...(o.masks ? ['fruit-mask', 'bruise-mask'] : [])],
        }),
        {
          concurrency: o.concurrency,
          onResult: async (f, r) => {
            if (!r.ok) return;
            const write = async (dir: string, suffix: string, bytes: Uint8Array) => {
              const target = join(dir, `${f.stem}${suffix}`);
              await mkdir(dirname(target), { recursive: true });
              await writeFile(target, bytes);
            };
            const { overlay, 'fruit-mask': fruit, 'bruise-mask': bruise } = r.images;
            if (o.overlays && overlay) {
              await write(o.overlays, overlay.mime === 'image/png' ? '.overlay.png' : '.overlay.jpg', overlay.bytes);
            }
            if (o.masks && fruit && bruise) {
              await write(o.masks, '.fruit.png', fruit.bytes);
              await write(o.masks, '.bruise.png', bruise.bytes);
            }
          },
        },
      );
      const items = outcome.results
        .filter(({ result }) => result.ok)
        .map(({ result }) => (result.ok ? (result.result as unknown as BruiseFigures) : null)!);
      // The overlays are large: they go to --overlays, not into the JSON.
      const text = o.out?.toLowerCase().endsWith('.json') ? JSON.stringify(items, null, 2) + '\n' : bruiseCsv(items);
      if (o.out) await writeFile(o.out, text);
      else process.stdout.write(text);
      process.exitCode = summarise(outcome, `bruise${o.out ? ` results written to ${o.out}` : ''}`, missing);
    });
}

export function evalCommand(program: Command) {
  const evalCmd = program.command('eval').description('measure accuracy against ground truth');
  const evalBruise = evalCmd
    .command('bruise')
    .description('fruit and bruise IoU, bruise % error, Lin concordance; ROC AUC on labels; defect boxes found')
    .option('--images <dir>', 'images with pixel truth')
    .option('--truth <dir>', 'folder with fruit_masks/ and bruise_masks/ (<stem>.png)')
    .option('--labels <csv>', 'labels.csv (filename,class,lesioned), images in images/ beside it')
    .option('--boxes <csv>', 'boxes.csv (filename,class,x,y,w,h), images in images/ beside it');
  addSchemaOptions(evalBruise, BruiseOptions, { only: ['method'], help: BRUISE_FLAG_HELP });
  evalBruise
    .option('--truth-fruit', 'use the truth fruit masks (measures bruise detection alone)')
    .option('--out <file>', 'write the full evaluation as JSON')
    .action(
      async (o: {
        images?: string;
        truth?: string;
        labels?: string;
        boxes?: string;
        method?: string;
        truthFruit?: boolean;
        out?: string;
      }) => {
        const { method } = parseOrExit(BruiseOptions.pick({ method: true }), { method: o.method });
        const onImage = process.stderr.isTTY
          ? (done: number, total: number, name: string) => process.stderr.write(`\r${done}/${total} ${name}`.padEnd(60))
          : undefined;
        // The installed models (onnxruntime-node loads only when a model runs).
        const models = method === 'classical' ? undefined : (await import('@mango/models')).createModelLoader();
        // The evaluation (and its CSV parser) loads only for this command.
        const { evaluateBruise, formatBruiseEvaluation } = await import('@mango/plugin-bruise/eval');
        const ev = await evaluateBruise({ ...o, method, models, onImage });
        if (onImage) process.stderr.write('\n');
        console.log(formatBruiseEvaluation(ev));
        if (o.out) await writeFile(o.out, JSON.stringify(ev, null, 2) + '\n');
      },
    );
}
