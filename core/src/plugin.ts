import { z } from 'zod';
import type { RasterImage } from './image.ts';
import type { Mask } from './mask.ts';
import { MangoError, throwIfAborted } from './errors.ts';
import type { ModelLoader } from './models.ts';
import type { RunDeclaration } from './runs.ts';
import { noModels } from './models.ts';

export type PluginKind = 'transform' | 'analysis';
export type Runtime = 'node' | 'browser';

export interface Logger {
  debug(message: string, data?: unknown): void;
  info(message: string, data?: unknown): void;
  warn(message: string, data?: unknown): void;
  error(message: string, data?: unknown): void;
}

export interface DecodedImage extends RasterImage {
  /** Source format as detected from the bytes (jpeg, png, webp, ...). */
  format: string;
  /** True when the source had an alpha channel. */
  hasAlpha: boolean;
}

export interface DecodeOptions {
  /**
   * Deliver a copy whose long side is at most this many pixels when the photo is larger (JPEG
   * shrink-on-load in sharp: far cheaper than a full decode followed by a resize). The copy's
   * `source` holds the photo's size.
   */
  maxSide?: number;
}

/** Decoding, encoding and resampling: sharp in Node, canvas in the browser. */
export interface ImageBackend {
  decode(bytes: Uint8Array, name?: string, options?: DecodeOptions): Promise<DecodedImage>;
  encode(image: RasterImage, format: 'png' | 'jpeg', options?: { quality?: number }): Promise<Uint8Array>;
  /** High-quality resampling (Lanczos in Node, high-quality smoothing in the browser). */
  resize(image: RasterImage, width: number, height: number): Promise<RasterImage>;
}

/**
 * An image a plugin returns beside its figures (an overlay, a mask): pixels, never encoded bytes or
 * a data URL. A picture names the format it is best encoded in; each front end encodes it for its
 * own wire (a file, PNG or JPEG bytes, a data URL); a mask (0/1) as an 8-bit image of 0 and 255.
 */
export type PluginImage =
  { kind: 'picture'; image: RasterImage; format: 'png' | 'jpeg'; quality?: number } | { kind: 'mask'; mask: Mask };

/** A result's `images`: extra images by name (see Plugin.images). Its schema checks the shape only. */
export type PluginImages = Partial<Record<string, PluginImage>>;
export const PluginImages = z.custom<PluginImages>((v) => typeof v === 'object' && v !== null && !Array.isArray(v));

export interface PluginContext {
  signal: AbortSignal;
  /** fraction in [0, 1] */
  progress: (fraction: number, message?: string) => void;
  logger: Logger;
  images: ImageBackend;
  models: ModelLoader;
  /** The photo's file name, for results that report it ('image' when the front end has none). */
  filename: string;
  /**
   * The extra images (Plugin.images) the front end asks for by name; a plugin computes only
   * these. Unset: the ones the plugin documents as its default.
   */
  want?: readonly string[];
  /**
   * The input image's pixels belong to this run: the front end decoded them for it and reads them
   * no more, so a transform may write its output into them instead of a fresh buffer (a 4000x3000
   * RGBA buffer is 48 MB of new memory). Unset: the input is left untouched.
   */
  ownsImage?: boolean;
  /**
   * The photo at its own size, decoded when called: set when the image given is a reduced copy
   * (shrink-on-load, `decodeMaxSide`), for the rare output that must be drawn at the photo's size
   * (a full-resolution overlay). Unset: the image given is the photo.
   */
  fullImage?: () => Promise<RasterImage>;
}

/** Whether the front end asked for the extra image `name` (ctx.want), or else `byDefault`. */
export function wantsImage(ctx: PluginContext, name: string, byDefault = false): boolean {
  return ctx.want ? ctx.want.includes(name) : byDefault;
}

export interface Plugin<O extends z.ZodType = z.ZodType, R extends z.ZodType = z.ZodType> {
  /** kebab-case, equal to the folder name under plugins/ */
  id: string;
  title: string;
  description: string;
  kind: PluginKind;
  version: string;
  options: O;
  result: R;
  runtimes: readonly Runtime[];
  /**
   * The long side of the image this plugin works on, for its options: a plugin that downscales
   * its input first (analysis on a working copy) declares it so that front ends can decode the
   * photo straight to that size. The image it then receives carries `source` (the photo's size).
   */
  decodeMaxSide?(options: z.output<O>): number | undefined;
  /**
   * The extra images the plugin can return in its result's `images` (name: what it shows), e.g.
   * an overlay or masks. A transform's output image is its result's `image`, not one of these.
   */
  images?: Readonly<Record<string, string>>;
  /**
   * How runs of this plugin are stored, listed and exported (core/src/runs.ts): front ends store
   * the runs of any plugin that declares them, by this declaration alone.
   */
  runs?: RunDeclaration;
  run(image: RasterImage, options: z.output<O>, ctx: PluginContext): Promise<z.output<R>>;
}

/** Any plugin, whatever its schemas (for registries and front ends that list plugins). */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export type AnyPlugin = Plugin<any, any>;

const ID = /^[a-z][a-z0-9]*(-[a-z0-9]+)*$/;

export function definePlugin<O extends z.ZodType, R extends z.ZodType>(plugin: Plugin<O, R>): Plugin<O, R> {
  if (!ID.test(plugin.id)) throw new MangoError('INVALID_INPUT', `plugin id must be kebab-case: ${plugin.id}`);
  if (plugin.runtimes.length === 0) throw new MangoError('INVALID_INPUT', `plugin ${plugin.id} declares no runtime`);
  return Object.freeze(plugin);
}

export const silentLogger: Logger = { debug() {}, info() {}, warn() {}, error() {} };

export const consoleLogger: Logger = {
  debug: (m, d) => (d === undefined ? console.debug(m) : console.debug(m, d)),
  info: (m, d) => (d === undefined ? console.info(m) : console.info(m, d)),
  warn: (m, d) => (d === undefined ? console.warn(m) : console.warn(m, d)),
  error: (m, d) => (d === undefined ? console.error(m) : console.error(m, d)),
};

export function createContext(
  images: ImageBackend,
  partial: Partial<Omit<PluginContext, 'images'>> = {},
): PluginContext {
  return {
    signal: partial.signal ?? new AbortController().signal,
    progress: partial.progress ?? (() => {}),
    logger: partial.logger ?? silentLogger,
    models: partial.models ?? noModels,
    filename: partial.filename ?? 'image',
    want: partial.want,
    ownsImage: partial.ownsImage,
    fullImage: partial.fullImage,
    images,
  };
}

/** Validates raw options with the plugin's schema (defaults filled in) and runs it. */
export async function runPlugin<O extends z.ZodType, R extends z.ZodType>(
  plugin: Plugin<O, R>,
  image: RasterImage,
  rawOptions: unknown,
  ctx: PluginContext,
): Promise<z.output<R>> {
  const parsed = plugin.options.safeParse(rawOptions ?? {});
  if (!parsed.success) {
    throw new MangoError('INVALID_INPUT', `invalid options for ${plugin.id}: ${z.prettifyError(parsed.error)}`);
  }
  throwIfAborted(ctx.signal);
  return plugin.run(image, parsed.data, ctx);
}
