/** The card's area in a raster: a mask of its outline, and a copy with it painted over. */
import type { RasterImage } from '../image.ts';
import { project, type Homography, type Point } from './geometry.ts';
import { cardOutline } from './detect.ts';
import { CARD_COLUMNS, CARD_ROWS } from './reference.ts';

/** 1 inside the convex quadrilateral `quad` (pixel centres), at width x height. */
export function quadMask(quad: Point[], width: number, height: number): Uint8Array {
  const mask = new Uint8Array(width * height);
  const xs = quad.map((p) => p.x);
  const ys = quad.map((p) => p.y);
  const x0 = Math.max(0, Math.floor(Math.min(...xs)));
  const x1 = Math.min(width - 1, Math.ceil(Math.max(...xs)));
  const y0 = Math.max(0, Math.floor(Math.min(...ys)));
  const y1 = Math.min(height - 1, Math.ceil(Math.max(...ys)));
  // Inside a convex polygon: on the same side of every edge.
  const sides = quad.map((p, k) => {
    const q = quad[(k + 1) % quad.length];
    return { ax: p.x, ay: p.y, dx: q.x - p.x, dy: q.y - p.y };
  });
  let area = 0;
  for (const e of sides) area += e.ax * (e.ay + e.dy) - (e.ax + e.dx) * e.ay;
  const dir = area >= 0 ? 1 : -1;
  for (let y = y0; y <= y1; y++) {
    for (let x = x0; x <= x1; x++) {
      let inside = true;
      for (const s of sides) {
        if (dir * (s.dx * (y + 0.5 - s.ay) - s.dy * (x + 0.5 - s.ax)) < 0) {
          inside = false;
          break;
        }
      }
      if (inside) mask[y * width + x] = 1;
    }
  }
  return mask;
}

/** The outline of a card (homography in pixels of a raster of `from` size) scaled to a raster of `to` size. */
export function scaleOutline(h: Homography, from: { width: number }, to: { width: number }, grow = 0): Point[] {
  const s = to.width / from.width;
  return cardOutline(h, grow).map((p) => ({ x: p.x * s, y: p.y * s }));
}

/**
 * A copy of `image` with the card (outline grown by 0.2 pitch) painted in the median colour of a ring
 * around it, so that the fruit segmentation sees the surface the card lies on. `h` is in pixels of a
 * raster `from` (scaled to `image`).
 */
export function paintOverCard(image: RasterImage, h: Homography, from: { width: number }): RasterImage {
  const s = image.width / from.width;
  const ring: number[][] = [[], [], []];
  const c0 = -0.5 - 0.9;
  const r0 = -0.5 - 1.2;
  const c1 = CARD_COLUMNS - 0.5 + 0.9;
  const r1 = CARD_ROWS - 0.5 + 1.2;
  const steps = 40;
  for (let k = 0; k < steps; k++) {
    const t = k / steps;
    for (const [u, v] of [
      [c0 + t * (c1 - c0), r0],
      [c1, r0 + t * (r1 - r0)],
      [c1 - t * (c1 - c0), r1],
      [c0, r1 - t * (r1 - r0)],
    ]) {
      const p = project(h, u, v);
      const x = Math.round(p.x * s);
      const y = Math.round(p.y * s);
      if (x < 0 || y < 0 || x >= image.width || y >= image.height) continue;
      for (let c = 0; c < 3; c++) ring[c].push(image.data[(y * image.width + x) * 4 + c]);
    }
  }
  const fill = ring.map((v) => (v.length ? [...v].sort((a, b) => a - b)[v.length >> 1] : 0));
  const mask = quadMask(scaleOutline(h, from, image, 0.2), image.width, image.height);
  const data = new Uint8ClampedArray(image.data);
  for (let i = 0; i < mask.length; i++) {
    if (!mask[i]) continue;
    data[i * 4] = fill[0];
    data[i * 4 + 1] = fill[1];
    data[i * 4 + 2] = fill[2];
  }
  return { ...image, data };
}
