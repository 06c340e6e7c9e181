import { describe, expect, it } from 'vitest';
import {
  convexHull,
  grownHull,
  hullMask,
  labelHulls,
  keepLabels,
  pixelHull,
  labelBoxes,
  maskCentroid,
  maskIoU,
  maskOverlap,
} from './measure.ts';
import { seededRandom } from './testing/index.ts';

describe('maskOverlap, maskIoU', () => {
  it('counts both masks, their intersection and union (any non-zero value is set)', () => {
    const a = new Uint8Array([1, 1, 0, 0, 255]);
    const b = new Uint8Array([1, 0, 1, 0, 1]);
    expect(maskOverlap(a, b)).toEqual({ a: 3, b: 3, intersection: 2, union: 4, iou: 0.5 });
    expect(maskIoU(a, b)).toBe(0.5);
    expect(maskIoU(new Uint8Array(3), new Uint8Array(3))).toBe(1);
    expect(() => maskIoU(new Uint8Array(2), new Uint8Array(3))).toThrow(RangeError);
  });
});

describe('maskCentroid', () => {
  it('is the mean column and row of the set pixels, exactly', () => {
    // 3 x 3: set at (0, 0), (2, 0), (1, 2).
    const mask = new Uint8Array([1, 0, 1, 0, 0, 0, 0, 1, 0]);
    expect(maskCentroid(mask, 3, 3)).toEqual({ area: 3, x: 1, y: 2 / 3 });
    expect(maskCentroid(new Uint8Array(4), 2, 2)).toEqual({ area: 0, x: 0, y: 0 });
  });
});

describe('labelBoxes', () => {
  it('gives each label its inclusive bounding box and area (brute force)', () => {
    const w = 17;
    const h = 11;
    const rnd = seededRandom(2);
    const labels = new Int32Array(w * h);
    for (let i = 0; i < labels.length; i++) labels[i] = rnd() < 0.5 ? 0 : 1 + Math.floor(rnd() * 3);
    const boxes = labelBoxes(labels, w, h, 4);
    expect(boxes[0]).toBeNull();
    expect(boxes[4]).toBeNull(); // absent label
    for (let k = 1; k <= 3; k++) {
      let x0 = w,
        y0 = h,
        x1 = -1,
        y1 = -1,
        area = 0;
      for (let y = 0; y < h; y++)
        for (let x = 0; x < w; x++)
          if (labels[y * w + x] === k) {
            x0 = Math.min(x0, x);
            y0 = Math.min(y0, y);
            x1 = Math.max(x1, x);
            y1 = Math.max(y1, y);
            area++;
          }
      expect(boxes[k]).toEqual({ x0, y0, x1, y1, area });
    }
  });
});

describe('pixelHull, hullMask', () => {
  const set = (w: number, h: number, pixels: [number, number][]) => {
    const m = new Uint8Array(w * h);
    for (const [x, y] of pixels) m[y * w + x] = 1;
    return m;
  };

  it('gives a filled rectangle its own area (solidity 1) and its own pixels back', () => {
    const w = 8;
    const h = 6;
    const m = new Uint8Array(w * h);
    for (let y = 1; y < 4; y++) for (let x = 2; x < 7; x++) m[y * w + x] = 1;
    const hull = pixelHull((i) => m[i] === 1, w, h);
    expect(hull.pixels).toBe(15);
    expect(hull.area).toBe(15);
    expect(Array.from(hullMask(hull, w, h))).toEqual(Array.from(m));
  });

  it('measures the hull of the pixel squares: an L of three pixels has area 3.5 (solidity 6/7)', () => {
    const m = set(4, 4, [
      [0, 0],
      [1, 0],
      [0, 1],
    ]);
    const hull = pixelHull((i) => m[i] === 1, 4, 4);
    expect(hull.pixels).toBe(3);
    expect(hull.area).toBeCloseTo(3.5, 12);
  });

  it('gives a thin arm on a disc a low solidity, the disc alone a high one', () => {
    const w = 120;
    const h = 60;
    const disc = new Uint8Array(w * h);
    for (let y = 0; y < h; y++)
      for (let x = 0; x < w; x++) if ((x - 30) ** 2 + (y - 30) ** 2 <= 400) disc[y * w + x] = 1;
    const armed = disc.slice();
    for (let y = 28; y < 33; y++) for (let x = 50; x < 110; x++) armed[y * w + x] = 1;
    const a = pixelHull((i) => disc[i] === 1, w, h);
    const b = pixelHull((i) => armed[i] === 1, w, h);
    expect(a.pixels / a.area).toBeGreaterThan(0.95);
    expect(b.pixels / b.area).toBeLessThan(0.7);
    expect(a.pixels).toBe(1257);
  });

  it('gives every label its own hull in one pass (labelHulls), as pixelHull does one by one', () => {
    const w = 40;
    const h = 30;
    const labels = new Int32Array(w * h);
    const rnd = seededRandom(4);
    for (let i = 0; i < labels.length; i++) labels[i] = Math.floor(rnd() * 4); // 0..3, scattered
    const all = labelHulls(labels, 3, w, h);
    for (let l = 1; l <= 3; l++) {
      const one = pixelHull((i) => labels[i] === l, w, h);
      expect(all[l].pixels).toBe(one.pixels);
      expect(all[l].area).toBeCloseTo(one.area, 9);
      expect(Array.from(all[l].rows)).toEqual(Array.from(one.rows));
    }
  });

  it('grows a hull by a margin: a 10 x 10 square grown by 3 covers the pixels within 3 of it, not 4', () => {
    const w = 30;
    const h = 30;
    const m = new Uint8Array(w * h);
    for (let y = 10; y < 20; y++) for (let x = 10; x < 20; x++) m[y * w + x] = 1;
    const grown = hullMask(
      grownHull(
        pixelHull((i) => m[i] === 1, w, h),
        3,
        h,
      ),
      w,
      h,
    );
    // distance from a pixel centre to the square [10, 20] x [10, 20]
    const dist = (x: number, y: number) =>
      Math.hypot(Math.max(10 - (x + 0.5), 0, x + 0.5 - 20), Math.max(10 - (y + 0.5), 0, y + 0.5 - 20));
    for (let y = 0; y < h; y++)
      for (let x = 0; x < w; x++) {
        const d = dist(x, y);
        if (d <= 3) expect(grown[y * w + x]).toBe(1);
        if (d > 3.02) expect(grown[y * w + x]).toBe(0);
      }
  });

  it('is empty (area 0) for no pixels', () => {
    const hull = pixelHull(() => false, 5, 5);
    expect(hull.pixels).toBe(0);
    expect(hull.area).toBe(0);
    expect(Array.from(hullMask(hull, 5, 5)).every((v) => v === 0)).toBe(true);
  });
});

describe('convexHull', () => {
  it('keeps the corners of a square, drops inner, edge and repeated points', () => {
    const pts = [0, 0, 2, 0, 2, 2, 0, 2, 1, 1, 1, 0, 2, 2, 0, 1];
    expect(convexHull(pts)).toEqual([0, 0, 2, 0, 2, 2, 0, 2]);
    expect(convexHull([1, 1, 1, 1, 3, 4])).toEqual([1, 1, 3, 4]);
  });

  it('encloses every point with all of them on or inside it (brute force on random points)', () => {
    const rnd = seededRandom(9);
    const pts: number[] = [];
    for (let i = 0; i < 200; i++) pts.push(Math.round(rnd() * 50), Math.round(rnd() * 30));
    const hull = convexHull(pts);
    const nv = hull.length / 2;
    expect(nv).toBeGreaterThanOrEqual(3);
    for (let k = 0; k < nv; k++) {
      const j = (k + 1) % nv;
      const ex = hull[2 * j] - hull[2 * k];
      const ey = hull[2 * j + 1] - hull[2 * k + 1];
      for (let i = 0; i < pts.length; i += 2) {
        // Counter-clockwise: every point is left of (or on) every edge.
        const cross = ex * (pts[i + 1] - hull[2 * k + 1]) - ey * (pts[i] - hull[2 * k]);
        expect(cross).toBeGreaterThanOrEqual(0);
      }
    }
    // Every vertex is one of the points, and no point is a strictly better extreme in any axis.
    for (let k = 0; k < nv; k++) {
      let found = false;
      for (let i = 0; i < pts.length; i += 2) found ||= pts[i] === hull[2 * k] && pts[i + 1] === hull[2 * k + 1];
      expect(found).toBe(true);
    }
    const xs = pts.filter((_, i) => i % 2 === 0);
    expect(Math.min(...hull.filter((_, i) => i % 2 === 0))).toBe(Math.min(...xs));
    expect(Math.max(...hull.filter((_, i) => i % 2 === 0))).toBe(Math.max(...xs));
  });
});

describe('keepLabels', () => {
  it('drops the labels refused, renumbers the rest in order and gives each its pixel count', () => {
    const labels = Int32Array.from([0, 1, 1, 2, 3, 3, 3, 0]);
    const seen: [number, number][] = [];
    const out = keepLabels(labels, 3, (l, pixels) => {
      seen.push([l, pixels]);
      return pixels >= 2;
    });
    expect(seen).toEqual([
      [1, 2],
      [2, 1],
      [3, 3],
    ]);
    expect(out.count).toBe(2);
    expect([...out.labels]).toEqual([0, 1, 1, 0, 2, 2, 2, 0]);
    // all kept: the same labels back
    expect(keepLabels(labels, 3, () => true).labels).toBe(labels);
  });
});
