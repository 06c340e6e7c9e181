/** Node image backend on sharp: EXIF orientation applied, pixel limit enforced, clear typed errors. */
import sharp, { type Metadata } from 'sharp';
import type { DecodedImage, DecodeOptions, ImageBackend } from '../plugin.ts';
import { hasTransparency, type RasterImage } from '../image.ts';
import { MangoError, corruptImage, emptyFile, unsupportedImage } from '../errors.ts';
import { jpegQuality } from '../jpeg.ts';

export { readCsv } from './csv.ts';
export { splitByGroup } from './split.ts';

export const DEFAULT_MAX_MEGAPIXELS = 50;
export const DEFAULT_MAX_PIXELS = DEFAULT_MAX_MEGAPIXELS * 1_000_000;

/**
 * The largest accepted image in pixels from a setting in megapixels (the server's and the CLI's
 * MAX_MEGAPIXELS, the CLI's --max-megapixels): unset or blank gives DEFAULT_MAX_PIXELS; anything
 * but a number over 0 is an INVALID_INPUT error naming `name`.
 */
export function maxPixelsFromSetting(value: string | number | undefined, name = 'MAX_MEGAPIXELS'): number {
  if (value === undefined || (typeof value === 'string' && value.trim() === '')) return DEFAULT_MAX_PIXELS;
  const mp = Number(value);
  if (!Number.isFinite(mp) || mp <= 0) {
    throw new MangoError('INVALID_INPUT', `${name} must be a number of megapixels over 0 (got ${String(value)})`);
  }
  return Math.round(mp * 1_000_000);
}
/**
 * Side-length and aspect-ratio bounds: a thin image (1x49,000,000 px) stays under the pixel limit
 * yet costs minutes of CPU in the decoder and the plugins. 30,000 px is larger than any camera's long
 * side; 20:1 is wider than a panorama of a conveyor belt.
 */
export const DEFAULT_MAX_SIDE = 30_000;
export const DEFAULT_MAX_ASPECT = 20;
const FORMATS = new Set(['jpeg', 'png', 'webp', 'gif', 'tiff', 'avif', 'heif']);

export interface NodeBackendOptions {
  /** Largest accepted image in pixels (width x height); default 50 megapixels. */
  maxPixels?: number;
}

function knownSignature(b: Uint8Array): boolean {
  const jpeg = b[0] === 0xff && b[1] === 0xd8 && b[2] === 0xff;
  const png = b[0] === 0x89 && b[1] === 0x50 && b[2] === 0x4e && b[3] === 0x47;
  const webp = b[0] === 0x52 && b[1] === 0x49 && b[2] === 0x46 && b[3] === 0x46 && b[8] === 0x57;
  return jpeg || png || webp;
}

function label(name?: string) {
  return name ? `${name}: ` : '';
}

/** Reads the header only: format and size, with the same errors as decode. */
export async function probeImage(bytes: Uint8Array, name?: string, maxPixels = DEFAULT_MAX_PIXELS) {
  if (bytes.length === 0) throw emptyFile(name);
  let meta: Metadata;
  try {
    meta = await sharp(bytes, { limitInputPixels: false }).metadata();
  } catch (e) {
    // A known signature whose header cannot be read is a damaged file, anything else is not an image.
    if (knownSignature(bytes)) throw corruptImage(`${label(name)}the image data is corrupt or truncated`, e);
    throw unsupportedImage(`${label(name)}not a supported image (JPEG or PNG expected)`);
  }
  if (!meta.format || !FORMATS.has(meta.format)) {
    throw unsupportedImage(`${label(name)}unsupported image format ${meta.format ?? 'unknown'} (JPEG or PNG expected)`);
  }
  const width = meta.width ?? 0;
  const height = meta.height ?? 0;
  if (width * height > maxPixels) {
    throw new MangoError(
      'IMAGE_TOO_LARGE',
      `${label(name)}image is ${width}x${height} (${((width * height) / 1e6).toFixed(1)} megapixels); the limit is ${Number((maxPixels / 1e6).toFixed(2))} megapixels`,
    );
  }
  const long = Math.max(width, height);
  if (long > DEFAULT_MAX_SIDE) {
    throw new MangoError(
      'IMAGE_TOO_LARGE',
      `${label(name)}image is ${width}x${height}; the longest side accepted is ${DEFAULT_MAX_SIDE} pixels`,
    );
  }
  if (long > DEFAULT_MAX_ASPECT * Math.max(1, Math.min(width, height))) {
    throw new MangoError(
      'INVALID_INPUT',
      `${label(name)}image is ${width}x${height}; its long side may be at most ${DEFAULT_MAX_ASPECT} times its short side`,
    );
  }
  // EXIF orientations 5-8 turn the picture by a quarter: decoded, width and height swap.
  const turned = (meta.orientation ?? 1) >= 5;
  return {
    format: meta.format,
    width,
    height,
    hasAlpha: Boolean(meta.hasAlpha),
    oriented: turned ? { width: height, height: width } : { width, height },
  };
}

/**
 * Decodes to RGBA with the EXIF orientation applied. With `maxSide`, a photo whose long side is
 * larger comes back reduced to that long side (JPEG shrink-on-load: libjpeg decodes at 1/2, 1/4 or
 * 1/8 scale, then sharp finishes with a Lanczos reduction), with `source` set to its full size.
 */
export async function decodeImage(
  bytes: Uint8Array,
  name?: string,
  maxPixels = DEFAULT_MAX_PIXELS,
  options: DecodeOptions = {},
): Promise<DecodedImage> {
  const info = await probeImage(bytes, name, maxPixels);
  try {
    let pipeline = sharp(bytes, { limitInputPixels: maxPixels, failOn: 'error' }).rotate();
    const max = options.maxSide;
    if (max !== undefined && Math.max(info.width, info.height) > max) {
      pipeline = pipeline.resize({ width: max, height: max, fit: 'inside', withoutEnlargement: true });
    }
    const { data, info: out } = await pipeline.ensureAlpha().raw().toBuffer({ resolveWithObject: true });
    const image: DecodedImage = {
      width: out.width,
      height: out.height,
      data: new Uint8ClampedArray(data.buffer, data.byteOffset, data.byteLength),
      format: info.format,
      hasAlpha: info.hasAlpha,
    };
    if (max !== undefined && Math.max(info.width, info.height) > max) image.source = info.oriented;
    const quality = info.format === 'jpeg' ? jpegQuality(bytes) : null;
    if (quality !== null) image.jpegQuality = quality;
    return image;
  } catch (e) {
    throw corruptImage(`${label(name)}the image data is corrupt or truncated: ${(e as Error).message}`, e);
  }
}

/**
 * Checks that a raster is what the encoders read: positive integer width and height and exactly
 * width x height x 4 bytes of RGBA. A raster a plugin built wrongly must fail here as an error of
 * this call: the native PNG encoder aborts the whole process (a Rust panic) on a buffer that is too
 * long, and sharp reads whatever it is given.
 */
export function assertRgbaRaster(image: RasterImage, what: string): void {
  const { width: w, height: h, data } = image;
  if (!Number.isInteger(w) || !Number.isInteger(h) || w <= 0 || h <= 0) {
    throw new TypeError(`cannot ${what}: the image size ${w} x ${h} is not a positive whole number of pixels`);
  }
  if (!(data instanceof Uint8Array || data instanceof Uint8ClampedArray)) {
    throw new TypeError(`cannot ${what}: the pixels are not 8-bit RGBA bytes`);
  }
  if (data.length !== w * h * 4) {
    throw new TypeError(`cannot ${what}: a ${w} x ${h} RGBA image has ${w * h * 4} bytes, this one ${data.length}`);
  }
}

function rawInput(image: RasterImage) {
  assertRgbaRaster(image, 'encode the image');
  return sharp(Buffer.from(image.data.buffer, image.data.byteOffset, image.data.byteLength), {
    raw: { width: image.width, height: image.height, channels: 4 },
    limitInputPixels: false,
  });
}

/**
 * PNGs are written by @napi-rs/image (the Rust `png` crate) with its fast deflate (fdeflate) and
 * the Up filter rather than by sharp's libpng: lossless either way (the same pixels), but on a
 * 4000x3000 cut-out where the fruit fills the frame about 4x less CPU than sharp at zlib level 3
 * with no filter (75 vs 333 ms) for a smaller file (12.5 vs 14.8 MB); on cut-outs with more
 * background 2-3x less CPU for files 5-10 % larger. sharp's own fastest setting (zlib level 1) is
 * still 2.5x slower and 1.5-1.8x larger; its adaptive filtering is smaller but 2-4x slower. Figures
 * in plugins/remove-background/README.md. Loaded on the first PNG (an 18 MB native module that a
 * decode-only command never needs); where it has no build for the platform, sharp writes the PNG.
 */
type PngEncoder = (image: RasterImage) => Promise<Uint8Array>;
let pngEncoder: Promise<PngEncoder> | null = null;

/** sharp's PNG: zlib level 3, no filter (lossless; the fallback where @napi-rs/image cannot load). */
export async function encodePngWithSharp(image: RasterImage): Promise<Uint8Array> {
  const buf = await rawInput(image).png({ compressionLevel: 3 }).toBuffer();
  return new Uint8Array(buf.buffer, buf.byteOffset, buf.byteLength);
}

function loadPngEncoder(): Promise<PngEncoder> {
  pngEncoder ??= import('@napi-rs/image').then(
    ({ Transformer, CompressionType, FilterType }): PngEncoder =>
      async (image) => {
        assertRgbaRaster(image, 'write the PNG');
        const buf = await Transformer.fromRgbaPixels(image.data, image.width, image.height).png({
          compressionType: CompressionType.Fast,
          filterType: FilterType.Up,
        });
        return new Uint8Array(buf.buffer, buf.byteOffset, buf.byteLength);
      },
    (e: Error) => {
      // Said once per process, so a slow PNG path is never silent.
      process.emitWarning(
        `PNG encoder @napi-rs/image not loaded (${e.message}): PNGs are written by sharp, 2-4x slower`,
      );
      return encodePngWithSharp;
    },
  );
  return pngEncoder;
}

export async function encodeImage(image: RasterImage, format: 'png' | 'jpeg', options: { quality?: number } = {}) {
  if (format === 'png') return (await loadPngEncoder())(image);
  const s = rawInput(image);
  const buf = await (hasTransparency(image) ? s.flatten({ background: '#ffffff' }) : s.removeAlpha())
    .jpeg({ quality: options.quality ?? 92 })
    .toBuffer();
  return new Uint8Array(buf.buffer, buf.byteOffset, buf.byteLength);
}

export async function resizeImage(image: RasterImage, width: number, height: number): Promise<RasterImage> {
  const { data, info } = await rawInput(image)
    .resize(width, height, { fit: 'fill', kernel: 'lanczos3' })
    .ensureAlpha()
    .raw()
    .toBuffer({ resolveWithObject: true });
  return {
    width: info.width,
    height: info.height,
    data: new Uint8ClampedArray(data.buffer, data.byteOffset, data.byteLength),
  };
}

export function createNodeImageBackend(options: NodeBackendOptions = {}): ImageBackend {
  const maxPixels = options.maxPixels ?? DEFAULT_MAX_PIXELS;
  return {
    decode: (bytes, name, options) => decodeImage(bytes, name, maxPixels, options),
    encode: encodeImage,
    resize: resizeImage,
  };
}

export const nodeImages = createNodeImageBackend();

/**
 * A small JPEG copy of a picture (the photo and overlay thumbnails of stored runs, results files and
 * reports), long side at most `maxSide`, as a data URL. The picture is encoded bytes (turned by
 * their EXIF orientation) or pixels already decoded (a job's own decode: the photo is not decoded
 * a second time).
 */
export async function thumbnailDataUrl(picture: Uint8Array | RasterImage, maxSide: number): Promise<string> {
  const source = picture instanceof Uint8Array ? sharp(picture).rotate() : rawInput(picture);
  const buf = await source
    .resize(maxSide, maxSide, { fit: 'inside', withoutEnlargement: true })
    .flatten({ background: '#ffffff' })
    .jpeg({ quality: 80 })
    .toBuffer();
  return `data:image/jpeg;base64,${buf.toString('base64')}`;
}
