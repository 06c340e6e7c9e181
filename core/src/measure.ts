/** Measurements on masks and label images, pure: overlap, bounding boxes per label, convex hulls. */

/** Pixel counts of two masks (any non-zero value is set) and of their intersection and union. */
export interface MaskOverlap {
  a: number;
  b: number;
  intersection: number;
  union: number;
  /** intersection / union, 1 when both masks are empty */
  iou: number;
}

/** Counts of `a`, `b`, both and either (any non-zero value is set). */
export function maskOverlap(a: ArrayLike<number>, b: ArrayLike<number>): MaskOverlap {
  if (a.length !== b.length) throw new RangeError(`mask sizes differ: ${a.length} vs ${b.length}`);
  let na = 0,
    nb = 0,
    inter = 0,
    union = 0;
  for (let i = 0; i < a.length; i++) {
    const x = a[i] ? 1 : 0;
    const y = b[i] ? 1 : 0;
    na += x;
    nb += y;
    inter += x & y;
    union += x | y;
  }
  return { a: na, b: nb, intersection: inter, union, iou: union === 0 ? 1 : inter / union };
}

/** Intersection over union of two binary masks (any non-zero value is set; 1 when both are empty). */
export function maskIoU(a: ArrayLike<number>, b: ArrayLike<number>): number {
  return maskOverlap(a, b).iou;
}

/** Pixel count and centroid (mean column x, mean row y) of a mask's set pixels, from exact integer sums; 0, 0 when empty. */
export function maskCentroid(mask: ArrayLike<number>, width: number, height: number) {
  let area = 0;
  let sx = 0;
  let sy = 0;
  for (let y = 0; y < height; y++)
    for (let x = 0; x < width; x++)
      if (mask[y * width + x]) {
        area++;
        sx += x;
        sy += y;
      }
  return { area, x: area ? sx / area : 0, y: area ? sy / area : 0 };
}

/** A label's bounding box (inclusive corners) and pixel count. */
export interface LabelBox {
  x0: number;
  y0: number;
  x1: number;
  y1: number;
  area: number;
}

/** Bounding box and area of every label 1..count of a label image in one pass (null for an absent label). */
export function labelBoxes(labels: Int32Array, width: number, height: number, count: number): (LabelBox | null)[] {
  const boxes: (LabelBox | null)[] = new Array(count + 1).fill(null);
  for (let y = 0; y < height; y++) {
    for (let x = 0; x < width; x++) {
      const k = labels[y * width + x];
      if (!k) continue;
      const b = boxes[k];
      if (!b) boxes[k] = { x0: x, y0: y, x1: x, y1: y, area: 1 };
      else {
        if (x < b.x0) b.x0 = x;
        if (x > b.x1) b.x1 = x;
        if (y > b.y1) b.y1 = y;
        b.area++;
      }
    }
  }
  return boxes;
}

function cross(o: number, a: number, b: number, p: ArrayLike<number>): number {
  return (p[2 * a] - p[2 * o]) * (p[2 * b + 1] - p[2 * o + 1]) - (p[2 * a + 1] - p[2 * o + 1]) * (p[2 * b] - p[2 * o]);
}

/**
 * Convex hull of points given flat as (p, q) pairs (Andrew's monotone chain): the vertices, flat,
 * from the smallest (p, q) around, collinear and repeated points dropped; fewer than 3 distinct
 * points come back as they are (deduplicated, sorted).
 */
export function convexHull(points: ArrayLike<number>): number[] {
  const n = points.length / 2;
  const order = Array.from({ length: n }, (_, i) => i).sort(
    (a, b) => points[2 * a] - points[2 * b] || points[2 * a + 1] - points[2 * b + 1],
  );
  const idx: number[] = [];
  for (const i of order) {
    const last = idx[idx.length - 1];
    if (last === undefined || points[2 * last] !== points[2 * i] || points[2 * last + 1] !== points[2 * i + 1])
      idx.push(i);
  }
  if (idx.length < 3) return idx.flatMap((i) => [points[2 * i], points[2 * i + 1]]);
  const hull: number[] = [];
  for (const i of idx) {
    while (hull.length >= 2 && cross(hull[hull.length - 2], hull[hull.length - 1], i, points) <= 0) hull.pop();
    hull.push(i);
  }
  const lower = hull.length + 1;
  for (let k = idx.length - 2; k >= 0; k--) {
    const i = idx[k];
    while (hull.length >= lower && cross(hull[hull.length - 2], hull[hull.length - 1], i, points) <= 0) hull.pop();
    hull.push(i);
  }
  hull.pop();
  return hull.flatMap((i) => [points[2 * i], points[2 * i + 1]]);
}

/** The convex hull of a set of pixels (pixelHull). */
export interface PixelHull {
  /** Per row y (0..h-1): [minX, maxX] of the hull along the row's centres (the line y + 0.5), in pixel-corner units; [1, 0] where it misses. */
  rows: Float64Array;
  /** The number of pixels in the set (0 for a grown hull). */
  pixels: number;
  /** The hull's area (shoelace over its vertices), in pixels; 0 for fewer than 3 vertices. */
  area: number;
  /** The hull's vertices, flat (x, y) in pixel-corner units. */
  vertices: number[];
}

/** The hull of flat (x, y) points, its rows over h rows of pixel centres, with `pixels` as given. */
function hullOfPoints(points: number[], h: number, pixels: number): PixelHull {
  const hull = convexHull(points);
  const nv = hull.length / 2;
  const rows = new Float64Array(2 * h);
  for (let y = 0; y < h; y++) {
    rows[2 * y] = Infinity;
    rows[2 * y + 1] = -Infinity;
  }
  const widen = (y: number, x: number) => {
    if (y < 0 || y >= h) return;
    if (x < rows[2 * y]) rows[2 * y] = x;
    if (x > rows[2 * y + 1]) rows[2 * y + 1] = x;
  };
  let twice = 0;
  for (let k = 0; k < nv && nv >= 3; k++) {
    const j = (k + 1) % nv;
    const xa = hull[2 * k];
    const ya = hull[2 * k + 1];
    const xb = hull[2 * j];
    const yb = hull[2 * j + 1];
    twice += xa * yb - xb * ya;
    if (ya === yb) continue; // a level edge lies between rows of pixel centres
    const y0 = Math.min(ya, yb);
    const y1 = Math.max(ya, yb);
    // row y's pixel centres lie on the line y + 0.5
    for (let y = Math.max(0, Math.ceil(y0 - 0.5)); y + 0.5 <= y1 && y < h; y++)
      widen(y, xa + ((y + 0.5 - ya) / (yb - ya)) * (xb - xa));
  }
  for (let y = 0; y < h; y++) if (rows[2 * y] > rows[2 * y + 1]) [rows[2 * y], rows[2 * y + 1]] = [1, 0];
  return { rows, pixels, area: nv >= 3 ? Math.abs(twice) / 2 : 0, vertices: nv >= 3 ? hull : [] };
}

/** The corners of row y's run [lo, hi] of pixel squares: (lo, y), (hi + 1, y), (lo, y + 1), (hi + 1, y + 1). */
const pushRun = (points: number[], lo: number, hi: number, y: number) =>
  points.push(lo, y, hi + 1, y, lo, y + 1, hi + 1, y + 1);

/**
 * The convex hull of the unit squares of the pixels that `inside` accepts (index y * w + x) in a w x h
 * picture: only each row's first and last pixel can be a vertex, so 4 corners a row are enough.
 * `pixels / area` is the set's solidity (1 for a convex set, less for a bay or an arm).
 */
export function pixelHull(inside: (i: number) => boolean, w: number, h: number): PixelHull {
  const points: number[] = [];
  let pixels = 0;
  for (let y = 0; y < h; y++) {
    let lo = -1;
    let hi = -1;
    for (let x = 0; x < w; x++) {
      if (!inside(y * w + x)) continue;
      if (lo < 0) lo = x;
      hi = x;
      pixels++;
    }
    if (lo >= 0) pushRun(points, lo, hi, y);
  }
  return hullOfPoints(points, h, pixels);
}

/** pixelHull of every label 1..count of `labels` (w x h) in one pass; index 0 unused. */
export function labelHulls(labels: Int32Array, count: number, w: number, h: number): PixelHull[] {
  const lo = new Int32Array(count + 1);
  const hi = new Int32Array(count + 1);
  const pixels = new Float64Array(count + 1);
  const points: number[][] = Array.from({ length: count + 1 }, () => []);
  for (let y = 0; y < h; y++) {
    lo.fill(-1);
    const row = y * w;
    for (let x = 0; x < w; x++) {
      const l = labels[row + x];
      if (l <= 0 || l > count) continue;
      if (lo[l] < 0) lo[l] = x;
      hi[l] = x;
      pixels[l]++;
    }
    for (let l = 1; l <= count; l++) if (lo[l] >= 0) pushRun(points[l], lo[l], hi[l], y);
  }
  return points.map((p, l) => hullOfPoints(p, h, pixels[l]));
}

/**
 * The hull grown by `margin` pixels: its Minkowski sum with a regular 32-gon of that radius circumscribing
 * the disk (so every point within `margin` of the hull is inside; corners stick out by at most 0.5 % of it).
 */
export function grownHull(hull: PixelHull, margin: number, h: number): PixelHull {
  const v = hull.vertices;
  const r = margin / Math.cos(Math.PI / 32);
  const points: number[] = [];
  for (let k = 0; k < v.length; k += 2)
    for (let d = 0; d < 32; d++) {
      const a = (2 * Math.PI * d) / 32;
      points.push(v[k] + r * Math.cos(a), v[k + 1] + r * Math.sin(a));
    }
  return hullOfPoints(points, h, 0);
}

/** The pixels whose centres the hull's rows cover (a w x h mask of 0/1). */
export function hullMask(hull: PixelHull, w: number, h: number): Uint8Array {
  const out = new Uint8Array(w * h);
  for (let y = 0; y < h; y++) {
    const x0 = Math.max(0, Math.ceil(hull.rows[2 * y] - 0.5));
    const x1 = Math.min(w - 1, Math.floor(hull.rows[2 * y + 1] - 0.5));
    for (let x = x0; x <= x1; x++) out[y * w + x] = 1;
  }
  return out;
}

/**
 * The labels `keep` accepts (1..count), renumbered 1..k in their order; every other label becomes 0
 * (background). `keep` gets each label and its pixel count. Answers the input as it is when all are kept.
 */
export function keepLabels(
  labels: Int32Array,
  count: number,
  keep: (label: number, pixels: number) => boolean,
): { labels: Int32Array; count: number } {
  const sizes = new Int32Array(count + 1);
  for (const l of labels) sizes[l]++;
  const map = new Int32Array(count + 1);
  let kept = 0;
  for (let l = 1; l <= count; l++) if (keep(l, sizes[l])) map[l] = ++kept;
  if (kept === count) return { labels, count };
  const out = new Int32Array(labels.length);
  for (let i = 0; i < labels.length; i++) out[i] = map[labels[i]];
  return { labels: out, count: kept };
}
