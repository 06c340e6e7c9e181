/** Raster images on screen: a canvas holding the pixels, for Konva to draw. */
import type { RasterImage } from '@mango/core';
import { toImageData } from '@mango/core/browser';

export function rasterToCanvas(image: RasterImage): HTMLCanvasElement {
  const c = document.createElement('canvas');
  c.width = image.width;
  c.height = image.height;
  c.getContext('2d')?.putImageData(toImageData(image), 0, 0);
  return c;
}
