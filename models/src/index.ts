/**
 * @mango/models: the Node model loader (onnxruntime-node, CPU). Models are listed in
 * models/manifest.json and loaded by id through ctx.models; a file is only offered when it exists
 * and its sha256 matches the manifest. Sessions are cached per model id.
 */
import { createHash } from 'node:crypto';
import { existsSync, readFileSync, statSync } from 'node:fs';
import { dirname, isAbsolute, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { z } from 'zod';
import type { LoadedModel, ModelLoader, ModelManifestEntry, Tensor } from '@mango/core';
import { MangoError, TTA_VIEWS } from '@mango/core';

export { conv1x1Model } from './onnx-writer.ts';
export type { Conv1x1Spec } from './onnx-writer.ts';

/** The models folder of the repository (the one holding manifest.json). */
export const MODELS_DIR = resolve(dirname(fileURLToPath(import.meta.url)), '..');

const TtaViewSchema = z.enum(TTA_VIEWS);

export const ModelManifestEntrySchema = z.object({
  id: z.string().regex(/^[a-z0-9][a-z0-9._-]*$/),
  task: z.string().min(1),
  file: z.string().min(1),
  sha256: z.string().regex(/^[0-9a-f]{64}$/),
  license: z.string().min(1),
  input: z.object({
    name: z.string().optional(),
    width: z.number().int().positive(),
    height: z.number().int().positive(),
    layout: z.literal('NCHW'),
    mean: z.array(z.number()).length(3),
    std: z.array(z.number().positive()).length(3),
    fruit_channel: z.boolean().optional(),
    crop: z.enum(['whole', 'fruit-square', 'two-stage']).optional(),
  }),
  tta: z.array(TtaViewSchema).min(1).optional(),
  tta_first: z.array(TtaViewSchema).min(1).optional(),
  output: z.object({
    name: z.string().optional(),
    classes: z.array(z.string()).min(1),
    activation: z.enum(['logit', 'probability', 'scores']).optional(),
  }),
  card: z.string().optional(),
  /** how the file was trained (steps, seed, photos, seconds): informative */
  training: z.record(z.string(), z.unknown()).optional(),
});

export const ModelManifestSchema = z.object({ models: z.array(ModelManifestEntrySchema) });
export type ModelManifest = z.infer<typeof ModelManifestSchema>;

/** Reads and validates a manifest; a missing file is an empty manifest. */
export function readManifest(dir: string): ModelManifest {
  const path = join(dir, 'manifest.json');
  if (!existsSync(path)) return { models: [] };
  let raw: unknown;
  try {
    raw = JSON.parse(readFileSync(path, 'utf8'));
  } catch (e) {
    throw new MangoError('INVALID_INPUT', `${path} is not valid JSON: ${(e as Error).message}`);
  }
  const parsed = ModelManifestSchema.safeParse(raw);
  if (!parsed.success) throw new MangoError('INVALID_INPUT', `${path}: ${z.prettifyError(parsed.error)}`);
  const ids = new Set<string>();
  for (const m of parsed.data.models) {
    if (ids.has(m.id)) throw new MangoError('INVALID_INPUT', `${path}: duplicate model id ${m.id}`);
    ids.add(m.id);
  }
  return parsed.data;
}

export function sha256File(path: string): string {
  return createHash('sha256').update(readFileSync(path)).digest('hex');
}

type Ort = typeof import('onnxruntime-node');

export interface ModelLoaderOptions {
  /** onnxruntime intra-op threads per session (default 1: workers already run in parallel) */
  threads?: number;
}

/** A ModelLoader over the models in `dir` (default: the repository's models folder). */
export function createModelLoader(dir: string = MODELS_DIR, options: ModelLoaderOptions = {}): ModelLoader {
  return createEntriesLoader(readManifest(dir).models, dir, options);
}

/**
 * A ModelLoader over given manifest entries (a relative `file` is read from `dir`): the models a job
 * was given (the registry's active versions, with absolute paths) instead of a folder's manifest.
 */
export function createEntriesLoader(
  entries: readonly ModelManifestEntry[],
  dir: string = MODELS_DIR,
  options: ModelLoaderOptions = {},
): ModelLoader {
  const manifest = { models: entries };
  const hashes = new Map<string, { key: string; ok: boolean }>();
  const sessions = new Map<string, Promise<LoadedModel>>();
  let ort: Promise<Ort> | null = null;

  const fileOf = (e: ModelManifestEntry) => (isAbsolute(e.file) ? e.file : join(dir, e.file));

  /** True when the file exists and its sha256 matches (cached per size and mtime). */
  const verified = (e: ModelManifestEntry): boolean => {
    const path = fileOf(e);
    if (!existsSync(path)) return false;
    const st = statSync(path);
    const key = `${st.size}:${st.mtimeMs}`;
    const cached = hashes.get(e.id);
    if (cached && cached.key === key) return cached.ok;
    const ok = sha256File(path) === e.sha256.toLowerCase();
    hashes.set(e.id, { key, ok });
    return ok;
  };

  const open = async (e: ModelManifestEntry): Promise<LoadedModel> => {
    ort ??= import('onnxruntime-node');
    const rt = await ort;
    const session = await rt.InferenceSession.create(fileOf(e), {
      intraOpNumThreads: options.threads ?? 1,
      interOpNumThreads: 1,
      graphOptimizationLevel: 'all',
      // onnxruntime's extra threads wait without spinning between runs: the JavaScript thread needs the
      // core right after each run (12 MP photos, one worker on 2 cores: 8.2 -> 6.3 s of CPU and
      // 4.9 -> 4.55 s for 24 photos; the same logits).
      extra: { session: { intra_op: { allow_spinning: '0' } } },
    });
    const inputName = e.input.name ?? session.inputNames[0];
    const outputName = e.output.name ?? session.outputNames[0];
    return {
      entry: e,
      async run(input: Tensor): Promise<Tensor> {
        const feeds = { [inputName]: new rt.Tensor('float32', input.data, input.dims) };
        const result = await session.run(feeds);
        const out = result[outputName];
        if (!out) throw new MangoError('INVALID_INPUT', `model ${e.id} has no output ${outputName}`);
        const data = out.data instanceof Float32Array ? out.data : Float32Array.from(out.data as ArrayLike<number>);
        return { data, dims: [...out.dims] };
      },
    };
  };

  return {
    async available(task: string) {
      return manifest.models.filter((m) => m.task === task && verified(m));
    },
    async load(id: string) {
      const e = manifest.models.find((m) => m.id === id);
      if (!e)
        throw new MangoError(
          'MODEL_NOT_FOUND',
          `model ${id} is not among the models offered (${entries.map((m) => m.id).join(', ') || 'none'})`,
        );
      if (!existsSync(fileOf(e)))
        throw new MangoError('MODEL_NOT_FOUND', `model ${id}: file ${e.file} is not installed`);
      if (!verified(e))
        throw new MangoError('MODEL_NOT_FOUND', `model ${id}: sha256 of ${e.file} does not match the manifest`);
      let s = sessions.get(id);
      if (!s) {
        s = open(e);
        sessions.set(id, s);
        s.catch(() => sessions.delete(id));
      }
      return s;
    },
  };
}
