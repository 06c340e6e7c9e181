/**
 * One image job: read or take the bytes, decode (sharp: EXIF orientation, pixel limit, typed errors),
 * run a pipeline of plugins, encode the resulting image. The server and the CLI run these jobs, on
 * worker threads through pool.ts, so a slow photo never blocks the event loop and a batch uses every core.
 */
import { readFile } from 'node:fs/promises';
import { basename } from 'node:path';
import { createContext, isMangoError, runPipeline, type PipelineStep, type RasterImage } from '@mango/core';
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
}

export type JobSuccess = { ok: true; name: string; result: Record<string, unknown>; image?: Uint8Array };
export type JobFailure = { ok: false; name: string; error: { code: string; status: number; message: string } };
export type JobResult = JobSuccess | JobFailure;

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
    const decoded = await images.decode(bytes, name);
    const steps = job.steps.map((s) =>
      s.plugin === 'bruise' ? { ...s, options: { filename: name, ...(s.options ?? {}) } } : s,
    );
    const raw = (await runPipeline(registry, steps, decoded, createContext(images))) as Record<string, unknown>;
    const result: Record<string, unknown> = {};
    let image: Uint8Array | undefined;
    for (const [k, v] of Object.entries(raw)) {
      if (isRaster(v)) {
        if (job.output) image = await encodeImage(v, job.output.format, { quality: job.output.quality });
      } else result[k] = v;
    }
    return { ok: true, name, result, image };
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
