/**
 * One image job: read or take the bytes, decode (sharp: EXIF orientation, pixel limit, typed errors),
 * run a pipeline of plugins, encode the resulting image. The server and the CLI run these jobs, on
 * worker threads through pool.ts, so a slow photo never blocks the event loop and a batch uses every core.
 */
import { readFile } from 'node:fs/promises';
import { basename } from 'node:path';
import sharp from 'sharp';
import {
  createContext,
  isMangoError,
  noModels,
  decodeMaxSideFor,
  runPipeline,
  type ModelLoader,
  type PipelineStep,
  type RasterImage,
} from '@mango/core';
import { BruiseOptions, BruiseResult, bruiseMasks, fullResolutionMasks, scoreBruise } from '@mango/plugin-bruise';
import { createNodeImageBackend, DEFAULT_MAX_PIXELS, encodeImage } from '@mango/core/node';
import { registry } from '../index.ts';

export interface ImageJob {
  /** file name reported back (defaults to the path's base name) */
  name?: string;
  path?: string;
  bytes?: Uint8Array;
  steps: PipelineStep[];
  maxPixels?: number;
  /** largest accepted file, bytes */
  maxBytes?: number;
  /** encode a transform result's image */
  output?: { format: 'png' | 'jpeg'; quality?: number };
  /** also return the bruise step's fruit and bruise masks as 8-bit PNGs (0 or 255, input size) */
  bruiseMasks?: boolean;
}

export type JobSuccess = {
  ok: true;
  name: string;
  result: Record<string, unknown>;
  image?: Uint8Array;
  masks?: { fruit: Uint8Array; bruise: Uint8Array };
};
export type JobFailure = { ok: false; name: string; error: { code: string; status: number; message: string } };
export type JobResult = JobSuccess | JobFailure;

let models: Promise<ModelLoader> | null = null;

/**
 * The ONNX model loader, created once per thread; without onnxruntime the classical methods still run.
 * Its sessions get MANGO_ORT_THREADS intra-op threads (set by createJobPool: the cores left per worker).
 */
function modelLoader(): Promise<ModelLoader> {
  models ??= import('@mango/models').then(
    (m) =>
      m.createModelLoader(process.env.MODELS_DIR || undefined, {
        threads: Math.max(1, Number(process.env.MANGO_ORT_THREADS) || 1),
      }),
    () => noModels,
  );
  return models;
}

/** A 0/1 mask as an 8-bit greyscale PNG holding 0 or 255. */
async function maskPng(mask: Uint8Array, width: number, height: number): Promise<Uint8Array> {
  const grey = new Uint8Array(mask.length);
  for (let i = 0; i < mask.length; i++) grey[i] = mask[i] ? 255 : 0;
  const buf = await sharp(grey, { raw: { width, height, channels: 1 } })
    .png()
    .toBuffer();
  return new Uint8Array(buf.buffer, buf.byteOffset, buf.byteLength);
}

function isRaster(v: unknown): v is RasterImage {
  return typeof v === 'object' && v !== null && 'data' in v && 'width' in v && 'height' in v;
}

export async function runImageJob(job: ImageJob): Promise<JobResult> {
  const name = job.name ?? (job.path ? basename(job.path) : 'image');
  try {
    const bytes = job.bytes ?? (job.path ? new Uint8Array(await readFile(job.path)) : undefined);
    if (!bytes) throw new Error('the job has neither bytes nor a path');
    if (job.maxBytes !== undefined && bytes.length > job.maxBytes) {
      const { MangoError } = await import('@mango/core');
      throw new MangoError(
        'FILE_TOO_LARGE',
        `${name}: file is ${(bytes.length / 1048576).toFixed(1)} MB; the limit is ${(job.maxBytes / 1048576).toFixed(0)} MB`,
      );
    }
    const images = createNodeImageBackend({ maxPixels: job.maxPixels ?? DEFAULT_MAX_PIXELS });
    const steps = job.steps.map((s) =>
      s.plugin === 'bruise' ? { ...s, options: { filename: name, ...(s.options ?? {}) } } : s,
    );
    // A one-step analysis that works on a downscaled copy gets the photo decoded straight to it.
    const decoded = await images.decode(bytes, name, { maxSide: decodeMaxSideFor(registry, steps) });
    const ctx = createContext(images, { models: await modelLoader() });
    let masks: JobSuccess['masks'];
    const maskPngs = async (m: { fruit: Uint8Array; bruise: Uint8Array; width: number; height: number }) => ({
      fruit: await maskPng(m.fruit, m.width, m.height),
      bruise: await maskPng(m.bruise, m.width, m.height),
    });
    let raw: Record<string, unknown>;
    const bruiseStep = steps.find((s) => s.plugin === 'bruise');
    if (job.bruiseMasks && bruiseStep && steps.length === 1) {
      // Score once and write the masks of that same analysis.
      const options = BruiseOptions.parse(bruiseStep.options ?? {});
      const scored = await scoreBruise(decoded, options, ctx);
      raw = BruiseResult.parse(scored.item);
      masks = await maskPngs(fullResolutionMasks(scored.analysis));
    } else {
      raw = (await runPipeline(registry, steps, decoded, ctx)) as Record<string, unknown>;
      // Masks of the photo itself when the bruise step follows other steps.
      if (job.bruiseMasks && bruiseStep) {
        const options = BruiseOptions.parse(bruiseStep.options ?? {});
        masks = await maskPngs(await bruiseMasks(decoded, options, { models: ctx.models }));
      }
    }
    const result: Record<string, unknown> = {};
    let image: Uint8Array | undefined;
    for (const [k, v] of Object.entries(raw)) {
      if (isRaster(v)) {
        if (job.output) image = await encodeImage(v, job.output.format, { quality: job.output.quality });
      } else result[k] = v;
    }
    return { ok: true, name, result, image, masks };
  } catch (e) {
    if (isMangoError(e)) return { ok: false, name, error: { code: e.code, status: e.status, message: e.message } };
    const err = e as NodeJS.ErrnoException;
    if (err?.code === 'ENOENT' || err?.code === 'EACCES' || err?.code === 'EISDIR') {
      return { ok: false, name, error: { code: 'INVALID_INPUT', status: 400, message: `${name}: ${err.message}` } };
    }
    return {
      ok: false,
      name,
      error: { code: 'INTERNAL', status: 500, message: `${name}: ${String(err?.message ?? e)}` },
    };
  }
}
