/**
 * Results a lab can keep, written once for every front end (server exports, CLI, web, report): the
 * results file (`mango bruise --out results.json` and a stored run's `export?format=json` share it),
 * its provenance, the stored runs' shapes, what every table shares (the photos' metadata as columns,
 * percentages as the screens show them), and the summary statistics and histogram bins of the run
 * page and the report. Each plugin's own tables live in the plugin (its run declaration's `tables`:
 * plugins/bruise/src/tables.ts, plugins/features/src/tables.ts). Browser-safe: no Node imports.
 */
import { z } from 'zod';
import type { RanWith } from './runs.ts';
import { quantile } from './statistics.ts';
import { MetaProvenance, PhotoMeta } from './meta.ts';

/** The longest side of the overlay thumbnail kept per photo (stored runs, results files, the report). */
export const THUMBNAIL_MAX_SIDE = 256;

export const RESULTS_SCHEMA = 'mango-bruise-tracker/results/1';

/** Where a number came from: software, method, model, settings, time and every input's sha256. */
export const Provenance = z.object({
  app: z.literal('mango-bruise-tracker'),
  app_version: z.string(),
  /** 'api' (a stored run) or 'cli' */
  source: z.enum(['api', 'cli']),
  run_id: z.string().nullable(),
  /** the kind of run, as its plugin declares it (core/src/runs.ts): `bruise`, `analyze`, ... */
  operation: z.string(),
  /** the method asked for ('auto', 'classical', 'model'; null for analyze) */
  method: z.string().nullable(),
  /** the method that ran ('classical' or 'model'; null for analyze) */
  method_used: z.string().nullable(),
  plugin_version: z.string().nullable(),
  model_id: z.string().nullable(),
  model_sha256: z.string().nullable(),
  options: z.record(z.string(), z.unknown()),
  created_at: z.string(),
  /** every input in order; one that could not be scored has its `error` (its sha256 is empty when it could not be read) */
  inputs: z.array(z.object({ filename: z.string(), sha256: z.string(), error: z.string().optional() })),
  /** where the photos' experiment metadata came from (the pattern, the CSV's sha256, the names); absent: none */
  meta: MetaProvenance.nullable().optional(),
});
export type Provenance = z.infer<typeof Provenance>;

export type { RanWith };

/** The provenance of a call or a batch: what was asked (`asked`) and what ran (`ran`, e.g. the first item). */
export function makeProvenance(
  asked: Pick<
    Provenance,
    'app_version' | 'source' | 'run_id' | 'operation' | 'method' | 'options' | 'created_at' | 'inputs'
  > &
    Pick<Partial<Provenance>, 'meta'>,
  ran: RanWith = {},
): Provenance {
  const { meta, ...rest } = asked;
  return {
    app: 'mango-bruise-tracker',
    ...rest,
    ...(meta ? { meta } : {}),
    method_used: ran.method ?? null,
    plugin_version: ran.version ?? null,
    model_id: ran.model_id ?? null,
    model_sha256: ran.model_sha256 ?? null,
  };
}

/** One photo of a results file: what was read (name, sha256, size), what came out, a small overlay. */
export const ResultsPhoto = z.object({
  filename: z.string(),
  sha256: z.string(),
  width: z.number().int().nullable(),
  height: z.number().int().nullable(),
  /** the figures its plugin returned (a JSON object, as the plugin declares it with its runs: `result`) */
  result: z.record(z.string(), z.unknown()),
  /** data:image/jpeg;base64 overlay, long side at most THUMBNAIL_MAX_SIDE; null when none */
  overlay_thumbnail: z.string().nullable(),
  /** the same for the photo itself (shown beside its overlay); absent in older files */
  photo_thumbnail: z.string().nullable().optional(),
  /** the photo's experiment metadata (name -> value; --meta, --meta-csv, fields meta / meta_csv); absent: none */
  meta: PhotoMeta.optional(),
});
export type ResultsPhoto = z.infer<typeof ResultsPhoto>;

/** The results file: `mango bruise --out results.json` and `GET /api-node/runs/{id}/export?format=json`. */
export const ResultsFile = z.object({
  schema: z.literal(RESULTS_SCHEMA),
  provenance: Provenance,
  photos: z.array(ResultsPhoto),
});
export type ResultsFile = z.infer<typeof ResultsFile>;

/**
 * The results file as a document describes it: a photo's `result` is one of the result schemas the
 * plugins declare with their runs (`RunDeclaration.result`, in the registry's order) or any other
 * JSON object. Parsing keeps using `ResultsFile` (a result is any object), so no field is dropped.
 */
export function describedResultsFile(results: readonly z.ZodType[]) {
  const result = z.union([...results, z.record(z.string(), z.unknown())]);
  return ResultsFile.extend({ photos: z.array(ResultsPhoto.extend({ result })) });
}

// ---- stored runs (GET /api-node/runs, /runs/{id}) ----------------------------------------------
// One schema each: the server's answers are typed from them, the OpenAPI document describes them
// and the web client infers its types from them. Each carries its id (zod metadata): where one is
// part of another, the document refers to it by that name.

/** A stored run as the run list shows it: its provenance, owner, photo count and summary figures. */
export const RunListItem = Provenance.pick({
  operation: true,
  method: true,
  method_used: true,
  plugin_version: true,
  model_id: true,
  model_sha256: true,
  options: true,
  app_version: true,
  created_at: true,
  meta: true,
})
  .extend({
    id: z.string(),
    username: z.string(),
    organization: z.string(),
    item_count: z.number().int(),
    /** the figures its plugin's declaration makes of the run's items (core/src/runs.ts `summary`) */
    summary: z.record(z.string(), z.number().nullable()),
    rescored_from: z.string().nullable().meta({
      description:
        'The run this one re-scored with another model (POST /api-node/runs/{id}/rescore), from its kept photos; null: scored from uploads. It keeps the id after that run is deleted',
    }),
  })
  .meta({ id: 'Run' });
export type RunListItem = z.infer<typeof RunListItem>;

/** One version of a stored photo's truth: who saved it and when, from which model's masks. */
export const PhotoTruth = z
  .object({
    version: z.number().int(),
    width: z.number().int(),
    height: z.number().int(),
    created_by: z.string(),
    created_at: z.string(),
    /** the model whose masks the person started from (null: the classical method) */
    model_id: z.string().nullable(),
    /** `editor`, or `import:<format>` for an imported file (`import:coco`, `import:cvat`, `import:labelstudio`) */
    source: z.string(),
  })
  .meta({ id: 'PhotoTruth' });
export type PhotoTruth = z.infer<typeof PhotoTruth>;

/** One photo of a stored run: what was read, its result (as its plugin declares it) and thumbnails. */
export const StoredRunItem = ResultsPhoto.extend({
  id: z.number().int(),
  position: z.number().int(),
  result: z.record(z.string(), z.unknown()).meta({
    description:
      "The figures the run's plugin returned for the photo (a JSON object: core/src/runs.ts), or the photo's name and `error` when it could not be scored",
  }),
  full_overlay: z.boolean().meta({
    description:
      'The full-size overlay is kept (a run stored by an /api-py call, a job sent with keep_overlays): GET /api-node/runs/{id}/items/{position}/overlay',
  }),
  photo_kept: z.boolean().meta({
    description:
      'The uploaded photo is kept with the run (KEEP_RUN_PHOTOS; a scored photo of a run made since): GET /api-node/runs/{id}/items/{position}/photo, and the full-resolution export (export?format=zip&resolution=full). False for a run made before photos were kept, with the setting off, or a photo that could not be scored',
  }),
  truth: PhotoTruth.nullable().optional().meta({
    description:
      "The latest truth of the photo (its masks corrected in the mask editor, or imported): GET /api-node/runs/{id}/items/{position}/truth; `result` then holds the corrected figures and `model_result` the model's. Null: not corrected",
  }),
  model_result: z.record(z.string(), z.unknown()).optional().meta({
    description: "A corrected photo's figures as the model gave them (kept for audit)",
  }),
  model_overlay_thumbnail: z.string().nullable().optional().meta({
    description:
      "A corrected photo: the model's overlay thumbnail (kept for audit), while `overlay_thumbnail` is the overlay of its corrected masks, drawn as the model's (the same outlines, reference ring and colour-card outline). Absent when the photo is not corrected, or its overlay is the model's (`corrected_overlay` says why)",
    example: 'data:image/jpeg;base64,/9j/4AAQSkZJRg...',
  }),
  corrected_overlay: z.enum(['drawn', 'pending', 'photo-not-kept', 'not-drawn', 'failed']).optional().meta({
    description:
      "A corrected photo: which overlay `overlay_thumbnail` is. `drawn`: the overlay of its corrected masks (the model's in `model_overlay_thumbnail`). Otherwise the model's overlay is shown: `photo-not-kept`, its truth was saved before corrected overlays were stored and its photo was not kept, so nothing can be drawn on; `pending`, saved before corrected overlays were stored, drawn by the server's start-up backfill shortly; `not-drawn`, its kind of run draws no corrected overlay; `failed`, drawing it failed (logged). Absent when the photo is not corrected",
    example: 'drawn',
  }),
}).meta({ id: 'RunItem' });
export type StoredRunItem = z.infer<typeof StoredRunItem>;

/** A re-scoring of a stored run: the new run, the model it was given, when it was made. */
export const RunRescore = z
  .object({
    id: z.string().meta({ description: 'the new run (its rescored_from is this run)' }),
    model_id: z.string().nullable().meta({ description: 'the model version it was re-scored with' }),
    model_sha256: z.string().nullable(),
    created_at: z.string(),
  })
  .meta({ id: 'RunRescore' });
export type RunRescore = z.infer<typeof RunRescore>;

/** A stored run with its items, in order. */
export const StoredRun = RunListItem.extend({
  items: z.array(StoredRunItem),
  rescores: z.array(RunRescore).meta({
    description: 'The re-scorings of this run with other models (POST /api-node/runs/{id}/rescore), oldest first',
  }),
}).meta({ id: 'StoredRun' });
export type StoredRun = z.infer<typeof StoredRun>;

/** One page of the run list, newest first; `next_cursor` is null on the last page. */
export const RunPage = z
  .object({ runs: z.array(RunListItem), next_cursor: z.string().nullable() })
  .meta({ id: 'RunPage' });
export type RunPage = z.infer<typeof RunPage>;

/** The name of a file's provenance sidecar: `fruits.csv` -> `fruits.csv.provenance.json`. */
export const provenanceSidecarName = (file: string) => `${file}.provenance.json`;

// ---- tables ----------------------------------------------------------------------------------

/** Percentages of data.csv and of the screens: 2 decimals (product-spec.md section 9). */
export function formatPercent(value: number | null | undefined): string {
  return typeof value === 'number' && Number.isFinite(value) ? value.toFixed(2) : '-';
}

/** A table's columns followed by its rows' metadata columns (core/src/csv.ts, where the series table uses it too). */
export { withMetaColumns } from './csv.ts';

// ---- statistics ------------------------------------------------------------------------------

export interface SummaryStats {
  n: number;
  mean: number | null;
  median: number | null;
  p90: number | null;
  /** the threshold the share is over (bruise %) */
  threshold: number;
  /** photos with bruise % strictly over the threshold, as a fraction of n (null when n = 0) */
  share_over: number | null;
}

export function summaryStats(values: readonly number[], threshold: number): SummaryStats {
  const sorted = [...values].filter(Number.isFinite).sort((a, b) => a - b);
  const n = sorted.length;
  return {
    n,
    mean: n ? sorted.reduce((a, v) => a + v, 0) / n : null,
    median: quantile(sorted, 0.5),
    p90: quantile(sorted, 0.9),
    threshold,
    share_over: n ? sorted.filter((v) => v > threshold).length / n : null,
  };
}

export interface HistogramBin {
  /** [from, to): the last bin includes its upper edge */
  from: number;
  to: number;
  count: number;
  label: string;
}

const BIN_WIDTHS = [0.5, 1, 2, 5, 10, 20, 25];

/** Bins of bruise % from 0, of a round width giving at most 12 bins (at least one bin). */
export function histogramBins(values: readonly number[]): HistogramBin[] {
  const finite = values.filter(Number.isFinite);
  const max = Math.max(0, ...finite);
  const width = BIN_WIDTHS.find((w) => Math.ceil(max / w) <= 12) ?? 25;
  const count = Math.max(1, Math.ceil(max / width));
  const bins: HistogramBin[] = Array.from({ length: count }, (_, i) => ({
    from: i * width,
    to: (i + 1) * width,
    count: 0,
    label: `${i * width}–${(i + 1) * width}`,
  }));
  for (const v of finite) bins[Math.min(count - 1, Math.max(0, Math.floor(v / width)))].count++;
  return bins;
}
