/**
 * The overlay image: fruit outlined, bruises tinted and outlined, the reference object ringed, the
 * colour card outlined. Pure; encoding is the caller's.
 */
import { downscaleArea, fitSize, resizeMaskNearest } from '@mango/core';
import { fromByteArray } from 'base64-js';
import type { RasterImage } from '@mango/core';

const FRUIT_OUTLINE: [number, number, number] = [0, 210, 255];
const BRUISE_TINT: [number, number, number] = [255, 0, 90];
const TINT_ALPHA = 0.55;
const REFERENCE_RING: [number, number, number] = [255, 220, 0];
const CARD_OUTLINE: [number, number, number] = [60, 255, 60];

/** A circle in the photo's full-resolution pixels (the reference object), drawn as a ring. */
export interface OverlayCircle {
  x: number;
  y: number;
  diameter: number;
  /** the photo's full size the circle is measured in */
  photoWidth: number;
}

/** A quadrilateral in the pixels of a raster `rasterWidth` wide (the colour card's outline), drawn as a thin outline. */
export interface OverlayQuad {
  corners: readonly { x: number; y: number }[];
  rasterWidth: number;
}

/** What a result says of the objects its overlay marks besides the masks (`reference`, `colour_card`). */
export interface OverlayMarks {
  reference?: { x: number; y: number; diameter_px: number } | null;
  colour_card?: { found?: boolean; outline?: readonly { x: number; y: number }[] } | null;
}

/**
 * The reference ring and the colour-card outline an overlay draws, from a result's fields (both in
 * the photo's full-resolution pixels; `photoWidth` is its full width): the model's overlay and an
 * overlay of corrected masks mark the same objects.
 */
export function overlayDecorations(
  marks: OverlayMarks,
  photoWidth: number,
): { reference?: OverlayCircle; card?: OverlayQuad } {
  const ref = marks.reference;
  const outline = marks.colour_card?.found ? marks.colour_card.outline : undefined;
  return {
    ...(ref ? { reference: { x: ref.x, y: ref.y, diameter: ref.diameter_px, photoWidth } } : {}),
    ...(outline && outline.length >= 3 ? { card: { corners: outline, rasterWidth: photoWidth } } : {}),
  };
}

/** Distance from (px, py) to the segment a-b. */
function segmentDistance(px: number, py: number, ax: number, ay: number, bx: number, by: number): number {
  const dx = bx - ax;
  const dy = by - ay;
  const len2 = dx * dx + dy * dy;
  const t = len2 ? Math.min(1, Math.max(0, ((px - ax) * dx + (py - ay) * dy) / len2)) : 0;
  return Math.hypot(px - ax - t * dx, py - ay - t * dy);
}

function edge(mask: Uint8Array, w: number, h: number, i: number): boolean {
  const x = i % w;
  return (
    (x > 0 && !mask[i - 1]) ||
    (x < w - 1 && !mask[i + 1]) ||
    (i >= w && !mask[i - w]) ||
    (i < (h - 1) * w && !mask[i + w])
  );
}

/**
 * Draws the overlay on a copy of `image` (downscaled to maxSide when larger): `fruit` and `bruise`
 * are masks of `image`'s size. The outline is 1 px, 2 px when the overlay is larger than 800 px.
 */
export function renderOverlay(
  image: RasterImage,
  fruit: Uint8Array,
  bruise: Uint8Array,
  maxSide: number,
  reference?: OverlayCircle,
  card?: OverlayQuad,
): RasterImage {
  const size = fitSize(image.width, image.height, maxSide);
  const base = downscaleArea(image, size.width, size.height);
  const w = base.width;
  const h = base.height;
  const f = resizeMaskNearest(fruit, image.width, image.height, w, h);
  const b = resizeMaskNearest(bruise, image.width, image.height, w, h);
  const out = new Uint8ClampedArray(base.data);
  const thick = Math.max(w, h) > 800;
  const paint = (i: number, c: [number, number, number]) => {
    out[i * 4] = c[0];
    out[i * 4 + 1] = c[1];
    out[i * 4 + 2] = c[2];
    out[i * 4 + 3] = 255;
  };
  for (let i = 0; i < w * h; i++) {
    out[i * 4 + 3] = 255;
    if (b[i]) {
      if (edge(b, w, h, i)) paint(i, BRUISE_TINT);
      else for (let c = 0; c < 3; c++) out[i * 4 + c] = out[i * 4 + c] * (1 - TINT_ALPHA) + BRUISE_TINT[c] * TINT_ALPHA;
    }
  }
  for (let i = 0; i < w * h; i++) {
    if (!f[i] || !edge(f, w, h, i)) continue;
    paint(i, FRUIT_OUTLINE);
    if (thick) {
      // Second pixel inward, toward the fruit's interior neighbour.
      const x = i % w;
      if (x > 0 && f[i - 1]) paint(i - 1, FRUIT_OUTLINE);
      if (x < w - 1 && f[i + 1]) paint(i + 1, FRUIT_OUTLINE);
    }
  }
  if (reference) {
    // The reference object found for the scale: a yellow ring on its measured outline.
    const k = w / reference.photoWidth;
    const cx = reference.x * k - 0.5;
    const cy = reference.y * k - 0.5;
    const r = (reference.diameter * k) / 2;
    const half = thick ? 1.5 : 1;
    for (let y = Math.max(0, Math.floor(cy - r - 2)); y <= Math.min(h - 1, Math.ceil(cy + r + 2)); y++)
      for (let x = Math.max(0, Math.floor(cx - r - 2)); x <= Math.min(w - 1, Math.ceil(cx + r + 2)); x++) {
        if (Math.abs(Math.hypot(x - cx, y - cy) - r) <= half) paint(y * w + x, REFERENCE_RING);
      }
  }
  if (card) {
    // The colour card found for the correction (and maybe the scale): a thin green outline of its quadrilateral.
    const k = w / card.rasterWidth;
    const pts = card.corners.map((c) => ({ x: c.x * k - 0.5, y: c.y * k - 0.5 }));
    const half = thick ? 1 : 0.5;
    const xs = pts.map((p) => p.x);
    const ys = pts.map((p) => p.y);
    for (
      let y = Math.max(0, Math.floor(Math.min(...ys) - 2));
      y <= Math.min(h - 1, Math.ceil(Math.max(...ys) + 2));
      y++
    )
      for (
        let x = Math.max(0, Math.floor(Math.min(...xs) - 2));
        x <= Math.min(w - 1, Math.ceil(Math.max(...xs) + 2));
        x++
      )
        for (let e = 0; e < pts.length; e++) {
          const a = pts[e];
          const b = pts[(e + 1) % pts.length];
          if (segmentDistance(x, y, a.x, a.y, b.x, b.y) <= half) {
            paint(y * w + x, CARD_OUTLINE);
            break;
          }
        }
  }
  return { width: w, height: h, data: out };
}

/** Standard base64 of bytes, the same in Node and the browser (base64-js: no Buffer or btoa needed). */
export function toBase64(bytes: Uint8Array): string {
  return fromByteArray(bytes);
}

export function dataUrl(bytes: Uint8Array, mime: 'image/jpeg' | 'image/png'): string {
  return `data:${mime};base64,${toBase64(bytes)}`;
}
