/**
 * The model registry: which model version scores photos, chosen by the operator.
 *
 * - The models of MODELS_DIR's manifest (the shipped model) are built in and read only.
 * - Versions trained here (`mango train bruise`) are rows of `model_versions`; their ONNX file is kept
 *   under DATA_DIR/models on SQLite, in the row itself on PostgreSQL (machines share nothing else).
 * - `model_activations` lists the activations in order; the last one of a task is in force. Without
 *   one, the first built-in model of the task is (the behaviour before the registry).
 * - Activation is gated: a version is activated only when its evaluation on held-out corrections
 *   (at least MIN_HELD_OUT photos) is no worse than the model in force, on lesion % error p90 and on
 *   Lin's CCC; `force` overrides, and the override is recorded with the figures.
 *
 * Scoring reads `inForce()`, cached for CACHE_MS, so a server or a `mango worker` uses a newly
 * activated version for photos started at most CACHE_MS later (the promise is 10 s), without a
 * restart; a batch job is given its models when it is made and keeps them.
 */
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { isAbsolute, join } from 'node:path';
import { z } from 'zod';
import { MangoError, type ModelManifestEntry } from '@mango/core';
import { ModelManifestEntrySchema, readManifest } from '@mango/models';
import { now, type DB } from '../db/index.ts';
import type { Dialect } from '../db/migrations.ts';

/** A version needs at least this many held-out photos for the gate to judge it. */
export const MIN_HELD_OUT = 10;
/** How long the models in force are cached: activation reaches new photos within this time. */
export const CACHE_MS = 5000;

/** Held-out figures of one model: lesion % error p90 (points) and Lin's CCC of the lesion %. */
export const HeldOutFigures = z.object({ error_p90: z.number(), ccc: z.number() });
/** How a version did on held-out corrections, beside the model in force when it was trained. */
export const Evaluation = z.object({
  held_out: z.number().int().min(0),
  candidate: HeldOutFigures,
  baseline: HeldOutFigures.extend({ model_id: z.string() }),
  /** how the held-out photos were chosen (grouped by photo source) */
  split: z.string().optional(),
});
export type Evaluation = z.infer<typeof Evaluation>;

export interface ModelVersion {
  id: string;
  task: string;
  sha256: string;
  /** true for the read-only models of MODELS_DIR */
  builtin: boolean;
  base_id: string | null;
  created_at: string | null;
  created_by: string | null;
  evaluation: Evaluation | null;
  card: string | null;
  /** whether this version is the one in force for its task */
  active: boolean;
}

export interface Activation {
  task: string;
  model_id: string;
  action: 'activate' | 'rollback';
  forced: boolean;
  gate: GateVerdict | null;
  activated_at: string;
  activated_by: string;
}

export interface GateVerdict {
  passed: boolean;
  reason: string;
  held_out: number | null;
  candidate: z.infer<typeof HeldOutFigures> | null;
  in_force: (z.infer<typeof HeldOutFigures> & { model_id: string }) | null;
}

export interface NewVersion {
  id: string;
  entry: ModelManifestEntry;
  file: Uint8Array;
  base_id: string | null;
  card: string | null;
  evaluation: Evaluation | null;
  created_by: string;
}

const ID = /^[a-z0-9][a-z0-9._-]{0,79}$/;

const sha256 = (bytes: Uint8Array) => createHash('sha256').update(bytes).digest('hex');

/** The gate: a version with held-out figures no worse than the model in force. */
export function gate(evaluation: Evaluation | null, inForceId: string | null): GateVerdict {
  if (!evaluation)
    return { passed: false, reason: 'it has no held-out evaluation', held_out: null, candidate: null, in_force: null };
  const { held_out, candidate, baseline } = evaluation;
  const verdict = (passed: boolean, reason: string): GateVerdict => ({
    passed,
    reason,
    held_out,
    candidate,
    in_force: baseline,
  });
  if (held_out < MIN_HELD_OUT)
    return verdict(false, `too few held-out photos: ${held_out} (at least ${MIN_HELD_OUT} are needed)`);
  if (inForceId !== null && baseline.model_id !== inForceId)
    return verdict(false, `it was evaluated against ${baseline.model_id}, but ${inForceId} is in force`);
  const worse: string[] = [];
  if (candidate.error_p90 > baseline.error_p90)
    worse.push(`lesion % error p90 ${candidate.error_p90} > ${baseline.error_p90}`);
  if (candidate.ccc < baseline.ccc) worse.push(`CCC ${candidate.ccc} < ${baseline.ccc}`);
  return worse.length
    ? verdict(false, `it is worse than ${baseline.model_id} on the held-out photos: ${worse.join('; ')}`)
    : verdict(true, `no worse than ${baseline.model_id} on ${held_out} held-out photos`);
}

/** The sentence the CLI prints for a gate: both models' figures and the verdict. */
export function gateText(g: GateVerdict): string {
  const figures = (f: { error_p90: number; ccc: number } | null) =>
    f ? `error p90 ${f.error_p90.toFixed(2)} points, CCC ${f.ccc.toFixed(3)}` : 'no figures';
  return [
    `held-out photos: ${g.held_out ?? 0}`,
    `candidate: ${figures(g.candidate)}`,
    `in force (${g.in_force?.model_id ?? 'none'}): ${figures(g.in_force)}`,
    `gate: ${g.passed ? 'passed' : 'refused'}: ${g.reason}`,
  ].join('\n');
}

export interface ModelRegistry {
  /** every version: the built-in ones first, then the registered ones, oldest first */
  list(): Promise<ModelVersion[]>;
  show(id: string): Promise<ModelVersion>;
  /** the activations, newest first */
  history(task?: string): Promise<Activation[]>;
  add(version: NewVersion): Promise<ModelVersion>;
  /** activates `id` if the gate passes (or `force`); returns the gate's verdict */
  activate(id: string, by: string, options?: { force?: boolean }): Promise<GateVerdict>;
  /** goes back to the version in force before the last activation of `task` */
  rollback(task: string, by: string): Promise<{ from: string; to: string }>;
  /** the manifest entries in force, one per task, with absolute file paths (cached CACHE_MS) */
  inForce(): Promise<ModelManifestEntry[]>;
  /** the entries of the given versions (a batch job's), with absolute file paths */
  entries(ids: readonly string[]): Promise<ModelManifestEntry[]>;
}

/**
 * The models to score a stored run's photo again with: the model the run recorded, while the
 * registry still has it (its figures are that model's), otherwise the versions in force.
 */
export async function modelsOfRun(registry: ModelRegistry, modelId: string | null | undefined) {
  const recorded = modelId ? await registry.entries([modelId]).catch(() => null) : null;
  return recorded ?? (await registry.inForce());
}

export interface RegistryOptions {
  db: DB;
  dialect: Dialect;
  dataDir: string;
  modelsDir: string;
  /** where PostgreSQL-kept files are written for onnxruntime to read (default: the OS temp folder) */
  cacheDir?: string;
}

export function createModelRegistry(o: RegistryOptions): ModelRegistry {
  const builtin = () =>
    readManifest(o.modelsDir).models.map((m) => ({
      ...m,
      file: isAbsolute(m.file) ? m.file : join(o.modelsDir, m.file),
    }));
  const filesDir = join(o.dataDir, 'models');
  const cacheDir = o.cacheDir ?? join(tmpdir(), 'mango-models');

  const rows = () =>
    o.db
      .selectFrom('model_versions')
      .select(['id', 'task', 'sha256', 'base_id', 'entry', 'card', 'evaluation', 'created_at', 'created_by'])
      .orderBy('created_at')
      .orderBy('id')
      .execute();

  const lastActivations = async (): Promise<Map<string, string>> => {
    const acts = await o.db
      .selectFrom('model_activations')
      .select(['task', 'model_id'])
      .orderBy('id', 'desc')
      .execute();
    const last = new Map<string, string>();
    for (const a of acts) if (!last.has(a.task)) last.set(a.task, a.model_id);
    return last;
  };

  /** The id in force for each task: its last activation, else its first built-in model. */
  const inForceIds = async (): Promise<Map<string, string>> => {
    const ids = await lastActivations();
    for (const m of builtin()) if (!ids.has(m.task)) ids.set(m.task, m.id);
    return ids;
  };

  /** The file of a registered version, where onnxruntime can read it (written from PostgreSQL once). */
  const fileOf = async (id: string, sha: string): Promise<string> => {
    if (o.dialect === 'sqlite') return join(filesDir, `${id}.onnx`);
    const path = join(cacheDir, `${sha}.onnx`);
    if (existsSync(path) && sha256(readFileSync(path)) === sha) return path;
    const row = await o.db.selectFrom('model_versions').select('data').where('id', '=', id).executeTakeFirst();
    if (!row?.data) throw new MangoError('MODEL_NOT_FOUND', `model ${id}: its file is not in the database`);
    mkdirSync(cacheDir, { recursive: true, mode: 0o700 });
    const tmp = `${path}.${process.pid}.tmp`;
    writeFileSync(tmp, row.data, { mode: 0o600 });
    renameSync(tmp, path);
    return path;
  };

  const entryOf = async (r: { id: string; sha256: string; entry: string }): Promise<ModelManifestEntry> => ({
    ...ModelManifestEntrySchema.parse(JSON.parse(r.entry)),
    id: r.id,
    sha256: r.sha256,
    file: await fileOf(r.id, r.sha256),
  });

  const versions = async (): Promise<ModelVersion[]> => {
    const active = await inForceIds();
    const isActive = (task: string, id: string) => active.get(task) === id;
    const built = builtin().map((m): ModelVersion => ({
      id: m.id,
      task: m.task,
      sha256: m.sha256,
      builtin: true,
      base_id: null,
      created_at: null,
      created_by: null,
      evaluation: null,
      card: m.card && existsSync(join(o.modelsDir, m.card)) ? readFileSync(join(o.modelsDir, m.card), 'utf8') : null,
      active: isActive(m.task, m.id),
    }));
    const registered = (await rows()).map((r): ModelVersion => ({
      id: r.id,
      task: r.task,
      sha256: r.sha256,
      builtin: false,
      base_id: r.base_id,
      created_at: r.created_at,
      created_by: r.created_by,
      evaluation: r.evaluation ? Evaluation.parse(JSON.parse(r.evaluation)) : null,
      card: r.card,
      active: isActive(r.task, r.id),
    }));
    return [...built, ...registered];
  };

  const show = async (id: string) => {
    const v = (await versions()).find((m) => m.id === id);
    if (!v) throw new MangoError('MODEL_NOT_FOUND', `no model version ${id} (see \`mango models list\`)`);
    return v;
  };

  const record = (
    task: string,
    model_id: string,
    action: 'activate' | 'rollback',
    by: string,
    forced: boolean,
    g: GateVerdict | null,
  ) =>
    o.db
      .insertInto('model_activations')
      .values({
        task,
        model_id,
        action,
        forced: forced ? 1 : 0,
        gate: g ? JSON.stringify(g) : null,
        activated_at: now(),
        activated_by: by,
      })
      .execute();

  let cache: { at: number; entries: Promise<ModelManifestEntry[]> } | null = null;

  return {
    list: versions,
    show,
    async history(task) {
      let q = o.db.selectFrom('model_activations').selectAll().orderBy('id', 'desc');
      if (task) q = q.where('task', '=', task);
      return (await q.execute()).map((a) => ({
        task: a.task,
        model_id: a.model_id,
        action: a.action as Activation['action'],
        forced: a.forced === 1,
        gate: a.gate ? (JSON.parse(a.gate) as GateVerdict) : null,
        activated_at: a.activated_at,
        activated_by: a.activated_by,
      }));
    },
    async add(v) {
      if (!ID.test(v.id))
        throw new MangoError(
          'INVALID_INPUT',
          `model id ${JSON.stringify(v.id)}: lower-case letters, digits, . _ - only`,
        );
      if ((await versions()).some((m) => m.id === v.id))
        throw new MangoError('INVALID_INPUT', `model version ${v.id} already exists`);
      const sha = sha256(v.file);
      const entry = { ...v.entry, id: v.id, sha256: sha, file: `${v.id}.onnx` };
      ModelManifestEntrySchema.parse(entry);
      if (o.dialect === 'sqlite') {
        mkdirSync(filesDir, { recursive: true, mode: 0o700 });
        writeFileSync(join(filesDir, `${v.id}.onnx`), v.file, { mode: 0o600, flag: 'wx' });
      }
      await o.db
        .insertInto('model_versions')
        .values({
          id: v.id,
          task: entry.task,
          sha256: sha,
          base_id: v.base_id,
          entry: JSON.stringify(entry),
          card: v.card,
          evaluation: v.evaluation ? JSON.stringify(Evaluation.parse(v.evaluation)) : null,
          created_at: now(),
          created_by: v.created_by,
          data: o.dialect === 'postgres' ? v.file : null,
        })
        .execute();
      return show(v.id);
    },
    async activate(id, by, options = {}) {
      const v = await show(id);
      const inForce = (await inForceIds()).get(v.task) ?? null;
      if (inForce === id) throw new MangoError('INVALID_INPUT', `${id} is already in force for ${v.task}`);
      const verdict = v.builtin
        ? { passed: true, reason: 'a built-in model', held_out: null, candidate: null, in_force: null }
        : gate(v.evaluation, inForce);
      if (!verdict.passed && !options.force) return verdict;
      await record(v.task, id, 'activate', by, !verdict.passed, verdict);
      cache = null;
      return verdict;
    },
    async rollback(task, by) {
      const acts = await o.db
        .selectFrom('model_activations')
        .select(['model_id'])
        .where('task', '=', task)
        .orderBy('id', 'desc')
        .execute();
      if (acts.length === 0)
        throw new MangoError('INVALID_INPUT', `nothing to roll back: no version of ${task} was ever activated`);
      const from = acts[0].model_id;
      // The version in force before the last activation: the one before it, else the built-in one.
      const to = acts.find((a) => a.model_id !== from)?.model_id ?? builtin().find((m) => m.task === task)?.id;
      if (!to || to === from)
        throw new MangoError('INVALID_INPUT', `nothing to roll back to: ${from} is the only version of ${task}`);
      await record(task, to, 'rollback', by, false, null);
      cache = null;
      return { from, to };
    },
    async inForce() {
      if (!cache || Date.now() - cache.at > CACHE_MS) {
        const entries = (async () => {
          const ids = await inForceIds();
          return this.entries([...ids.values()]);
        })();
        cache = { at: Date.now(), entries };
        entries.catch(() => (cache = null));
      }
      return cache.entries;
    },
    async entries(ids) {
      const built = builtin();
      const registered = ids.length
        ? await o.db
            .selectFrom('model_versions')
            .select(['id', 'sha256', 'entry'])
            .where('id', 'in', [...ids])
            .execute()
        : [];
      const out: ModelManifestEntry[] = [];
      for (const id of ids) {
        const b = built.find((m) => m.id === id);
        if (b) out.push(b);
        else {
          const r = registered.find((m) => m.id === id);
          if (!r) throw new MangoError('MODEL_NOT_FOUND', `model version ${id} is not in the registry`);
          out.push(await entryOf(r));
        }
      }
      return out;
    },
  };
}
