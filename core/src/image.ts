/** An 8-bit RGBA raster, row-major, 4 bytes per pixel. Every plugin works on this type. */
export interface RasterImage {
  width: number;
  height: number;
  data: Uint8ClampedArray;
  /**
   * Set when a decoder delivered a reduced copy of a larger photo (shrink-on-load, see
   * `Plugin.decodeMaxSide`): the photo's own size. Plugins that report pixel counts or sizes
   * report them at this size.
   */
  source?: { width: number; height: number };
  /**
   * Set by the decoders when the photo was a JPEG: the IJG quality (1-100) its luminance
   * quantisation table stands for (core/src/jpeg.ts), for checks of heavy compression.
   */
  jpegQuality?: number;
}

/** The size of the photo a raster stands for: its `source` when it is a reduced copy, else its own. */
export function sourceSize(image: RasterImage): { width: number; height: number } {
  return image.source ?? { width: image.width, height: image.height };
}

export function createImage(width: number, height: number, fill?: [number, number, number, number]): RasterImage {
  if (!Number.isInteger(width) || !Number.isInteger(height) || width <= 0 || height <= 0) {
    throw new RangeError(`image size must be positive integers, got ${width}x${height}`);
  }
  const data = new Uint8ClampedArray(width * height * 4);
  if (fill) {
    for (let i = 0; i < data.length; i += 4) {
      data[i] = fill[0];
      data[i + 1] = fill[1];
      data[i + 2] = fill[2];
      data[i + 3] = fill[3];
    }
  }
  return { width, height, data };
}

/** True when any pixel is not fully opaque (features.md: then the alpha channel is the mask). */
export function hasTransparency(image: RasterImage): boolean {
  const d = image.data;
  for (let i = 3; i < d.length; i += 4) if (d[i] !== 255) return true;
  return false;
}

export function pixelCount(image: RasterImage): number {
  return image.width * image.height;
}
