/**
 * The reference scale: a circular object of known diameter (a coin, a round sticker) photographed
 * beside the fruit gives the pixels per centimetre. Definition and method: README.md, "Reference
 * scale". Pure functions over RasterImage and label images.
 */
import type { RasterImage } from '@mango/core';
import { keepLabels, sourceSize } from '@mango/core';

/** Where the reference object is, in full-resolution pixels of the photo. */
export interface ReferenceObject {
  /** centre */
  x: number;
  y: number;
  /** diameter (from the refined area: 2 * sqrt(area / pi)) */
  diameter_px: number;
  /** 0..1: how closely the object's outline is a circle */
  confidence: number;
}

/** Shape measures of one labelled component (working resolution). */
export interface RoundnessMeasures {
  label: number;
  pixels: number;
  cx: number;
  cy: number;
  /** minor / major axis of the ellipse with the same second moments (1 = circle) */
  axisRatio: number;
  /** standard deviation / mean of the outline pixels' distance to the centroid (0 = circle) */
  radialCv: number;
}

/** An outline at least this round (axis ratio) may be the reference; side views of mangoes are well below. */
export const MIN_AXIS_RATIO = 0.9;
/** Largest radial coefficient of variation of a reference outline (a digitised circle of 10 px radius: about 0.03). */
export const MAX_RADIAL_CV = 0.06;
/** Fewest working-copy pixels of a reference object (a disc of about 9 px across). */
export const MIN_REFERENCE_PIXELS = 64;
/** Colour contrast (RGB distance) between object and surround below which the edge is not refined. */
const MIN_EDGE_CONTRAST = 12;

/** Area, centroid, second-moment axis ratio and radial spread of each label 1..count. */
export function roundness(labels: Int32Array, width: number, height: number, count: number): RoundnessMeasures[] {
  const n = new Float64Array(count + 1);
  const sx = new Float64Array(count + 1);
  const sy = new Float64Array(count + 1);
  const sxx = new Float64Array(count + 1);
  const syy = new Float64Array(count + 1);
  const sxy = new Float64Array(count + 1);
  for (let y = 0; y < height; y++)
    for (let x = 0; x < width; x++) {
      const l = labels[y * width + x];
      if (!l) continue;
      n[l]++;
      sx[l] += x;
      sy[l] += y;
      sxx[l] += x * x;
      syy[l] += y * y;
      sxy[l] += x * y;
    }
  const cx = (l: number) => sx[l] / n[l];
  const cy = (l: number) => sy[l] / n[l];
  // Outline pixels: a 4-neighbour outside the label (or the frame edge).
  const rSum = new Float64Array(count + 1);
  const rSq = new Float64Array(count + 1);
  const rN = new Float64Array(count + 1);
  for (let y = 0; y < height; y++)
    for (let x = 0; x < width; x++) {
      const i = y * width + x;
      const l = labels[i];
      if (!l) continue;
      const edge =
        x === 0 ||
        y === 0 ||
        x === width - 1 ||
        y === height - 1 ||
        labels[i - 1] !== l ||
        labels[i + 1] !== l ||
        labels[i - width] !== l ||
        labels[i + width] !== l;
      if (!edge) continue;
      const r = Math.hypot(x - cx(l), y - cy(l));
      rSum[l] += r;
      rSq[l] += r * r;
      rN[l]++;
    }
  const out: RoundnessMeasures[] = [];
  for (let l = 1; l <= count; l++) {
    if (n[l] === 0) continue;
    const mxx = sxx[l] / n[l] - cx(l) ** 2;
    const myy = syy[l] / n[l] - cy(l) ** 2;
    const mxy = sxy[l] / n[l] - cx(l) * cy(l);
    const root = Math.sqrt(((mxx - myy) / 2) ** 2 + mxy * mxy);
    const major = (mxx + myy) / 2 + root;
    const minor = (mxx + myy) / 2 - root;
    const mean = rSum[l] / rN[l];
    const sd = Math.sqrt(Math.max(0, rSq[l] / rN[l] - mean * mean));
    out.push({
      label: l,
      pixels: n[l],
      cx: cx(l),
      cy: cy(l),
      axisRatio: major > 0 ? Math.sqrt(Math.max(0, minor) / major) : 0,
      radialCv: mean > 0 ? sd / mean : 1,
    });
  }
  return out;
}

/** 0..1: 1 for a perfect circle, 0 at the limits MIN_AXIS_RATIO / MAX_RADIAL_CV. */
export function circleConfidence(m: Pick<RoundnessMeasures, 'axisRatio' | 'radialCv'>): number {
  const axis = (m.axisRatio - MIN_AXIS_RATIO) / (1 - MIN_AXIS_RATIO);
  const radial = 1 - m.radialCv / MAX_RADIAL_CV;
  return Math.max(0, Math.min(1, Math.min(axis, radial)));
}

/**
 * The most circular labelled component that passes the reference limits, or null. Components
 * touching the frame edge are not considered (a cut-off disc has no true diameter).
 */
export function pickReference(labels: Int32Array, width: number, height: number, count: number) {
  const touching = new Set<number>();
  for (let x = 0; x < width; x++) touching.add(labels[x]).add(labels[(height - 1) * width + x]);
  for (let y = 0; y < height; y++) touching.add(labels[y * width]).add(labels[y * width + width - 1]);
  let best: (RoundnessMeasures & { confidence: number }) | null = null;
  for (const m of roundness(labels, width, height, count)) {
    if (touching.has(m.label) || m.pixels < MIN_REFERENCE_PIXELS) continue;
    if (m.axisRatio < MIN_AXIS_RATIO || m.radialCv > MAX_RADIAL_CV) continue;
    const confidence = circleConfidence(m);
    if (!best || confidence > best.confidence) best = { ...m, confidence };
  }
  return best;
}

/**
 * Sub-pixel area of a disc of about radius r0 centred at (cx, cy) in `image` (pixel-centre
 * coordinates): pixels well inside count 1; in a band around the edge each pixel counts the fraction
 * of object it holds, by linear unmixing of its colour between the mean object colour just inside
 * the band and the mean surround colour just outside it. Returns null when the two colours are too
 * close to unmix.
 */
export function discAreaSubpixel(image: RasterImage, cx: number, cy: number, r0: number): number | null {
  const band = 2 + 0.02 * r0;
  const ring = 3;
  const { width, height, data } = image;
  const x0 = Math.max(0, Math.floor(cx - r0 - band - ring - 1));
  const x1 = Math.min(width - 1, Math.ceil(cx + r0 + band + ring + 1));
  const y0 = Math.max(0, Math.floor(cy - r0 - band - ring - 1));
  const y1 = Math.min(height - 1, Math.ceil(cy + r0 + band + ring + 1));
  const inner = [0, 0, 0, 0];
  const outer = [0, 0, 0, 0];
  for (let y = y0; y <= y1; y++)
    for (let x = x0; x <= x1; x++) {
      const d = Math.hypot(x - cx, y - cy);
      const acc =
        d >= r0 - band - ring && d < r0 - band ? inner : d > r0 + band && d <= r0 + band + ring ? outer : null;
      if (!acc) continue;
      const i = (y * width + x) * 4;
      acc[0] += data[i];
      acc[1] += data[i + 1];
      acc[2] += data[i + 2];
      acc[3]++;
    }
  if (!inner[3] || !outer[3]) return null;
  const a = [0, 1, 2].map((c) => inner[c] / inner[3]);
  const b = [0, 1, 2].map((c) => outer[c] / outer[3]);
  const diff = [a[0] - b[0], a[1] - b[1], a[2] - b[2]];
  const contrast2 = diff[0] ** 2 + diff[1] ** 2 + diff[2] ** 2;
  if (contrast2 < MIN_EDGE_CONTRAST ** 2) return null;
  let area = 0;
  for (let y = y0; y <= y1; y++)
    for (let x = x0; x <= x1; x++) {
      const d = Math.hypot(x - cx, y - cy);
      if (d < r0 - band) area++;
      else if (d <= r0 + band) {
        const i = (y * width + x) * 4;
        const t =
          ((data[i] - b[0]) * diff[0] + (data[i + 1] - b[1]) * diff[1] + (data[i + 2] - b[2]) * diff[2]) / contrast2;
        // Capped at 1: a coin's rim, darker or brighter than its face, is not more than whole. Not
        // floored at 0, so the surround's noise averages out (a shadow or glint is bounded at -0.5).
        area += Math.max(-0.5, Math.min(1, t));
      }
    }
  return area;
}

/**
 * Finds the reference disc among the labelled components of the working copy `work` (labels at its
 * size) and measures it on `image` (the decoded photo, at least as large as `work`). Returns the
 * object in full-resolution pixels and its label, or null when no component is circular enough.
 */
export function findReference(
  image: RasterImage,
  work: RasterImage,
  labels: Int32Array,
  count: number,
): { reference: ReferenceObject; label: number } | null {
  const pick = pickReference(labels, work.width, work.height, count);
  if (!pick) return null;
  // Working-copy pixel centres -> the decoded image's continuous coordinates.
  const s = image.width / work.width;
  const cx = (pick.cx + 0.5) * s - 0.5;
  const cy = (pick.cy + 0.5) * ((image.height / work.height) as number) - 0.5;
  const r0 = Math.sqrt(pick.pixels / Math.PI) * s;
  const area = discAreaSubpixel(image, cx, cy, r0) ?? Math.PI * r0 * r0;
  const full = sourceSize(image);
  const fx = full.width / image.width;
  const fy = full.height / image.height;
  const round = (v: number, d: number) => Math.round(v * 10 ** d) / 10 ** d;
  return {
    label: pick.label,
    reference: {
      x: round((cx + 0.5) * fx, 1),
      y: round((cy + 0.5) * fy, 1),
      diameter_px: round(2 * Math.sqrt(area / Math.PI) * Math.sqrt(fx * fy), 3),
      confidence: round(pick.confidence, 3),
    },
  };
}

/** Labels without `label`, renumbered 1..count-1 (the reference is never counted as fruit). */
export const dropLabel = (labels: Int32Array, count: number, label: number) =>
  keepLabels(labels, count, (l) => l !== label);

/** Pixels per centimetre from a reference of `diameterPx` pixels and `diameterMm` millimetres. */
export const pxPerCmOf = (diameterPx: number, diameterMm: number) => diameterPx / (diameterMm / 10);
