import { describe, expect, it } from 'vitest';
import { convexHull, keepLabels, labelBoxes, maskCentroid, maskIoU, maskOverlap } from './measure.ts';
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
