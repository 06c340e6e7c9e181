/**
 * Defect boxes (boxes.csv: filename,class,x,y,w,h) scored against a photo's predicted bruise mask:
 * a lesion box is found when 10 % of it is marked, hit at BOX_HIT_FRACTION, with the hit rate of
 * chance measured on control windows of the same photo.
 */
import { MangoError } from '@mango/core';
import { round4 } from './metrics.ts';

/**
 * A second, looser box criterion. The lesions of the AI CUP boxes cover 0.7-9.2 % of their loosely
 * drawn boxes (models/training/analysis/box_ceiling.py: the half-peak darkening region), so an exact
 * outline of the lesion never reaches the 10 % of `found`. A box is *hit* when at least 0.5 % of it
 * is marked: below the smallest measured lesion share, so an exact outline of any of those lesions
 * counts. Because a loose criterion also rewards marking at random, each lesion box is paired with
 * control windows: windows of the same size on the same photo's fruit (at least 90 % fruit, on a
 * grid one window apart) that touch no labelled box of any class. The share of control windows that
 * reach the same 0.5 % is the hit rate of chance, reported beside the hit rate.
 */
export const BOX_HIT_FRACTION = 0.005;
/** Share of a control window that must be fruit. */
const CONTROL_FRUIT_SHARE = 0.9;

export interface BoxResult {
  filename: string;
  class: string;
  bruise_fraction: number;
  found: boolean;
  /** at least BOX_HIT_FRACTION (or the boxHitFraction asked for) of the box marked */
  hit?: boolean;
  /** control windows of this box's size on its photo's fruit, and how many reach the hit fraction */
  control_windows?: number;
  control_hits?: number;
}

export interface BoxSetResult {
  boxes: number;
  found: number;
  found_share: number;
  /** boxes hit (at least BOX_HIT_FRACTION marked) */
  hits: number;
  hit_share: number;
  /** the same criterion on control windows of the lesion boxes (chance level) */
  control_windows: number;
  control_hit_share: number;
  by_class: Record<string, { boxes: number; found: number; hits: number }>;
  per_box: BoxResult[];
}

/** Share of the pixels of [x0, x1) x [y0, y1) set in `mask` (full-resolution, row-major, width w). */
function markedShare(mask: Uint8Array, w: number, x0: number, y0: number, x1: number, y1: number): number {
  let marked = 0;
  for (let y = y0; y < y1; y++) for (let x = x0; x < x1; x++) marked += mask[y * w + x];
  const total = (x1 - x0) * (y1 - y0);
  return total > 0 ? marked / total : 0;
}

/** The boxes of one photo scored against its full-resolution masks (both criteria and the controls). */
export function scoreBoxes(
  filename: string,
  full: { width: number; height: number; fruit: Uint8Array; bruise: Uint8Array },
  rows: readonly Record<string, string | number>[],
  wanted: Set<string>,
  foundFraction = 0.1,
  hitFraction = BOX_HIT_FRACTION,
): BoxResult[] {
  // Pixel bounds: a box drawn at fractional coordinates covers every pixel it touches.
  const boxes = rows.map((row) => {
    const [x, y, w, h] = [row.x, row.y, row.w, row.h].map(Number);
    if (![x, y, w, h].every(Number.isFinite)) {
      throw new MangoError('INVALID_INPUT', `${filename}: box ${JSON.stringify(row)} has no numeric x, y, w, h`);
    }
    return {
      row,
      x0: Math.max(0, Math.floor(x)),
      y0: Math.max(0, Math.floor(y)),
      x1: Math.min(full.width, Math.ceil(x + w)),
      y1: Math.min(full.height, Math.ceil(y + h)),
    };
  });
  return boxes.map(({ row, x0, y0, x1, y1 }) => {
    const fraction = markedShare(full.bruise, full.width, x0, y0, x1, y1);
    const controls = wanted.has(String(row.class)) ? controlShares(full, x1 - x0, y1 - y0, boxes) : [];
    return {
      filename,
      class: String(row.class),
      bruise_fraction: round4(fraction),
      found: fraction >= foundFraction,
      hit: fraction >= hitFraction,
      control_windows: controls.length,
      control_hits: controls.filter((c) => c >= hitFraction).length,
    };
  });
}

/** Control windows of a w x h box on the photo's fruit away from every labelled box: [marked share]. */
function controlShares(
  full: { width: number; height: number; fruit: Uint8Array; bruise: Uint8Array },
  w: number,
  h: number,
  labelled: { x0: number; y0: number; x1: number; y1: number }[],
): number[] {
  const out: number[] = [];
  if (w < 1 || h < 1) return out;
  for (let y0 = 0; y0 + h <= full.height; y0 += h)
    for (let x0 = 0; x0 + w <= full.width; x0 += w) {
      const x1 = x0 + w;
      const y1 = y0 + h;
      if (labelled.some((b) => x0 < b.x1 && b.x0 < x1 && y0 < b.y1 && b.y0 < y1)) continue;
      if (markedShare(full.fruit, full.width, x0, y0, x1, y1) < CONTROL_FRUIT_SHARE) continue;
      out.push(markedShare(full.bruise, full.width, x0, y0, x1, y1));
    }
  return out;
}

/** The figures of a defect-box set from its per-box results (`wanted`: the classes that count). */
export function summariseBoxSet(per: BoxSetResult['per_box'], wanted: Set<string>): BoxSetResult {
  const byClass: BoxSetResult['by_class'] = {};
  for (const p of per) {
    byClass[p.class] ??= { boxes: 0, found: 0, hits: 0 };
    byClass[p.class].boxes++;
    if (p.found) byClass[p.class].found++;
    if (p.hit) byClass[p.class].hits++;
  }
  const counted = per.filter((p) => wanted.has(p.class));
  const found = counted.filter((p) => p.found).length;
  const hits = counted.filter((p) => p.hit).length;
  const windows = counted.reduce((a, p) => a + (p.control_windows ?? 0), 0);
  const controlHits = counted.reduce((a, p) => a + (p.control_hits ?? 0), 0);
  return {
    boxes: counted.length,
    found,
    found_share: counted.length ? round4(found / counted.length) : NaN,
    hits,
    hit_share: counted.length ? round4(hits / counted.length) : NaN,
    control_windows: windows,
    control_hit_share: windows ? round4(controlHits / windows) : NaN,
    by_class: byClass,
    per_box: per,
  };
}
