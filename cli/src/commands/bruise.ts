import { mkdir, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import type { Command } from 'commander';
import { exportFileName, finishResult, planRun, toWireNames } from '@mango/core';
import { registry } from '@mango/plugins';
import { decodeImage, thumbnailDataUrl } from '@mango/core/node';
import {
  RESULTS_SCHEMA,
  THUMBNAIL_MAX_SIDE,
  makeProvenance,
  provenanceSidecarName,
  type Provenance,
  type ResultsFile,
} from '@mango/core/results';
import type { JobResult } from '@mango/runner';
import { BRUISE_FILE_SUFFIXES, BruiseOptions } from '@mango/plugin-bruise';
import type { CocoPhoto } from '@mango/plugin-bruise/coco';
import { requireInputs, INPUTS_HELP, type InputFile } from '../inputs.ts';
import { addMaxMegapixels, maxPixelsOf } from '../limits.ts';
import { VERSION } from '../version.ts';
import { addGradeOptions, readGradeFlags, reportLot, type GradeFlags } from '../grades.ts';
import { failuresByPath, runBatch, summarise } from '../batch.ts';
import { addSchemaOptions, readSchemaOptions, type FlagHelp } from '../schemaOptions.ts';
import { parseOrExit, printable, UsageError } from '../util.ts';
import { bruiseOnServer, serverApiKey } from '../server-job.ts';
import { addMetaOptions, loadMeta, type MetaFlags } from '../meta.ts';
import { bruiseFiguresOf, fruitTableCsv, imageTableCsv, type ImageRow } from '@mango/plugin-bruise/tables';
import { type BruiseFigures } from '@mango/plugin-bruise/results';

/** Per input path: the photo's and its overlay's thumbnails (data URLs, long side <= 256). */
type Thumbnails = Map<string, { photo: string | null; overlay: string | null }>;

/** `--out results.json`: the results file a stored run's export?format=json shares. */
function resultsFile(
  provenance: Provenance,
  done: { file: InputFile; sha256: string; result: JobResult }[],
  thumbnails: Thumbnails,
): ResultsFile {
  return {
    schema: RESULTS_SCHEMA,
    provenance,
    photos: done.flatMap(({ file, sha256, result }) => {
      if (!result.ok) return [];
      const figures = result.result as unknown as BruiseFigures;
      const thumbs = thumbnails.get(file.path);
      return [
        {
          filename: file.relative,
          sha256,
          width: figures.width,
          height: figures.height,
          result: figures,
          overlay_thumbnail: thumbs?.overlay ?? null,
          photo_thumbnail: thumbs?.photo ?? null,
          ...(figures.meta ? { meta: figures.meta } : {}),
        },
      ];
    }),
  };
}

/** Writes a table and its provenance sidecar (`<file>.provenance.json`). */
async function writeWithProvenance(path: string, text: string, provenance: Provenance) {
  await writeFile(path, text);
  await writeFile(provenanceSidecarName(path), JSON.stringify(provenance, null, 2) + '\n');
}

interface BruiseFlags extends MetaFlags, GradeFlags {
  out?: string;
  fruits?: string;
  overlays?: string;
  masks?: string;
  method?: string;
  pxPerCm?: string;
  referenceMm?: string;
  colourCard?: string;
  cardKind?: string;
  strictQuality?: boolean;
  exportCoco?: string;
  requireScale?: boolean;
  concurrency?: number;
  maxMegapixels?: string;
  server?: string;
  apiKey?: string;
}

/** The CLI's wording of the BruiseOptions it offers as flags (names, kinds and defaults come from the schema). */
export const BRUISE_FLAG_HELP: Record<string, FlagHelp> = {
  method: { value: 'method', description: 'auto | classical | model' },
  pxPerCm: { description: 'pixels per centimetre: also report areas in cm²' },
  referenceMm: {
    value: 'mm',
    description: 'diameter of a round reference object (coin, sticker) in the photos: the scale comes from it',
  },
  requireScale: {
    description:
      'a photo without a scale (its reference object not found) is an error (a failed row) instead of a row without cm²',
  },
  colourCard: {
    value: 'auto|off',
    description:
      'auto: correct each photo to a ColorChecker found in it (and take the scale from it when no other is given); off: never',
  },
  cardKind: { value: 'classic|passport', description: 'the ColorChecker in the photos (its size sets the scale)' },
  strictQuality: {
    description:
      'refuse photos that fail a photo-quality check (blur, exposure, cut by the edge, fruit too small, JPEG compression, colour cast): listed as failed; without it they are scored and flagged (column quality)',
  },
};

/** Each photo's warnings (a reference object not found, ...) on stderr, one line each. */
function printWarnings(items: readonly BruiseFigures[]) {
  for (const item of items)
    for (const w of item.warnings ?? []) console.error(`warning: ${printable(item.filename)}: ${printable(w)}`);
}

export function bruiseCommand(program: Command) {
  const cmd = program
    .command('bruise')
    .description('bruise-to-fruit ratio of every photo: CSV or JSON, overlays and masks')
    .argument('<inputs...>', INPUTS_HELP)
    .option(
      '--out <file>',
      'results.csv (one row per photo, failed ones with their error) or results.json (the results file: figures, 256 px overlays, provenance); default: the CSV on stdout when at least one photo was scored',
    )
    .option('--fruits <file>', 'also write the per-fruit table (one row per fruit) as CSV')
    .option('--overlays <dir>', 'write each overlay (fruit outline, bruises tinted) as <name>.overlay.jpg')
    .option('--masks <dir>', 'write <name>.fruit.png and <name>.bruise.png (8-bit, 0 or 255, input size)');
  addSchemaOptions(cmd, BruiseOptions, {
    only: ['method', 'pxPerCm', 'referenceMm', 'requireScale', 'colourCard', 'cardKind', 'strictQuality'],
    help: BRUISE_FLAG_HELP,
  });
  addGradeOptions(cmd, '--fruits');
  addMetaOptions(cmd);
  cmd
    .option(
      '--export-coco <file>',
      'write the predicted fruit and bruise regions as a COCO file (RLE masks, categories fruit and bruise) to correct in CVAT or Label Studio',
    )
    .option('--concurrency <n>', 'worker threads (default: one per core)', Number);
  addMaxMegapixels(cmd)
    .option('--server <url>', 'score on a Mango server as one batch job, with its progress (default: here)')
    .option('--api-key <key>', 'the API key for --server (default: MANGO_API_KEY)')
    .action(async (inputs: string[], o: BruiseFlags) => {
      const options = parseOrExit(BruiseOptions, readSchemaOptions(BruiseOptions, o), { options: true });
      // The options the plugin runs with (and provenance records): method, the scale and strict quality when given.
      const pluginOptions = {
        method: options.method,
        ...(options.pxPerCm ? { pxPerCm: options.pxPerCm } : {}),
        ...(options.referenceMm ? { referenceMm: options.referenceMm } : {}),
        ...(options.requireScale ? { requireScale: true } : {}),
        ...(options.colourCard !== 'auto' ? { colourCard: options.colourCard } : {}),
        ...(options.cardKind !== 'classic' ? { cardKind: options.cardKind } : {}),
        ...(options.strictQuality ? { strictQuality: true } : {}),
      };
      const maxPixels = maxPixelsOf(o);
      // Grades: the rules and the weights are checked before any photo is read (usage errors, exit 2).
      const graded = readGradeFlags(o, options);
      const rules = graded?.rules;
      const weights = graded?.weights;
      // --meta / --meta-csv: read and checked before any photo is (usage errors, exit 2).
      const meta = loadMeta(o, ['bruise']);
      // The pipeline and the grading, built as the server builds them (core/src/runs.ts planRun).
      const plan = planRun(registry, 'bruise', { ...pluginOptions, ...(rules ? { grades: rules } : {}) });
      const files = await requireInputs(inputs);
      if (o.server) {
        process.exitCode = await bruiseViaServer(files, pluginOptions, o, meta !== undefined);
        return;
      }
      const json = Boolean(o.out?.toLowerCase().endsWith('.json'));
      const digests = new Map<string, string>();
      const thumbnails: Thumbnails = new Map();
      const coco = new Map<string, CocoPhoto>();
      // The COCO writer: loaded only for --export-coco (start-up).
      const cocoLib = o.exportCoco ? await import('@mango/plugin-bruise/coco') : undefined;
      const startedAt = new Date().toISOString();
      const outcome = await runBatch(
        files,
        (f) => ({
          path: f.path,
          name: f.relative,
          steps: plan.steps,
          // The plugin's extra images these flags write (none: it renders no overlay).
          // results.json holds a small copy of each overlay.
          images: [
            ...(o.overlays || json ? ['overlay'] : []),
            ...(o.masks || o.exportCoco ? ['fruit-mask', 'bruise-mask'] : []),
          ],
          // and a small copy of the photo, made by the worker from its own decode
          ...(json ? { thumbnail: THUMBNAIL_MAX_SIDE } : {}),
        }),
        {
          concurrency: o.concurrency,
          maxPixels,
          onResult: async (f, r) => {
            // Provenance: the sha256 of every input, as the worker hashed the bytes it read. A file the
            // worker could not read has none (reading it again here would fail a second time).
            if (r.sha256) digests.set(f.path, r.sha256);
            if (!r.ok) return;
            // results.json: small copies of the photo and its overlay, made as each photo is done.
            if (json) {
              const overlay = r.images.overlay;
              thumbnails.set(f.path, {
                // made by the worker from its decode (null only when it could not be made there)
                photo: r.thumbnail ?? null,
                overlay: overlay ? await thumbnailDataUrl(overlay.bytes, THUMBNAIL_MAX_SIDE) : null,
              });
            }
            const write = async (dir: string, suffix: string, bytes: Uint8Array) => {
              const target = join(dir, exportFileName(f.stem, suffix));
              await mkdir(dirname(target), { recursive: true });
              await writeFile(target, bytes);
            };
            const { overlay, 'fruit-mask': fruit, 'bruise-mask': bruise } = r.images;
            if (o.overlays && overlay) {
              const suffix = BRUISE_FILE_SUFFIXES.overlay;
              await write(
                o.overlays,
                overlay.mime === 'image/png' ? suffix.replace(/jpg$/, 'png') : suffix,
                overlay.bytes,
              );
            }
            if (o.masks && fruit && bruise) {
              await write(o.masks, BRUISE_FILE_SUFFIXES.fruitMask, fruit.bytes);
              await write(o.masks, BRUISE_FILE_SUFFIXES.bruiseMask, bruise.bytes);
            }
            // COCO: each photo's regions as RLE now (the full-size masks are not kept).
            if (cocoLib && fruit && bruise) {
              coco.set(f.path, await cocoLib.cocoPhotoOfMaskImages(f.relative, fruit.bytes, bruise.bytes, decodeImage));
            }
          },
        },
      );
      for (const r of outcome.results) {
        // every photo's metadata (a warning for one that gets none), then its result's
        const photoMeta = meta?.of(r.file.relative);
        if (!r.result.ok) continue;
        r.result.result = finishResult(plan, r.result.result, { weights });
        if (photoMeta) r.result.result = { ...r.result.result, meta: photoMeta };
      }
      const done = outcome.results.map(({ file, result }) => ({ file, result, sha256: digests.get(file.path) ?? '' }));
      const items = done.flatMap(({ result }) => (result.ok ? [result.result as unknown as BruiseFigures] : []));
      // The per-photo table: every photo, a failed one as a row with its error (as a stored run's).
      const reasons = failuresByPath(outcome);
      const rows: ImageRow[] = done.map(({ file, result }) =>
        result.ok
          ? (result.result as unknown as BruiseFigures)
          : { filename: file.relative, error: reasons.get(file.path) ?? result.error.message },
      );
      printWarnings(items);
      const provenance = makeProvenance(
        {
          app_version: VERSION,
          source: 'cli',
          run_id: null,
          operation: 'bruise',
          method: options.method,
          options: { ...pluginOptions, ...(rules ? { grades: rules.id } : {}) },
          created_at: startedAt,
          inputs: done.map(({ file, sha256, result }) => ({
            filename: file.relative,
            sha256,
            ...(result.ok ? {} : { error: reasons.get(file.path) ?? result.error.message }),
          })),
          ...(meta ? { meta: meta.provenance } : {}),
        },
        items[0],
      );
      if (o.fruits) await writeWithProvenance(o.fruits, fruitTableCsv(items), provenance);
      if (o.exportCoco) {
        const photos = outcome.results.flatMap(({ file }) => coco.get(file.path) ?? []);
        const info = { description: 'Mango Bruise Tracker predictions', version: VERSION, date_created: startedAt };
        await writeFile(o.exportCoco, JSON.stringify(cocoLib!.cocoFile(photos, info)) + '\n');
      }
      // stdout gets the table only when a photo was scored: a failed run prints nothing that looks like a result.
      if (!o.out) {
        if (items.length) process.stdout.write(imageTableCsv(rows));
      } else if (json)
        await writeFile(o.out, JSON.stringify(resultsFile(provenance, done, thumbnails), null, 2) + '\n');
      else await writeWithProvenance(o.out, imageTableCsv(rows), provenance);
      if (rules) await reportLot(items, rules, o, Boolean(o.out));
      process.exitCode = summarise(outcome, `bruise${o.out ? ` results written to ${o.out}` : ''}`);
    });
}

/** --server: the photos are scored by the server's batch job; the same outputs are written from its run. */
async function bruiseViaServer(
  files: InputFile[],
  options: Record<string, unknown>,
  o: BruiseFlags,
  withMeta: boolean,
): Promise<number> {
  const apiKey = serverApiKey(o.apiKey);
  if (o.overlays || o.masks || o.exportCoco || o.grades || o.lot) {
    throw new UsageError('--overlays, --masks, --export-coco, --grades and --lot work with a local run only');
  }
  // The jobs API's spelling of the options: their wire names (px_per_cm).
  const jobOptions = toWireNames(options);
  // The metadata (checked here already) are read by the server again from the same pattern and CSV.
  const metaFields = withMeta ? { pattern: o.meta, csvPath: o.metaCsv } : undefined;
  const { file, failed, runId } = await bruiseOnServer(files, {
    server: o.server!,
    apiKey,
    options: jobOptions,
    meta: metaFields,
  });
  const items = bruiseFiguresOf(file);
  const rows: ImageRow[] = [...items, ...failed.map((f) => ({ filename: f.filename, error: f.error }))];
  printWarnings(items);
  if (o.fruits) await writeWithProvenance(o.fruits, fruitTableCsv(items), file.provenance);
  if (!o.out) {
    if (items.length) process.stdout.write(imageTableCsv(rows));
  } else if (o.out.toLowerCase().endsWith('.json')) await writeFile(o.out, JSON.stringify(file, null, 2) + '\n');
  else await writeWithProvenance(o.out, imageTableCsv(rows), file.provenance);
  for (const f of failed) console.error(`failed: ${printable(f.filename)}: ${printable(f.error)}`);
  console.error(`${items.length} photo(s) scored on the server (run ${runId})${o.out ? `, written to ${o.out}` : ''}`);
  return failed.length ? 1 : 0;
}

export function evalCommand(program: Command) {
  const evalCmd = program.command('eval').description('measure accuracy against ground truth');
  const evalBruise = evalCmd
    .command('bruise')
    .description('fruit and bruise IoU, bruise % error, Lin concordance; ROC AUC on labels; defect boxes found')
    .option('--images <dir>', 'images with pixel truth')
    .option(
      '--truth <path>',
      'pixel truth: a folder with fruit_masks/ and bruise_masks/ (<stem>.png), a COCO file (polygons, RLE), a CVAT "Segmentation mask 1.1" folder or a Label Studio JSON export (recognised from the content)',
    )
    .option('--labels <csv>', 'labels.csv (filename,class,lesioned), images in images/ beside it')
    .option('--boxes <csv>', 'boxes.csv (filename,class,x,y,w,h), images in images/ beside it');
  addSchemaOptions(evalBruise, BruiseOptions, { only: ['method', 'referenceMm'], help: BRUISE_FLAG_HELP });
  evalBruise
    .option('--truth-fruit', 'use the truth fruit masks (measures bruise detection alone)')
    .option(
      '--run <id>',
      "a stored run on --server: its model's figures against its corrections (the mask editor's, or imported)",
    )
    .option('--server <url>', 'the Mango server of --run')
    .option('--api-key <key>', 'the API key for --server (default: MANGO_API_KEY)')
    .option('--out <file>', 'write the full evaluation as JSON')
    .action(
      async (o: {
        images?: string;
        truth?: string;
        labels?: string;
        boxes?: string;
        method?: string;
        referenceMm?: string;
        truthFruit?: boolean;
        run?: string;
        server?: string;
        apiKey?: string;
        out?: string;
      }) => {
        if (o.run !== undefined || o.server !== undefined) {
          if (!o.run || !o.server) throw new UsageError('--run ID and --server URL go together');
          const apiKey = serverApiKey(o.apiKey);
          const { evaluateRunOnServer } = await import('../server-eval.ts');
          const { formatBruiseEvaluation } = await import('@mango/plugin-bruise/eval');
          const r = await evaluateRunOnServer({ server: o.server, apiKey, runId: o.run });
          console.log(`run ${o.run}: the model's figures against ${r.corrected} corrected of ${r.photos} photo(s)`);
          console.log(formatBruiseEvaluation(r.evaluation));
          if (o.out) await writeFile(o.out, JSON.stringify(r.evaluation, null, 2) + '\n');
          return;
        }
        // A reference object in the photos is left out of the fruit, as in mango bruise --reference-mm.
        const { method, referenceMm } = parseOrExit(
          BruiseOptions.pick({ method: true, referenceMm: true }),
          readSchemaOptions(BruiseOptions.pick({ method: true, referenceMm: true }), o),
          { options: true },
        );
        const onImage = process.stderr.isTTY
          ? (done: number, total: number, name: string) =>
              process.stderr.write(`\r${done}/${total} ${printable(name)}`.padEnd(60))
          : undefined;
        // The installed models (onnxruntime-node loads only when a model runs).
        const models = method === 'classical' ? undefined : (await import('@mango/models')).createModelLoader();
        // The evaluation loads only for this command.
        const { evaluateBruise, formatBruiseEvaluation } = await import('@mango/plugin-bruise/eval');
        const ev = await evaluateBruise({ ...o, method, options: referenceMm ? { referenceMm } : {}, models, onImage });
        if (onImage) process.stderr.write('\n');
        console.log(formatBruiseEvaluation(ev));
        if (o.out) await writeFile(o.out, JSON.stringify(ev, null, 2) + '\n');
      },
    );
}
