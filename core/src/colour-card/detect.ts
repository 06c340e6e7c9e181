/**
 * Finds a ColorChecker (24 patches, 6 x 4) anywhere in a photo, at any rotation and under
 * perspective, without marking: uniform, compact regions between colour edges are patch candidates;
 * neighbouring candidates of similar size are grouped; a group is laid on an integer lattice grown
 * from its best-connected member (a homography refitted as it grows); the lattice's placements on the
 * 6 x 4 card (8 symmetries x offsets) are told apart by how well a colour correction fits each one
 * to the reference values; the winner's homography is then refined on the given raster by fitting a
 * blurred model of the card to its luminance (refine.ts). Pure TypeScript over RasterImage (runs in
 * the browser too).
 */
import type { RasterImage } from '../image.ts';
import { labelComponents } from '../mask.ts';
import { downscaleArea, fitSize, rgbaWords } from '../resample.ts';
import { fitColourCorrection, type ColourCorrection } from './correct.ts';
import { fitHomography, invert3, localScale, project, type Homography, type Point } from './geometry.ts';
import { CARD_COLUMNS, CARD_ROWS, type ColourCardKind } from './reference.ts';
import { refineCardGeometry } from './refine.ts';

/** Long side of the copy the patches are looked for on (reading is done on the given raster). */
const DETECT_MAX_SIDE = 1600;
/**
 * Long side of the quick look first taken when the detection copy is larger than PRECHECK_ABOVE: with
 * no group of at least 8 linked patch candidates on it there is no card (the full search is skipped).
 * Measured (README.md, `detect.ts`): each of the 220 card photos of the bench has such a group at 640 px
 * (cards covering 2 % of the frame and more; the smallest largest group 10), 1 of the 51 dev photos
 * without a card that get the quick look has one. A 1280 px decode (the model's) halves to it exactly.
 * The price: a card under about 0.6-0.7 % of the frame (a patch pitch under about 20 px on a 1600 px
 * copy) no longer passes it, where the full search alone finds cards down to about 0.3 % (a review's
 * renders into a 1600 x 1336 composite; 800 px: 0.5 %, 1000 px: 0.4 %). The card is asked to cover 2 %.
 */
const PRECHECK_MAX_SIDE = 640;
const PRECHECK_ABOVE = 1000;
/** Colour gradient (8-bit units, after a 3x3 box blur) above which a pixel is an edge. */
const EDGE_THRESHOLD = 7;
/** Smallest candidate region, pixels of the detection copy. */
const MIN_REGION = 9;
/** A lattice point is taken when it lies within this many pitches of an integer position. */
const SNAP = 0.3;
/**
 * At most this many lattice points are dropped as lying on a wrong node (fitLattice): more than SNAP from
 * their node under the map fitted to the other points, where they would not have snapped. A wrong node reads
 * about 1; at 0.5 one bent lattice of the card bench (24954.jpg, 2800 K) was kept, and its patches' largest
 * CIEDE2000 after correction read 6.58 instead of 5.31.
 */
const MAX_WRONG_NODES = 3;
/** Median CIEDE2000 of the read patches after the fitted correction above which it is not a card. */
const MAX_FIT_DELTA_E = 6;
/**
 * How much lighter (sum of R, G and B) a grey patch may read than the one before it on the grey row:
 * two clipped patches (white and the light grey under +1 EV) are equal up to noise and JPEG, which moved
 * one such pair 3 apart; neighbouring greys of a card lie 60-150 apart otherwise.
 */
const GREY_NOISE = 12;
/** Card outline around the patch centres, in pitches (the black frame of a Classic). */
export const CARD_MARGIN = { columns: 0.6, rows: 0.9 } as const;

export interface ColourCardDetection {
  kind: ColourCardKind;
  /** card coordinates (patch column 0..5, row 0..3; centres at integers) -> pixels of the given raster */
  homography: Homography;
  /** measured 8-bit sRGB medians per patch in card order (null where the patch lies outside the photo) */
  patches: (number[] | null)[];
  /** pixels of the given raster per patch pitch at the card's centre */
  pitchPx: number;
  /** the card's outline (4 corners, pixels of the given raster) */
  outline: Point[];
  correction: ColourCorrection;
}

interface Region {
  x: number;
  y: number;
  n: number;
}

/** Patch candidates: compact regions of uniform colour bounded by colour edges. */
function candidateRegions(work: RasterImage): Region[] {
  const { width: w, height: h, data } = work;
  const n = w * h;
  // 3x3 box blur of R, G, B (noise and JPEG blocks), then the largest channel gradient. The blur is
  // kept as the integer 3x3 sum (9x the mean), so the edge test is exact integer arithmetic:
  // (|dx| + |dy|) / 2 / 9 <= EDGE_THRESHOLD.
  const limit = EDGE_THRESHOLD * 18;
  // Row sums of three (edge pixels repeated), all three channels in one pass over the pixels as 32-bit
  // words where the buffer allows; at most 9 x 255 fits 16 bits.
  const rr = new Uint16Array(n);
  const rg = new Uint16Array(n);
  const rb = new Uint16Array(n);
  const words = rgbaWords(work);
  for (let y = 0; y < h; y++) {
    const o = y * w;
    for (let x = 0; x < w; x++) {
      const i = o + x;
      const l = x > 0 ? i - 1 : i;
      const r = x < w - 1 ? i + 1 : i;
      if (words) {
        const a = words[l];
        const b = words[i];
        const c = words[r];
        rr[i] = (a & 255) + (b & 255) + (c & 255);
        rg[i] = ((a >>> 8) & 255) + ((b >>> 8) & 255) + ((c >>> 8) & 255);
        rb[i] = ((a >>> 16) & 255) + ((b >>> 16) & 255) + ((c >>> 16) & 255);
      } else {
        rr[i] = data[l * 4] + data[i * 4] + data[r * 4];
        rg[i] = data[l * 4 + 1] + data[i * 4 + 1] + data[r * 4 + 1];
        rb[i] = data[l * 4 + 2] + data[i * 4 + 2] + data[r * 4 + 2];
      }
    }
  }
  // Column sums of three row sums (edge rows repeated): the 3x3 sums, the three channels in one loop.
  const sr = new Uint16Array(n);
  const sg = new Uint16Array(n);
  const sb = new Uint16Array(n);
  for (let y = 0; y < h; y++) {
    const o = y * w;
    const u = o + (y > 0 ? -w : 0);
    const d = o + (y < h - 1 ? w : 0);
    for (let x = 0; x < w; x++) {
      sr[o + x] = rr[u + x] + rr[o + x] + rr[d + x];
      sg[o + x] = rg[u + x] + rg[o + x] + rg[d + x];
      sb[o + x] = rb[u + x] + rb[o + x] + rb[d + x];
    }
  }
  const flat = new Uint8Array(n);
  for (let y = 1; y < h - 1; y++) {
    const o = y * w;
    for (let x = 1; x < w - 1; x++) {
      const i = o + x;
      if (Math.abs(sr[i + 1] - sr[i - 1]) + Math.abs(sr[i + w] - sr[i - w]) > limit) continue;
      if (Math.abs(sg[i + 1] - sg[i - 1]) + Math.abs(sg[i + w] - sg[i - w]) > limit) continue;
      if (Math.abs(sb[i + 1] - sb[i - 1]) + Math.abs(sb[i + w] - sb[i - w]) > limit) continue;
      flat[i] = 1;
    }
  }
  const { labels, count } = labelComponents(flat, w, h, 4);
  // Region sizes first: the moments are summed only over regions of a patch's size (the background's
  // large flat regions, most of the pixels, are skipped).
  const maxRegion = 0.02 * n;
  const size = new Int32Array(count + 1);
  for (let i = 0; i < n; i++) size[labels[i]]++;
  const sized = new Uint8Array(count + 1);
  for (let l = 1; l <= count; l++) sized[l] = size[l] >= MIN_REGION && size[l] <= maxRegion ? 1 : 0;
  const st = new Float64Array((count + 1) * 6);
  const box = new Int32Array((count + 1) * 4);
  for (let l = 1; l <= count; l++) {
    box[l * 4] = w;
    box[l * 4 + 1] = h;
    box[l * 4 + 2] = -1;
    box[l * 4 + 3] = -1;
  }
  for (let y = 0; y < h; y++) {
    for (let x = 0; x < w; x++) {
      const l = labels[y * w + x];
      if (!sized[l]) continue;
      const b = l * 6;
      st[b]++;
      st[b + 1] += x;
      st[b + 2] += y;
      st[b + 3] += x * x;
      st[b + 4] += y * y;
      st[b + 5] += x * y;
      const k = l * 4;
      if (x < box[k]) box[k] = x;
      if (y < box[k + 1]) box[k + 1] = y;
      if (x > box[k + 2]) box[k + 2] = x;
      if (y > box[k + 3]) box[k + 3] = y;
    }
  }
  const regions: Region[] = [];
  for (let l = 1; l <= count; l++) {
    if (!sized[l]) continue;
    const b = l * 6;
    const c = st[b];
    if (box[l * 4] <= 1 || box[l * 4 + 1] <= 1 || box[l * 4 + 2] >= w - 2 || box[l * 4 + 3] >= h - 2) continue;
    const mx = st[b + 1] / c;
    const my = st[b + 2] / c;
    const vxx = st[b + 3] / c - mx * mx;
    const vyy = st[b + 4] / c - my * my;
    const vxy = st[b + 5] / c - mx * my;
    const tr = (vxx + vyy) / 2;
    const disc = Math.sqrt(Math.max(0, tr * tr - (vxx * vyy - vxy * vxy)));
    const l1 = tr + disc;
    const l2 = tr - disc;
    if (l2 <= 0 || Math.sqrt(l2 / l1) < 0.45) continue;
    // A filled square (or a quadrilateral near one) has area ~ 12 sqrt(l1 l2); rings and L shapes do not.
    const fill = c / (12 * Math.sqrt(l1 * l2));
    if (fill < 0.75 || fill > 1.3) continue;
    regions.push({ x: mx, y: my, n: c });
  }
  return regions;
}

/** Groups of regions linked by neighbours of similar size at about a patch pitch. */
function groupRegions(regions: Region[]): { groups: number[][]; links: number[][] } {
  const order = regions.map((_, i) => i).sort((a, b) => regions[a].x - regions[b].x);
  const parent = regions.map((_, i) => i);
  const find = (a: number): number => (parent[a] === a ? a : (parent[a] = find(parent[a])));
  const links: number[][] = regions.map(() => []);
  let maxSide = 0;
  for (const r of regions) maxSide = Math.max(maxSide, Math.sqrt(r.n));
  for (let oi = 0; oi < order.length; oi++) {
    const a = regions[order[oi]];
    for (let oj = oi + 1; oj < order.length; oj++) {
      const b = regions[order[oj]];
      if (b.x - a.x > 3.5 * maxSide) break;
      const ratio = a.n > b.n ? a.n / b.n : b.n / a.n;
      if (ratio > 2.5) continue;
      const s = Math.sqrt((a.n + b.n) / 2);
      const d = Math.hypot(a.x - b.x, a.y - b.y);
      if (d < 0.9 * s || d > 3.5 * s) continue;
      links[order[oi]].push(order[oj]);
      links[order[oj]].push(order[oi]);
      parent[find(order[oi])] = find(order[oj]);
    }
  }
  const byRoot = new Map<number, number[]>();
  regions.forEach((_, i) => {
    const r = find(i);
    if (!byRoot.has(r)) byRoot.set(r, []);
    byRoot.get(r)!.push(i);
  });
  const groups = [...byRoot.values()].filter((g) => g.length >= 8).sort((a, b) => b.length - a.length);
  return { groups, links };
}

interface Lattice {
  homography: Homography;
  points: { i: number; j: number }[];
}

/** Whether lattice points pin a homography: two rows (same j), or two columns (same i), of at least 2 points each. */
export function spansPlane(points: { i: number; j: number }[]): boolean {
  const lines = (key: (p: { i: number; j: number }) => number) => {
    const count = new Map<number, number>();
    for (const p of points) count.set(key(p), (count.get(key(p)) ?? 0) + 1);
    return [...count.values()].filter((n) => n >= 2).length >= 2;
  };
  return lines((p) => p.j) || lines((p) => p.i);
}

/** Lays a group of regions on an integer lattice (i, j) -> image, grown from its best-linked member. */
function fitLattice(regions: Region[], group: number[], links: number[][]): Lattice | null {
  const inGroup = new Set(group);
  const seed = group.reduce((a, b) => (links[b].length > links[a].length ? b : a));
  const s0 = regions[seed];
  const disp = links[seed]
    .filter((k) => inGroup.has(k))
    .map((k) => ({ x: regions[k].x - s0.x, y: regions[k].y - s0.y }));
  if (disp.length < 2) return null;
  disp.sort((a, b) => Math.hypot(a.x, a.y) - Math.hypot(b.x, b.y));
  let u = disp[0];
  const len = (p: Point) => Math.hypot(p.x, p.y);
  // The second vector: the shortest link not along u. A diagonal neighbour counts (|cos| 0.71, reduced
  // to the row step below); excluding it left a seed whose row neighbour was missed (glare, shadow)
  // with a basis of two rows, so the rows between never snapped to the lattice.
  let v = disp.find((d) => Math.abs((d.x * u.x + d.y * u.y) / (len(d) * len(u))) < 0.9);
  if (!v) return null;
  // Gauss reduction: the shortest basis of the lattice the two vectors span.
  for (let k = 0; k < 10; k++) {
    if (len(v) < len(u)) [u, v] = [v, u];
    const m = Math.round((u.x * v.x + u.y * v.y) / (u.x * u.x + u.y * u.y));
    if (m === 0) break;
    v = { x: v.x - m * u.x, y: v.y - m * u.y };
  }
  const assigned = new Map<number, { i: number; j: number }>([[seed, { i: 0, j: 0 }]]);
  const taken = new Map<string, number>([['0,0', seed]]);
  /** points dropped from a wrong node (below), each with the node it may not take again */
  const barred = new Map<number, string>();
  const fitAssigned = (skip = -1) => {
    const ks = [...assigned.keys()].filter((k) => k !== skip);
    return fitHomography(
      ks.map((k) => ({ x: assigned.get(k)!.i, y: assigned.get(k)!.j })),
      ks.map((k) => regions[k]),
    );
  };
  /** Snaps the group's free regions to the lattice of `start`, next to placed points, refitting each round. */
  const grow = (start: Homography | null) => {
    let h = start;
    for (let round = 0; round < 30 && h; round++) {
      const inv = invert3(h);
      if (!inv) return null;
      let added = 0;
      for (const k of group) {
        if (assigned.has(k)) continue;
        const p = project(inv, regions[k].x, regions[k].y);
        const i = Math.round(p.x);
        const j = Math.round(p.y);
        if (Math.abs(p.x - i) > SNAP || Math.abs(p.y - j) > SNAP) continue;
        const key = `${i},${j}`;
        if (taken.has(key) || barred.get(k) === key) continue;
        // Grow locally: a lattice neighbour must already be placed.
        let near = false;
        for (let di = -1; di <= 1 && !near; di++)
          for (let dj = -1; dj <= 1 && !near; dj++) if (taken.has(`${i + di},${j + dj}`)) near = true;
        if (!near) continue;
        assigned.set(k, { i, j });
        taken.set(key, k);
        added++;
      }
      if (!added) break;
      h = fitAssigned();
    }
    return h;
  };
  let h = grow([u.x, v.x, s0.x, u.y, v.y, s0.y, 0, 0, 1]);
  if (!h || assigned.size < 8) return null;
  // A point snapped early, while the map was still the seed's affine guess, can sit on the wrong node
  // (a clipped white taken for the light grey beside it): the homography then bends to it and puts the
  // nodes beyond it a pitch off. Each point is checked against the map fitted to the others: the one
  // farthest from its node (in pitches, along either lattice axis) is dropped while it lies more than
  // SNAP off, at most MAX_WRONG_NODES times and keeping at least 8; the lattice is then grown again
  // from the refit, the dropped points barred from the nodes they were dropped from.
  while (assigned.size > 8 && barred.size < MAX_WRONG_NODES) {
    let worst = -1;
    let off = SNAP;
    for (const [k, c] of assigned) {
      // the others must pin a homography: two lattice rows, or two columns, of at least 2 points each
      // (points on one line and one off it pass the solver with entries of 1e14)
      if (!spansPlane([...assigned].filter(([kk]) => kk !== k).map(([, cc]) => cc))) continue;
      const others = fitAssigned(k);
      const inv = others && invert3(others);
      if (!inv) continue;
      const p = project(inv, regions[k].x, regions[k].y);
      const d = Math.max(Math.abs(p.x - c.i), Math.abs(p.y - c.j));
      if (d > off) [worst, off] = [k, d];
    }
    if (worst < 0) break;
    const c = assigned.get(worst)!;
    taken.delete(`${c.i},${c.j}`);
    assigned.delete(worst);
    barred.set(worst, `${c.i},${c.j}`);
  }
  if (barred.size) h = grow(fitAssigned());
  if (!h || assigned.size < 8) return null;
  // Drop points the final map places more than a third of a pitch away, and refit.
  const pitch = localScale(h, 0, 0);
  const keep = [...assigned.entries()].filter(([k, c]) => {
    const p = project(h!, c.i, c.j);
    return Math.hypot(p.x - regions[k].x, p.y - regions[k].y) <= pitch / 3;
  });
  if (keep.length < 8) return null;
  const refit = fitHomography(
    keep.map(([, c]) => ({ x: c.i, y: c.j })),
    keep.map(([k]) => regions[k]),
  );
  return refit ? { homography: refit, points: keep.map(([, c]) => c) } : null;
}

/** Per-channel medians of a patch's centre (the middle half of its pitch), or null outside the photo. */
function readPatch(image: RasterImage, h: Homography, i: number, j: number, pitchPx: number): number[] | null {
  const steps = Math.max(5, Math.min(15, Math.round(pitchPx / 2)));
  const values: number[][] = [[], [], []];
  for (let a = 0; a < steps; a++) {
    for (let b = 0; b < steps; b++) {
      const p = project(h, i - 0.25 + (0.5 * a) / (steps - 1), j - 0.25 + (0.5 * b) / (steps - 1));
      const x = Math.round(p.x);
      const y = Math.round(p.y);
      if (x < 0 || y < 0 || x >= image.width || y >= image.height) return null;
      const o = (y * image.width + x) * 4;
      for (let c = 0; c < 3; c++) values[c].push(image.data[o + c]);
    }
  }
  return values.map((v) => {
    v.sort((a, b) => a - b);
    const m = v.length >> 1;
    return v.length % 2 ? v[m] : (v[m - 1] + v[m]) / 2;
  });
}

const median = (v: number[]) => {
  const s = [...v].sort((a, b) => a - b);
  return s[s.length >> 1];
};

/** The card's placement on a lattice: card (column, row) = T(i, j) + offset, T one of the 8 symmetries. */
interface Placement {
  swap: boolean;
  si: number;
  sj: number;
  oc: number;
  or: number;
}

function placements(points: { i: number; j: number }[]): Placement[] {
  const out: Placement[] = [];
  for (const swap of [false, true]) {
    for (const si of [1, -1]) {
      for (const sj of [1, -1]) {
        const cs = points.map((p) => si * (swap ? p.j : p.i));
        const rs = points.map((p) => sj * (swap ? p.i : p.j));
        const [cmin, cmax, rmin, rmax] = [Math.min(...cs), Math.max(...cs), Math.min(...rs), Math.max(...rs)];
        for (let oc = -cmin; oc <= CARD_COLUMNS - 1 - cmax; oc++)
          for (let or = -rmin; or <= CARD_ROWS - 1 - rmax; or++) out.push({ swap, si, sj, oc, or });
      }
    }
  }
  return out;
}

/**
 * The lattice points a card can cover: all of them when they fit in 6 x 4 (or 4 x 6); otherwise those in
 * each 6 x 4 and 4 x 6 window that holds at least 8 (a flat region beside the card, a tray's tile, can
 * snap to the lattice and widen it past the card; the colour fit then tells the windows apart).
 */
export function cardWindows(points: { i: number; j: number }[]): { i: number; j: number }[][] {
  const is = points.map((p) => p.i);
  const js = points.map((p) => p.j);
  const [i0, i1, j0, j1] = [Math.min(...is), Math.max(...is), Math.min(...js), Math.max(...js)];
  const fitsIn = (w: number, h: number) => i1 - i0 + 1 <= w && j1 - j0 + 1 <= h;
  if (fitsIn(CARD_COLUMNS, CARD_ROWS) || fitsIn(CARD_ROWS, CARD_COLUMNS)) return [points];
  const out: { i: number; j: number }[][] = [];
  for (const [w, h] of [
    [CARD_COLUMNS, CARD_ROWS],
    [CARD_ROWS, CARD_COLUMNS],
  ]) {
    // every window start along each axis: over the points' span, or all that cover it when it is shorter
    for (let a = Math.min(i0, i1 - w + 1); a <= Math.max(i0, i1 - w + 1); a++) {
      for (let b = Math.min(j0, j1 - h + 1); b <= Math.max(j0, j1 - h + 1); b++) {
        const inside = points.filter((p) => p.i >= a && p.i < a + w && p.j >= b && p.j < b + h);
        if (inside.length >= 8) out.push(inside);
      }
    }
  }
  return out;
}

/** Lattice (i, j) of card (column, row) under a placement. */
function latticeOf(pl: Placement, c: number, r: number): { i: number; j: number } {
  const a = (c - pl.oc) * pl.si;
  const b = (r - pl.or) * pl.sj;
  return pl.swap ? { i: b, j: a } : { i: a, j: b };
}

/** The homography card (column, row) -> image of a placement (lattice homography composed with T^-1). */
function cardHomography(lat: Homography, pl: Placement): Homography {
  // (i, j, 1) = A (c, r, 1)
  const A = pl.swap
    ? [0, pl.sj, -pl.or * pl.sj, pl.si, 0, -pl.oc * pl.si, 0, 0, 1]
    : [pl.si, 0, -pl.oc * pl.si, 0, pl.sj, -pl.or * pl.sj, 0, 0, 1];
  const r = new Array<number>(9).fill(0);
  for (let i = 0; i < 3; i++)
    for (let j = 0; j < 3; j++) for (let k = 0; k < 3; k++) r[i * 3 + j] += lat[i * 3 + k] * A[k * 3 + j];
  return r;
}

/** The card's outline: the patch grid with the frame margin, in card coordinates. */
export function cardOutline(h: Homography, grow = 0): Point[] {
  const c0 = -CARD_MARGIN.columns - grow;
  const c1 = CARD_COLUMNS - 1 + CARD_MARGIN.columns + grow;
  const r0 = -CARD_MARGIN.rows - grow;
  const r1 = CARD_ROWS - 1 + CARD_MARGIN.rows + grow;
  return [project(h, c0, r0), project(h, c1, r0), project(h, c1, r1), project(h, c0, r1)];
}

/**
 * Looks for a ColorChecker in the photo (of the given kind: the reference values differ slightly);
 * null when none is found. The homography, pitch and outline are in pixels of `image`, refined to the
 * card's chips on it (refineCardGeometry); the patches are read, and the correction fitted, on the
 * lattice's homography.
 */
export function detectColourCard(image: RasterImage, kind: ColourCardKind = 'classic'): ColourCardDetection | null {
  const size = fitSize(image.width, image.height, DETECT_MAX_SIDE);
  if (Math.max(size.width, size.height) > PRECHECK_ABOVE) {
    const quick = fitSize(image.width, image.height, PRECHECK_MAX_SIDE);
    if (groupRegions(candidateRegions(downscaleArea(image, quick.width, quick.height))).groups.length === 0)
      return null;
  }
  const work = downscaleArea(image, size.width, size.height);
  const scale = image.width / work.width;
  const regions = candidateRegions(work);
  const { groups, links } = groupRegions(regions);
  let best: { cost: number; detection: ColourCardDetection } | null = null;
  for (const group of groups.slice(0, 4)) {
    const lattice = fitLattice(regions, group, links);
    if (!lattice) continue;
    // In pixels of the given raster.
    const lat = lattice.homography.map((v, k) => (k < 6 ? v * scale : v));
    const is = lattice.points.map((p) => p.i);
    const js = lattice.points.map((p) => p.j);
    const pitchPx = localScale(lat, (Math.max(...is) + Math.min(...is)) / 2, (Math.max(...js) + Math.min(...js)) / 2);
    const cache = new Map<string, number[] | null>();
    const read = (i: number, j: number) => {
      const key = `${i},${j}`;
      if (!cache.has(key)) cache.set(key, readPatch(image, lat, i, j, pitchPx));
      return cache.get(key)!;
    };
    for (const pl of cardWindows(lattice.points).flatMap(placements)) {
      const patches: (number[] | null)[] = [];
      for (let r = 0; r < CARD_ROWS; r++) {
        for (let c = 0; c < CARD_COLUMNS; c++) {
          const { i, j } = latticeOf(pl, c, r);
          patches.push(read(i, j));
        }
      }
      if (patches.filter(Boolean).length < 20) continue;
      // The grey row darkens from white to black on any card, whatever the light (equal where
      // overexposure clipped the lightest greys, up to the noise: GREY_NOISE).
      const greys = patches.slice(18).map((p) => (p ? p[0] + p[1] + p[2] : NaN));
      let monotone = greys[0] - greys[5] > 60;
      for (let k = 1; k < greys.length; k++) if (!(greys[k] <= greys[k - 1] + GREY_NOISE)) monotone = false;
      if (!monotone) continue;
      const correction = fitColourCorrection(patches, kind);
      if (!correction) continue;
      const errors = correction.deltaEAfter.filter((d) => d !== null) as number[];
      const cost = median(errors);
      if (cost > MAX_FIT_DELTA_E || (best && cost >= best.cost)) continue;
      const homography = cardHomography(lat, pl);
      best = {
        cost,
        detection: {
          kind,
          homography,
          patches,
          pitchPx: localScale(homography, (CARD_COLUMNS - 1) / 2, (CARD_ROWS - 1) / 2),
          outline: cardOutline(homography),
          correction,
        },
      };
    }
  }
  if (!best) return null;
  const d = best.detection;
  const homography = refineCardGeometry(image, d.homography);
  return {
    ...d,
    homography,
    pitchPx: localScale(homography, (CARD_COLUMNS - 1) / 2, (CARD_ROWS - 1) / 2),
    outline: cardOutline(homography),
  };
}
