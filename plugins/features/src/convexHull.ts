/**
 * skimage.morphology.convex_hull_image for a 2-D mask: the hull of the mid-points of the outer
 * edges of every pixel ((r +- 0.5, c) and (r, c +- 0.5)), rasterised by testing pixel centres with
 * skimage's point_in_polygon (vertex and edge points count as inside).
 */

import { convexHull } from '@mango/core';

/** (row, col) pairs, flat. */
type Points = number[];

/** skimage's point_in_polygon: 0 outside, 1 inside, 2 vertex, 3 edge. */
export function pointInPolygon(xp: Float64Array, yp: Float64Array, x: number, y: number): number {
  const nv = xp.length;
  const eps = 1e-12;
  let lCross = 0;
  let rCross = 0;
  let x1 = xp[nv - 1] - x;
  let y1 = yp[nv - 1] - y;
  for (let i = 0; i < nv; i++) {
    const x0 = xp[i] - x;
    const y0 = yp[i] - y;
    if (-eps < x0 && x0 < eps && -eps < y0 && y0 < eps) return 2;
    if (y0 > 0 !== y1 > 0 && (x0 * y1 - x1 * y0) / (y1 - y0) > 0) rCross++;
    if (y0 < 0 !== y1 < 0 && (x0 * y1 - x1 * y0) / (y1 - y0) < 0) lCross++;
    x1 = x0;
    y1 = y0;
  }
  if ((rCross & 1) !== (lCross & 1)) return 3;
  return rCross & 1 ? 1 : 0;
}

/** Number of pixels of the convex hull image of `mask` (w x h). */
export function convexArea(mask: Uint8Array, width: number, height: number): number {
  // Only the first and last pixel of each row and column can be hull vertices (skimage's possible_hull).
  const pts: Points = [];
  const add = (r: number, c: number) => pts.push(r - 0.5, c, r + 0.5, c, r, c - 0.5, r, c + 0.5);
  const firstRow = new Int32Array(width).fill(-1);
  const lastRow = new Int32Array(width).fill(-1);
  for (let r = 0; r < height; r++) {
    let first = -1;
    let last = -1;
    const row = r * width;
    for (let c = 0; c < width; c++)
      if (mask[row + c]) {
        if (first < 0) first = c;
        last = c;
        if (firstRow[c] < 0) firstRow[c] = r;
        lastRow[c] = r;
      }
    if (first >= 0) {
      add(r, first);
      if (last !== first) add(r, last);
    }
  }
  for (let c = 0; c < width; c++) {
    if (firstRow[c] < 0) continue;
    add(firstRow[c], c);
    if (lastRow[c] !== firstRow[c]) add(lastRow[c], c);
  }
  const hull = convexHull(pts);
  const nv = hull.length / 2;
  const xp = new Float64Array(nv);
  const yp = new Float64Array(nv);
  for (let i = 0; i < nv; i++) {
    xp[i] = hull[2 * i];
    yp[i] = hull[2 * i + 1];
  }
  let area = 0;
  for (let m = 0; m < height; m++) {
    // columns where the row m meets the hull
    let lo = Infinity;
    let hi = -Infinity;
    for (let i = 0; i < nv; i++) {
      const j = (i + 1) % nv;
      const r0 = xp[i];
      const r1 = xp[j];
      if (m < Math.min(r0, r1) || m > Math.max(r0, r1)) continue;
      if (r0 === r1) {
        lo = Math.min(lo, yp[i], yp[j]);
        hi = Math.max(hi, yp[i], yp[j]);
      } else {
        const c = yp[i] + ((m - r0) * (yp[j] - yp[i])) / (r1 - r0);
        lo = Math.min(lo, c);
        hi = Math.max(hi, c);
      }
    }
    if (lo > hi) continue;
    const left = Math.max(0, Math.floor(lo) - 1);
    const right = Math.min(width - 1, Math.ceil(hi) + 1);
    if (right - left < 8) {
      for (let n = left; n <= right; n++) if (pointInPolygon(xp, yp, m, n)) area++;
    } else {
      for (let n = left; n < left + 4; n++) if (pointInPolygon(xp, yp, m, n)) area++;
      for (let n = right - 3; n <= right; n++) if (pointInPolygon(xp, yp, m, n)) area++;
      area += right - 3 - (left + 4); // strictly inside: at least 2 columns from either crossing
    }
  }
  return area;
}
