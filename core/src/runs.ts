/**
 * What a plugin declares so that front ends can store, list and export its runs without knowing
 * it (issue 24): the run's name, the options a run takes and the steps they make, what is done to
 * each result after the pipeline (grading, for instance), what a stored run keeps of each photo,
 * its summary and its tables. The server's run, job and export code and the results file read
 * these declarations only; they name no plugin.
 * Browser-safe: no Node imports.
 */
import { z } from 'zod';
import { parseWireOptions } from './options.ts';
import { MangoError } from './errors.ts';
import { metaSpec, type MetaSpec, type MetaTable } from './meta.ts';
import type { RasterImage } from './image.ts';
import type { PlotFields } from './plots.ts';
import type { ReportLanguage } from './i18n.ts';
import type { DeclaredGrading } from './grades/index.ts';

/** What ran, as a result says it (stored with a run and in its provenance). */
export interface RanWith {
  method?: string | null;
  version?: string | null;
  model_id?: string | null;
  model_sha256?: string | null;
}

/** A pipeline step (core/src/pipeline.ts's PipelineStep, restated: that file leads back to the plugin type). */
export interface RunStep {
  plugin: string;
  options?: Record<string, unknown>;
}

/** A successful photo's figures as the pipeline's last step returned them (JSON, no images). */
export type ResultFigures = Record<string, unknown>;

export interface RunDeclaration<O extends z.ZodObject = z.ZodObject> {
  /** the name runs of this kind are stored and listed under (`runs.operation`), e.g. `analyze` */
  operation: string;
  /**
   * The name people read of runs of this kind (`Bruised Area Calculation`), in English: the web app
   * shows it (its Thai is keyed by `operation` in web/src/i18n/th.ts).
   */
  title: string;
  /** the name a batch job asks for (`operation` of POST /api-node/jobs); defaults to `operation` */
  jobOperation?: string;
  /**
   * The options a run takes, as a zod object, read strictly by wire name (`px_per_cm`; the schema
   * key `pxPerCm` is an alias: core/src/options.ts): unknown keys are refused with their name. The
   * parsed object (schema keys, defaults filled in) is stored with the run and given to `steps` and `finish`.
   */
  options: O;
  /** the pipeline that scores one photo with these options */
  steps(options: z.output<O>): RunStep[];
  /**
   * Applied to each successful result after the pipeline (grading, for instance). `context` holds
   * what a front end knows beside the options (the CLI's per-fruit weights file, for instance).
   */
  finish?(result: ResultFigures, options: z.output<O>, context?: Readonly<Record<string, unknown>>): ResultFigures;
  /** the method asked for (`runs.method`), when the plugin has methods */
  method?(options: z.output<O>): string | null;
  /**
   * The schema of a successful photo's figures as a run stores them and the results file holds them
   * (`result`): the API document describes results with it. Unset: any JSON object.
   */
  result?: z.ZodType;
  /** what ran, read off a successful result */
  ranWith(result: ResultFigures): RanWith;
  /** the key of the photo's file name in a stored item (`filename` or `image_name`) */
  nameKey: 'filename' | 'image_name';
  /** a stored run keeps a small copy of each photo */
  photoThumbnail: boolean;
  /** a stored run keeps a small copy of this extra image of the plugin (`images`), or of its output image */
  overlay?: string | 'output';
  /**
   * The full-resolution files of a complete export (GET /api-node/runs/{id}/export?format=zip&resolution=full,
   * the web app's results zip), per scored photo: the extra image (`Plugin.images`) its plugin is
   * asked for, the zip folder, and the file's suffix after the photo's stem (`exportFileName`).
   * Unset: a run of this kind has no full-resolution export.
   */
  fullExport?: readonly ExportImage[];
  /**
   * The result of a photo whose masks a person corrected (the mask editor's stored truth, issue 28):
   * `result` is the model's (as stored), `masks` the corrected fruit and bruise masks (0/1) at the
   * size of `photo`, the photo as it was uploaded. The run's `finish` (grading) is applied after it.
   * The answer holds the figures in force, `corrected: true` and the model's figures beside them.
   * Unset: runs of this kind have no truth to correct.
   */
  correct?(result: ResultFigures, masks: TruthMasks, photo: RasterImage): ResultFigures;
  /**
   * The overlay of a photo's corrected masks drawn as its model overlay (`overlay`) is, with the same
   * marks (issue 28): `result` is the model's stored result, `masks` the truth at the photo's size,
   * `photo` the photo or a reduced copy of it, `options` the run's; `maxSide` the overlay's long side
   * (default: the model overlay's). A stored run shows it, and exports it, in place of the model's
   * overlay of a corrected photo. Unset: a corrected photo keeps the model's overlay.
   */
  correctedOverlay?(
    result: ResultFigures,
    masks: TruthMasks,
    photo: RasterImage,
    options: Record<string, unknown>,
    maxSide?: number,
  ): RasterImage;
  /**
   * The extra images (`Plugin.images`) the mask editor starts from: the fruit and bruise masks at the
   * photo's size, and a map of how likely each pixel is a lesion (its magic wand's ground); `overlay`,
   * the full export's overlay image, which a corrected photo's export draws from its truth
   * (`correctedOverlay`), the model's kept beside it.
   */
  truthImages?: { fruit: string; bruise: string; probability?: string; overlay?: string };
  /**
   * Truth as data (issue 28 item 2): the corrected masks of a run's photos written as an annotation
   * file (GET /api-node/runs/{id}/annotations) and read back from the files labs annotate with (POST).
   * Unset: runs of this kind have no annotation export or import.
   */
  annotations?: RunAnnotations;
  /** the run list's figures of the run's stored items (successful ones; failed ones count in `n` only) */
  summary(results: readonly ResultFigures[], failed: number): Record<string, number | null>;
  /**
   * The run's tidy tables as CSV, by name (`fruits` gives `fruits.csv`); the first is the export's
   * default. Each gets every stored result in order, failed ones with their `error`.
   */
  tables: Readonly<Record<string, (results: readonly ResultFigures[]) => string>>;
  /**
   * The column names its tables write (besides the photos' metadata): a metadata name equal to one
   * is refused (core/src/meta.ts). Columns every table may have (`image`, `error`, ...) need not be listed.
   */
  columns?: readonly string[];
  /**
   * How the run's results are graded (core/src/grades, `defineGrading`): the figures rules may
   * grade on, the rules schema and presets. Its `finish` applies the run's grades option with it.
   * Unset: runs of this kind are not graded.
   */
  grading?: DeclaredGrading;
  /**
   * What the run's plots draw (core/src/plots.ts): the result fields of the per-photo figure and of
   * each object's two areas, and the charts' words. Unset: runs of this kind have no plots.
   */
  plots?: PlotFields;
  /** the HTML report of the run's results file (core/src/results.ts ResultsFile), when there is one */
  report?(
    file: unknown,
    options: { threshold?: number; /** default: English */ lang?: ReportLanguage },
  ): string | Promise<string>;
}

/** One image file a complete export holds per photo (RunDeclaration.fullExport). */
export interface ExportImage {
  /** the plugin's extra image (`fruit-mask`) */
  image: string;
  /** the zip folder (`masks`) */
  folder: string;
  /** after the photo's stem (`.fruit.png`) */
  suffix: string;
}

/** A photo's fruit and bruise masks (1 = set), row-major, one byte a pixel: a person's truth. */
export interface TruthMasks {
  width: number;
  height: number;
  fruit: Uint8Array;
  bruise: Uint8Array;
}

/** A decoded image as an annotation reader needs it (the front end's image backend decodes). */
export type DecodeImage = (bytes: Uint8Array, name?: string) => Promise<RasterImage>;

/** The files of an uploaded folder or zip, by their path inside it (`/`-separated). */
export interface AnnotationFiles {
  names: readonly string[];
  read(name: string): Uint8Array;
}

/** An uploaded annotation file: parsed JSON, or the files of a zip. */
export type AnnotationInput =
  { kind: 'json'; name: string; data: unknown } | { kind: 'files'; name: string; files: AnnotationFiles };

/** An annotation file opened: the photos it annotates and their masks, matched by file name. */
export interface OpenedAnnotations {
  /** the format read, as the stored truth's source records it after `import:` (`coco`, `cvat`, `labelstudio`) */
  source: string;
  /** the photos the file annotates, as it names them */
  entries(): string[];
  /** the entry that holds the truth of the photo `filename`, or null */
  entryOf(filename: string): string | null;
  /** the truth of the photo `filename` (its entry's masks), or null when the file has none for it */
  masks(filename: string): Promise<TruthMasks | null>;
}

/** RunDeclaration.annotations: a run's truth written as and read from annotation files. */
export interface RunAnnotations {
  /** the media type and file suffix of the export (`application/json`, `.coco.json`) */
  exportType: { mediaType: string; suffix: string; format: string };
  /** the export of the corrected photos (their masks in force) */
  write(photos: readonly { filename: string; masks: TruthMasks }[], info: Record<string, unknown>): unknown;
  /** an uploaded file opened, its format recognised from its content; bad input throws INVALID_INPUT */
  read(input: AnnotationInput, decode: DecodeImage): OpenedAnnotations;
}

/** Declares a plugin's runs (typed by its options schema). */
export const defineRuns = <O extends z.ZodObject>(d: RunDeclaration<O>): RunDeclaration<O> => Object.freeze(d);

/** A run kind: the declaration with the id of the plugin that declares it. */
export interface RunKind {
  pluginId: string;
  runs: RunDeclaration;
}

/** The plugins a registry lists, as far as runs go (structural: this file imports no plugin type). */
type Declaring = { list(): readonly { id: string; runs?: RunDeclaration }[] };

/** Every run kind the registry's plugins declare. */
export function runKinds(registry: Declaring): RunKind[] {
  return registry
    .list()
    .filter((p) => p.runs)
    .map((p) => ({ pluginId: p.id, runs: p.runs as RunDeclaration }));
}

/** The run kind stored under `operation` (`runs.operation`), or undefined. */
export const runKindOf = (registry: Declaring, operation: string): RunKind | undefined =>
  runKinds(registry).find((k) => k.runs.operation === operation);

/** The name a batch job of these runs asks for: the declared `jobOperation`, else the run `operation`. */
export const jobOperationOf = (runs: Pick<RunDeclaration, 'operation' | 'jobOperation'>): string =>
  runs.jobOperation ?? runs.operation;

/** The run kind a job asks for by `jobOperation` (or by its run operation), or undefined. */
export const jobRunKind = (registry: Declaring, jobOperation: string): RunKind | undefined =>
  runKinds(registry).find((k) => jobOperationOf(k.runs) === jobOperation);

/** The run kind of a job operation or, failing that, of a run operation (a stored job names either). */
export const runKindFor = (registry: Declaring, name: string): RunKind | undefined =>
  jobRunKind(registry, name) ?? runKindOf(registry, name);

/** The job operations the registry's plugins declare, for messages and documents. */
export const jobOperations = (registry: Declaring): string[] => runKinds(registry).map((k) => jobOperationOf(k.runs));

/** The run operations the registry's plugins declare. */
export const runOperations = (registry: Declaring): string[] => runKinds(registry).map((k) => k.runs.operation);

/** A run's options checked by its declaration (defaults filled in); a bad one is a 400 with the reason. */
export function runOptions(kind: RunKind, options: unknown): Record<string, unknown> {
  const parsed = parseWireOptions(kind.runs.options, options ?? {});
  if (!parsed.success) {
    const name = jobOperationOf(kind.runs);
    throw new MangoError('INVALID_INPUT', `invalid options for ${name}: ${z.prettifyError(parsed.error)}`);
  }
  return parsed.data as Record<string, unknown>;
}

/** A kind of run and its options, checked: everything needed to score a photo the same way anywhere. */
export interface RunPlan {
  kind: RunKind;
  options: Record<string, unknown>;
  steps: RunStep[];
}

/**
 * The plan of a run of `operation` (a job operation or a run operation) with `options` read by
 * wire name: the one place the server (/api-py, batch jobs) and the CLI build a photo's pipeline.
 * A 400 when the operation or the options are bad.
 */
export function planRun(registry: Declaring, operation: string, options: unknown): RunPlan {
  const kind = runKindFor(registry, operation);
  if (!kind) {
    const known = jobOperations(registry).map((o) => `\`${o}\``);
    throw new MangoError('INVALID_INPUT', `field \`operation\` must be one of ${known.join(', ')}`);
  }
  const checked = runOptions(kind, options);
  return { kind, options: checked, steps: kind.runs.steps(checked as never) };
}

/** A successful result after the plan's declared `finish` (grading, for instance). */
export const finishResult = (
  plan: RunPlan,
  result: ResultFigures,
  context?: Readonly<Record<string, unknown>>,
): ResultFigures => (plan.kind.runs.finish ? plan.kind.runs.finish(result, plan.options as never, context) : result);

/** The figures of what ran, as the runs table keeps them. */
export function ranWithColumns(kind: RunKind, figures: ResultFigures | undefined) {
  const ran = figures ? kind.runs.ranWith(figures) : {};
  return {
    method_used: ran.method ?? null,
    plugin_version: ran.version ?? null,
    model_id: ran.model_id ?? null,
    model_sha256: ran.model_sha256 ?? null,
  };
}

/** The text of a failed photo's error a user is shown (an internal failure is not described). */
export const photoErrorText = (error: { status: number; message: string }) =>
  error.status >= 500 ? 'the image could not be analysed' : error.message;

/**
 * A stored item's result: the figures (or the error) with the photo's name under the declared key
 * and, when the run has them, the photo's metadata (`meta`, core/src/meta.ts).
 */
export function storedResult(
  kind: RunKind,
  filename: string,
  outcome: { figures: ResultFigures } | { error: string },
  meta?: Readonly<Record<string, string | null>>,
): ResultFigures {
  const named = { [kind.runs.nameKey]: filename };
  const withMeta = meta ? { meta } : {};
  // The bruise item's own `filename` is the name its plugin saw; the stored one is the sanitised name.
  return 'figures' in outcome
    ? { ...named, ...outcome.figures, ...named, ...withMeta }
    : { ...named, error: outcome.error, ...withMeta };
}

/** A stored item holds an error instead of figures. */
export const isFailedItem = (result: ResultFigures) => typeof result.error === 'string';

/** Columns any run's tables may have: a metadata name may not be one of them either. */
export const COMMON_COLUMNS: readonly string[] = [
  'image',
  'filename',
  'image_name',
  'fruit',
  'error',
  'meta',
  'run_id',
];

/**
 * The metadata spec of runs of `kinds` (a pattern and/or a metadata table; undefined when neither
 * is given), its names checked against the columns the kinds' tables write: a clash is a 400 naming it.
 */
export const runMetaSpec = (
  kinds: readonly RunKind[],
  input: { pattern?: string | null; table?: MetaTable; csvSha256?: string | null },
): MetaSpec | undefined => metaSpec(input, [...COMMON_COLUMNS, ...kinds.flatMap((k) => k.runs.columns ?? [])]);
