/**
 * Re-scoring a stored run with another model (issue 28 item 4): POST /api-node/runs/{id}/rescore
 * makes a batch job whose photos are the run's kept photos (referenced, not copied: jobs/store.ts
 * `withKeptPhotos`), whose options are the run's own and whose models are the ones in force with the
 * asked version in place of its task's; the job writes a new run whose `rescored_from` is the first.
 * This file decides what the job is, or why there is none; nothing here names a plugin.
 */
import { isFailedItem, planRun, runKindOf, type PluginRegistry, type RunPlan } from '@mango/core';
import type { MetaProvenance } from '@mango/core';
import type { DB } from '../db/index.ts';
import type { KeptPhotoRef } from '../jobs/store.ts';
import type { ModelRegistry, ModelVersion } from '../models/registry.ts';
import { getRun, type StoredRun } from './store.ts';

/** Why a run cannot be re-scored: the answer's status, error and details. */
export class RescoreRefused extends Error {
  constructor(
    readonly status: 400 | 404 | 409,
    message: string,
    readonly details?: Record<string, unknown>,
  ) {
    super(message);
  }
}

/** The job a re-scoring makes (jobs/store.ts createJob's job and photos). */
export interface RescoreJob {
  run: StoredRun;
  model: ModelVersion;
  job: {
    operation: string;
    kind: RunPlan['kind'];
    options: Record<string, unknown>;
    keepOverlays: boolean;
    models: string[];
    meta: MetaProvenance | null;
    rescoredFrom: string;
  };
  photos: KeptPhotoRef[];
}

/**
 * The re-scoring of the user's run `runId` with model version `modelId`, or RescoreRefused: 404 for
 * no such run of theirs; 400 for a model the registry does not know (with the known ids), a run that
 * used no model (its method is not a model's) or a model of another task than the run's; 409 when
 * the run's scored photos were not kept (or it has none).
 */
export async function planRescore(
  deps: { db: DB; registry: PluginRegistry; models: ModelRegistry },
  userId: number,
  runId: string,
  modelId: string,
): Promise<RescoreJob> {
  const run = await getRun(deps.db, userId, runId);
  const kind = run && runKindOf(deps.registry, run.operation);
  if (!run || !kind) throw new RescoreRefused(404, 'Run not found');
  const versions = await deps.models.list();
  const model = versions.find((v) => v.id === modelId);
  if (!model) {
    const known = versions.map((v) => v.id);
    throw new RescoreRefused(400, `Unknown model_id ${modelId}: the known models are ${known.join(', ')}`, {
      known,
    });
  }
  if (!run.model_id)
    throw new RescoreRefused(
      400,
      `This ${run.operation} run used no model (method ${run.method_used ?? run.method ?? 'none'}), so it cannot be re-scored with one`,
    );
  const recorded = versions.find((v) => v.id === run.model_id);
  if (recorded && recorded.task !== model.task)
    throw new RescoreRefused(
      400,
      `Model ${model.id} is a ${model.task} model; this run was scored by ${recorded.id}, a ${recorded.task} model`,
    );

  const scored = run.items.filter((i) => !isFailedItem(i.result));
  const missing = scored.filter((i) => !i.photo_kept).map((i) => i.filename);
  if (scored.length === 0) throw new RescoreRefused(409, 'This run has no scored photo to re-score');
  if (missing.length > 0)
    throw new RescoreRefused(
      409,
      `The photos of this run were not kept (${missing.length} of ${scored.length}: a run made before runs kept ` +
        'their photos, or with KEEP_RUN_PHOTOS=0), so it cannot be re-scored',
      { missing },
    );

  const sizes = new Map(
    (await deps.db.selectFrom('run_photos').select(['position', 'size']).where('run_id', '=', run.id).execute()).map(
      (r) => [r.position, r.size],
    ),
  );
  const plan = planRun(deps.registry, run.operation, run.options);
  // The versions in force, with the asked one in place of its task's: the job keeps them.
  const inForce = (await deps.models.inForce()).filter((m) => m.task !== model.task).map((m) => m.id);
  return {
    run,
    model,
    job: {
      operation: run.operation,
      kind: plan.kind,
      options: plan.options,
      keepOverlays: run.items.some((i) => i.full_overlay),
      models: [model.id, ...inForce],
      meta: run.meta ?? null,
      rescoredFrom: run.id,
    },
    photos: scored.map((i) => ({
      name: i.filename,
      size: sizes.get(i.position) ?? 0,
      ...(i.meta ? { meta: i.meta } : {}),
      source: { runId: run.id, position: i.position },
    })),
  };
}
