/**
 * One image job: read or take the bytes, decode (sharp: EXIF orientation, pixel limit, typed errors),
 * run a pipeline of plugins, encode the images the last step returns (a transform's image, the extra
 * images such as an overlay or masks). The runner knows no plugin: the file name and the extra images
 * asked for go to the plugins through their context. The server and the CLI run these jobs, on
 * worker threads through pool.ts, so a slow photo never blocks the event loop and a batch uses every core.
 */
import { createHash } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { basename } from 'node:path';
import sharp from 'sharp';
import {
  createContext,
  isMangoError,
  MangoError,
  noModels,
  decodeMaxSideFor,
  runPipeline,
  type Mask,
  type ModelLoader,
  type ModelManifestEntry,
  type PipelineStep,
  type PluginImage,
  type PluginImages,
  type RasterImage,
  sourceSize,
} from '@mango/core';
import { createNodeImageBackend, DEFAULT_MAX_PIXELS, encodeImage, thumbnailDataUrl } from '@mango/core/node';
import { registry } from '@mango/plugins';

export interface ImageJob {
  /** file name reported back and given to the plugins (ctx.filename; defaults to the path's base name) */
  name?: string;
  path?: string;
  bytes?: Uint8Array;
  steps: PipelineStep[];
  maxPixels?: number;
  /** largest accepted file, bytes */
  maxBytes?: number;
  /** encode a transform result's image */
  output?: { format: 'png' | 'jpeg'; quality?: number };
  /**
   * The extra images of the last step to return (its plugin's `images`, e.g. 'overlay',
   * 'fruit-mask'), encoded; unset: the ones the plugin returns by default.
   */
  images?: string[];
  /**
   * Also return a JPEG copy of the photo as decoded, long side at most this many pixels, as a data
   * URL (`thumbnail`): the photo thumbnail of a stored run or a results file, made from this
   * job's decode instead of decoding the file a second time.
   */
  thumbnail?: number;
  /**
   * Also return a JPEG copy, long side at most `maxSide`, of the last step's extra image `name`
   * (an overlay) or of a transform's output image (`name: 'output'`), as a data URL
   * (`imageThumbnail`): a stored run keeps it, made from the pixels before they are encoded.
   */
  imageThumbnail?: { name: string; maxSide: number };
  /**
   * The models this photo may use (manifest entries with absolute files: the registry's active
   * versions, fixed for a whole batch job); unset: the models of MODELS_DIR's manifest.
   */
  models?: ModelManifestEntry[];
}

/** An encoded image: a picture in the format its plugin named, a mask as an 8-bit PNG of 0 and 255. */
export interface EncodedImage {
  bytes: Uint8Array;
  mime: 'image/png' | 'image/jpeg';
}

export type JobSuccess = {
  ok: true;
  name: string;
  /** sha256 (hex) of the bytes the job read: provenance without reading the file a second time */
  sha256: string;
  /** the last step's result without its images (JSON) */
  result: Record<string, unknown>;
  /** a transform's image, encoded as `output` asked */
  image?: Uint8Array;
  /** the extra images by name */
  images: Record<string, EncodedImage>;
  /** the photo's thumbnail when the job asked for one (a data URL; absent when it could not be made) */
  thumbnail?: string;
  /** the thumbnail of the image `imageThumbnail` asked for (absent when the result has no such image) */
  imageThumbnail?: string;
  /** the photo's size as decoded (EXIF orientation applied) */
  size: { width: number; height: number };
};
export type JobFailure = {
  ok: false;
  name: string;
  /** sha256 (hex) of the bytes, when they could be read */
  sha256?: string;
  error: { code: string; status: number; message: string };
};
export type JobResult = JobSuccess | JobFailure;

/** Loaders by the models they offer ('' : MODELS_DIR's manifest); a few, as versions are activated. */
const loaders = new Map<string, Promise<ModelLoader>>();
const LOADERS_KEPT = 4;

/**
 * The ONNX model loader for the models a job offers, created once per thread and set of models (its
 * sessions are cached); without onnxruntime the classical methods still run. Its sessions get
 * MANGO_ORT_THREADS intra-op threads (set by createJobPool: the cores left per worker).
 */
function modelLoader(offered?: readonly ModelManifestEntry[]): Promise<ModelLoader> {
  const key = offered ? offered.map((m) => `${m.id}@${m.sha256}`).join(',') : '';
  let loader = loaders.get(key);
  if (!loader) {
    const options = { threads: Math.max(1, Number(process.env.MANGO_ORT_THREADS) || 1) };
    loader = import('@mango/models').then(
      (m) =>
        offered
          ? m.createEntriesLoader(offered, undefined, options)
          : m.createModelLoader(process.env.MODELS_DIR || undefined, options),
      () => noModels,
    );
    loaders.set(key, loader);
    // The oldest set goes (a version no longer active); its sessions are freed with it.
    if (loaders.size > LOADERS_KEPT) loaders.delete(loaders.keys().next().value!);
  }
  return loader;
}

/** A 0/1 mask as an 8-bit greyscale PNG holding 0 or 255. */
export async function maskPng({ data, width, height }: Pick<Mask, 'data' | 'width' | 'height'>): Promise<Uint8Array> {
  const grey = new Uint8Array(data.length);
  for (let i = 0; i < data.length; i++) grey[i] = data[i] ? 255 : 0;
  const buf = await sharp(grey, { raw: { width, height, channels: 1 } })
    .toColourspace('b-w') // sharp writes a one-band raw input as RGB unless told
    .png()
    .toBuffer();
  return new Uint8Array(buf.buffer, buf.byteOffset, buf.byteLength);
}

async function encodePluginImage(img: PluginImage): Promise<EncodedImage> {
  if (img.kind === 'mask') return { bytes: await maskPng(img.mask), mime: 'image/png' };
  const bytes = await encodeImage(img.image, img.format, { quality: img.quality });
  return { bytes, mime: img.format === 'png' ? 'image/png' : 'image/jpeg' };
}

function isRaster(v: unknown): v is RasterImage {
  return typeof v === 'object' && v !== null && 'data' in v && 'width' in v && 'height' in v;
}

export async function runImageJob(job: ImageJob): Promise<JobResult> {
  const name = job.name ?? (job.path ? basename(job.path) : 'image');
  let sha256: string | undefined;
  try {
    const bytes = job.bytes ?? (job.path ? new Uint8Array(await readFile(job.path)) : undefined);
    if (!bytes) throw new Error('the job has neither bytes nor a path');
    sha256 = createHash('sha256').update(bytes).digest('hex');
    if (job.maxBytes !== undefined && bytes.length > job.maxBytes) {
      throw new MangoError(
        'FILE_TOO_LARGE',
        `${name}: file is ${(bytes.length / 1048576).toFixed(1)} MB; the limit is ${(job.maxBytes / 1048576).toFixed(0)} MB`,
      );
    }
    const backend = createNodeImageBackend({ maxPixels: job.maxPixels ?? DEFAULT_MAX_PIXELS });
    // A one-step analysis that works on a downscaled copy gets the photo decoded straight to it.
    const decoded = await backend.decode(bytes, name, { maxSide: decodeMaxSideFor(registry, job.steps) });
    // Made before the plugins run: a transform may write its output into the decoded pixels.
    const thumbnail = job.thumbnail ? await thumbnailDataUrl(decoded, job.thumbnail).catch(() => undefined) : undefined;
    // The decoded pixels are this job's alone: a transform may write its output into them.
    const ctx = createContext(backend, {
      models: await modelLoader(job.models),
      filename: name,
      want: job.images,
      ownsImage: true,
      // A reduced decode: the photo at full size on demand (a full-resolution overlay).
      fullImage: decoded.source ? () => backend.decode(bytes, name) : undefined,
    });
    const size = sourceSize(decoded);
    const raw = (await runPipeline(registry, job.steps, decoded, ctx)) as Record<string, unknown>;
    const result: Record<string, unknown> = {};
    let image: Uint8Array | undefined;
    let imageThumbnail: string | undefined;
    const images: JobSuccess['images'] = {};
    const small = async (picture: RasterImage) =>
      job.imageThumbnail
        ? await thumbnailDataUrl(picture, job.imageThumbnail.maxSide).catch(() => undefined)
        : undefined;
    for (const [k, v] of Object.entries(raw)) {
      if (k === 'images' && typeof v === 'object' && v !== null) {
        for (const [n, img] of Object.entries(v as PluginImages)) {
          if (!img) continue;
          if (n === job.imageThumbnail?.name && img.kind === 'picture') imageThumbnail = await small(img.image);
          images[n] = await encodePluginImage(img);
        }
      } else if (isRaster(v)) {
        if (job.imageThumbnail?.name === 'output') imageThumbnail = await small(v);
        if (job.output) image = await encodeImage(v, job.output.format, { quality: job.output.quality });
      } else result[k] = v;
    }
    return {
      ok: true,
      name,
      sha256,
      result,
      image,
      images,
      size,
      ...(thumbnail ? { thumbnail } : {}),
      ...(imageThumbnail ? { imageThumbnail } : {}),
    };
  } catch (e) {
    if (isMangoError(e)) {
      return { ok: false, name, sha256, error: { code: e.code, status: e.status, message: e.message } };
    }
    const err = e as NodeJS.ErrnoException;
    if (err?.code === 'ENOENT' || err?.code === 'EACCES' || err?.code === 'EISDIR') {
      return {
        ok: false,
        name,
        sha256,
        error: { code: 'INVALID_INPUT', status: 400, message: `${name}: ${err.message}` },
      };
    }
    return {
      ok: false,
      name,
      sha256,
      error: { code: 'INTERNAL', status: 500, message: `${name}: ${String(err?.message ?? e)}` },
    };
  }
}
