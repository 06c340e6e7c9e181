/** Browser image backend on canvas (OffscreenCanvas where available, so it also works in Web Workers). */
import type { DecodedImage, DecodeOptions, ImageBackend } from '../plugin.ts';
import type { RasterImage } from '../image.ts';
import { corruptImage, emptyFile, unsupportedImage } from '../errors.ts';
import { jpegQuality } from '../jpeg.ts';

type AnyCanvas = OffscreenCanvas | HTMLCanvasElement;

function makeCanvas(width: number, height: number): AnyCanvas {
  if (typeof OffscreenCanvas !== 'undefined') return new OffscreenCanvas(width, height);
  const c = document.createElement('canvas');
  c.width = width;
  c.height = height;
  return c;
}

function context2d(c: AnyCanvas) {
  const ctx = c.getContext('2d') as CanvasRenderingContext2D | OffscreenCanvasRenderingContext2D | null;
  if (!ctx) throw new Error('2D canvas is not available');
  return ctx;
}

function sniff(bytes: Uint8Array): string | null {
  if (bytes[0] === 0xff && bytes[1] === 0xd8) return 'jpeg';
  if (bytes[0] === 0x89 && bytes[1] === 0x50 && bytes[2] === 0x4e && bytes[3] === 0x47) return 'png';
  if (bytes[0] === 0x52 && bytes[1] === 0x49 && bytes[8] === 0x57 && bytes[9] === 0x45) return 'webp';
  return null;
}

export function toImageData(image: RasterImage): ImageData {
  return new ImageData(new Uint8ClampedArray(image.data), image.width, image.height);
}

/**
 * Decodes with the EXIF orientation applied. With `maxSide`, a photo whose long side is larger is
 * drawn reduced to that long side (high-quality smoothing) and `source` holds its full size.
 */
export async function decodeImage(
  bytes: Uint8Array,
  name?: string,
  options: DecodeOptions = {},
): Promise<DecodedImage> {
  if (bytes.length === 0) throw emptyFile(name);
  const format = sniff(bytes);
  if (!format) throw unsupportedImage(`${name ? name + ': ' : ''}not a supported image (JPEG or PNG expected)`);
  let bitmap: ImageBitmap;
  try {
    bitmap = await createImageBitmap(new Blob([bytes as BlobPart]), { imageOrientation: 'from-image' });
  } catch (e) {
    throw corruptImage(`${name ? name + ': ' : ''}the image data is corrupt or truncated`, e);
  }
  const full = { width: bitmap.width, height: bitmap.height };
  const long = Math.max(full.width, full.height);
  const scale = options.maxSide !== undefined && long > options.maxSide ? options.maxSide / long : 1;
  const width = Math.max(1, Math.round(full.width * scale));
  const height = Math.max(1, Math.round(full.height * scale));
  const c = makeCanvas(width, height);
  const ctx = context2d(c);
  ctx.imageSmoothingEnabled = true;
  ctx.imageSmoothingQuality = 'high';
  ctx.drawImage(bitmap, 0, 0, width, height);
  const id = ctx.getImageData(0, 0, width, height);
  bitmap.close();
  let hasAlpha = false;
  for (let i = 3; i < id.data.length; i += 4)
    if (id.data[i] !== 255) {
      hasAlpha = true;
      break;
    }
  const image: DecodedImage = { width: id.width, height: id.height, data: id.data, format, hasAlpha };
  if (scale < 1) image.source = full;
  const quality = format === 'jpeg' ? jpegQuality(bytes) : null;
  if (quality !== null) image.jpegQuality = quality;
  return image;
}

export async function encodeImage(image: RasterImage, format: 'png' | 'jpeg', options: { quality?: number } = {}) {
  const c = makeCanvas(image.width, image.height);
  const ctx = context2d(c);
  if (format === 'jpeg') {
    ctx.fillStyle = '#ffffff';
    ctx.fillRect(0, 0, image.width, image.height);
    const tmp = makeCanvas(image.width, image.height);
    context2d(tmp).putImageData(toImageData(image), 0, 0);
    ctx.drawImage(tmp as CanvasImageSource, 0, 0);
  } else {
    ctx.putImageData(toImageData(image), 0, 0);
  }
  const type = format === 'png' ? 'image/png' : 'image/jpeg';
  const quality = (options.quality ?? 92) / 100;
  const blob =
    'convertToBlob' in c
      ? await c.convertToBlob({ type, quality })
      : await new Promise<Blob>((resolve, reject) =>
          (c as HTMLCanvasElement).toBlob((b) => (b ? resolve(b) : reject(new Error('encode failed'))), type, quality),
        );
  return new Uint8Array(await blob.arrayBuffer());
}

/** High-quality resampling: halves in steps (box filter) then one smooth final draw. */
export async function resizeImage(image: RasterImage, width: number, height: number): Promise<RasterImage> {
  let src: AnyCanvas = makeCanvas(image.width, image.height);
  context2d(src).putImageData(toImageData(image), 0, 0);
  let w = image.width;
  let h = image.height;
  while (w / 2 >= width && h / 2 >= height) {
    const nw = Math.max(width, Math.floor(w / 2));
    const nh = Math.max(height, Math.floor(h / 2));
    const step = makeCanvas(nw, nh);
    const sctx = context2d(step);
    sctx.imageSmoothingEnabled = true;
    sctx.imageSmoothingQuality = 'high';
    sctx.drawImage(src as CanvasImageSource, 0, 0, w, h, 0, 0, nw, nh);
    src = step;
    w = nw;
    h = nh;
  }
  const out = makeCanvas(width, height);
  const octx = context2d(out);
  octx.imageSmoothingEnabled = true;
  octx.imageSmoothingQuality = 'high';
  octx.drawImage(src as CanvasImageSource, 0, 0, w, h, 0, 0, width, height);
  const id = octx.getImageData(0, 0, width, height);
  return { width, height, data: id.data };
}

export const browserImages: ImageBackend = { decode: decodeImage, encode: encodeImage, resize: resizeImage };
