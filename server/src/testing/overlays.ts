/**
 * Overlay pixels for tests (issue 28): which pixels of a bruise overlay are tinted as a lesion,
 * inside and outside a mask, so a test can tell the model's overlay from one drawn from corrected masks.
 */
import { readFileSync } from 'node:fs';
import type { RasterImage } from '@mango/core';
import { decodeImage } from '@mango/core/node';

/** A pixel tinted as a lesion: the overlay's tint (255, 0, 90) at 55 % leaves red well above green. */
export const tinted = (img: RasterImage, i: number) =>
  img.data[i * 4] - img.data[i * 4 + 1] > 90 && img.data[i * 4] > 150;

/** The 0/1 mask of a 0/255 PNG of the set. */
export async function maskOf(path: string) {
  const img = await decodeImage(readFileSync(path), path);
  const m = new Uint8Array(img.width * img.height);
  for (let i = 0; i < m.length; i++) m[i] = img.data[i * 4] >= 128 ? 1 : 0;
  return { width: img.width, height: img.height, mask: m };
}

/** A JPEG data URL's pixels. */
export const pixelsOf = (url: string) => decodeImage(Buffer.from(url.split(',')[1], 'base64'), 'thumb.jpg');

/**
 * Tinted pixels of `img` inside and outside `mask` (the photo's size, sampled at each pixel's
 * centre), skipping pixels within `margin` of the mask's edge (the downscale blends them).
 */
export function tintCounts(img: RasterImage, mask: { width: number; height: number; mask: Uint8Array }, margin = 2) {
  const k = mask.width / img.width;
  const at = (x: number, y: number) => {
    const mx = Math.min(mask.width - 1, Math.max(0, Math.floor((x + 0.5) * k)));
    const my = Math.min(mask.height - 1, Math.max(0, Math.floor((y + 0.5) * k)));
    return mask.mask[my * mask.width + mx];
  };
  let inside = 0;
  let insideTinted = 0;
  let outsideTinted = 0;
  for (let y = 0; y < img.height; y++)
    for (let x = 0; x < img.width; x++) {
      const v = at(x, y);
      let edge = false;
      for (let dy = -margin; dy <= margin && !edge; dy++)
        for (let dx = -margin; dx <= margin && !edge; dx++) edge = at(x + dx, y + dy) !== v;
      if (edge) continue;
      const t = tinted(img, y * img.width + x);
      if (v) {
        inside++;
        if (t) insideTinted++;
      } else if (t) outsideTinted++;
    }
  return { inside, insideTinted, outsideTinted };
}
