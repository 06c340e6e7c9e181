/**
 * Rotation about the image centre onto a canvas grown to hold the whole rotated image, as the crop
 * page shows it. Positive degrees turn clockwise on screen (y points down).
 */
import type { RasterImage } from '@mango/core';

export interface Rotation {
  /** cosine and sine of the angle; exact for multiples of 90 degrees */
  cos: number;
  sin: number;
  /** size of the canvas that holds the rotated image */
  width: number;
  height: number;
}

export function normalizeDegrees(degrees: number): number {
  const d = degrees % 360;
  return d < 0 ? d + 360 : d;
}

export function rotation(srcWidth: number, srcHeight: number, degrees: number): Rotation {
  const d = normalizeDegrees(degrees);
  let cos: number;
  let sin: number;
  // Multiples of 90 use exact values so that those rotations permute pixels without resampling.
  if (d === 0) [cos, sin] = [1, 0];
  else if (d === 90) [cos, sin] = [0, 1];
  else if (d === 180) [cos, sin] = [-1, 0];
  else if (d === 270) [cos, sin] = [0, -1];
  else {
    const rad = (d * Math.PI) / 180;
    cos = Math.cos(rad);
    sin = Math.sin(rad);
  }
  const w = Math.abs(srcWidth * cos) + Math.abs(srcHeight * sin);
  const h = Math.abs(srcWidth * sin) + Math.abs(srcHeight * cos);
  // The tolerance keeps float noise (e.g. 4000.0000000001) from adding a column.
  return { cos, sin, width: Math.max(1, Math.ceil(w - 1e-6)), height: Math.max(1, Math.ceil(h - 1e-6)) };
}

/**
 * The rectangle (x, y, width, height) of the rotated canvas, sampled bilinearly from `image`;
 * pixels that fall outside the source are transparent. Colours are interpolated premultiplied by
 * alpha so the transparent surround does not darken the edges.
 */
export function rotateAndCrop(
  image: RasterImage,
  rot: Rotation,
  x: number,
  y: number,
  width: number,
  height: number,
): RasterImage {
  const sw = image.width;
  const sh = image.height;
  const src = image.data;
  const out = new Uint8ClampedArray(width * height * 4);
  const { cos, sin } = rot;
  const halfSrcW = sw / 2;
  const halfSrcH = sh / 2;
  const halfW = rot.width / 2;
  const halfH = rot.height / 2;
  let o = 0;
  for (let oy = 0; oy < height; oy++) {
    // Pixel centres of the rotated canvas, relative to its centre.
    const ry = y + oy + 0.5 - halfH;
    for (let ox = 0; ox < width; ox++, o += 4) {
      const rx = x + ox + 0.5 - halfW;
      // Inverse rotation back to source coordinates, then to the pixel grid (centres at .5).
      const sx = rx * cos + ry * sin + halfSrcW - 0.5;
      const sy = -rx * sin + ry * cos + halfSrcH - 0.5;
      if (sx <= -1 || sy <= -1 || sx >= sw || sy >= sh) continue;
      const x0 = Math.floor(sx);
      const y0 = Math.floor(sy);
      const fx = sx - x0;
      const fy = sy - y0;
      if (fx === 0 && fy === 0) {
        // On the grid (every multiple of 90 degrees): copy, so that rotation only permutes pixels.
        const i = (y0 * sw + x0) * 4;
        out[o] = src[i];
        out[o + 1] = src[i + 1];
        out[o + 2] = src[i + 2];
        out[o + 3] = src[i + 3];
        continue;
      }
      let a = 0;
      let r = 0;
      let g = 0;
      let b = 0;
      for (let k = 0; k < 4; k++) {
        const px = x0 + (k & 1);
        const py = y0 + (k >> 1);
        const wgt = ((k & 1) === 1 ? fx : 1 - fx) * (k >> 1 === 1 ? fy : 1 - fy);
        if (wgt === 0 || px < 0 || py < 0 || px >= sw || py >= sh) continue;
        const i = (py * sw + px) * 4;
        const wa = wgt * src[i + 3];
        a += wa;
        r += wa * src[i];
        g += wa * src[i + 1];
        b += wa * src[i + 2];
      }
      if (a <= 0) continue;
      out[o] = Math.round(r / a);
      out[o + 1] = Math.round(g / a);
      out[o + 2] = Math.round(b / a);
      out[o + 3] = Math.round(a);
    }
  }
  return { width, height, data: out };
}

/** Plain sub-array copy, for the unrotated case. */
export function cropRect(image: RasterImage, x: number, y: number, width: number, height: number): RasterImage {
  const out = new Uint8ClampedArray(width * height * 4);
  for (let row = 0; row < height; row++) {
    const start = ((y + row) * image.width + x) * 4;
    out.set(image.data.subarray(start, start + width * 4), row * width * 4);
  }
  return { width, height, data: out };
}
