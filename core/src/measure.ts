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
