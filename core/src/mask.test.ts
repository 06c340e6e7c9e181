import { describe, expect, it } from 'vitest';
import {
  dilateDisk,
  outlineDistanceSquared,
  erodeDisk,
  fillHoles,
  labelComponents,
  largestComponent,
  erodeSquare,
  dilateSquare,
  boundingBox,
} from './mask.ts';
import { maskFromText } from './testing/index.ts';

describe('mask morphology', () => {
  it('labels components in raster order with 4 and 8 connectivity', () => {
    const { width, height, mask } = maskFromText(['#..#', '.#..', '...#', '##.#']);
    const c8 = labelComponents(mask, width, height, 8);
    expect(c8.count).toBe(4);
    expect(c8.areas.slice(1)).toEqual([2, 1, 2, 2]);
    const c4 = labelComponents(mask, width, height, 4);
    expect(c4.count).toBe(5);
    expect(Array.from(c4.labels.slice(0, 4))).toEqual([1, 0, 0, 2]);
  });

  it('keeps the first of equally large components', () => {
    const { width, height, mask } = maskFromText(['##..', '....', '..##']);
    expect(Array.from(largestComponent(mask, width, height)!)).toEqual([1, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0]);
  });

  it('fills holes but not bays open to the border', () => {
    const { width, height, mask } = maskFromText(['#####', '#...#', '#.#.#', '#####', '#...#']);
    const filled = fillHoles(mask, width, height);
    expect(Array.from(filled.slice(5, 15))).toEqual([1, 1, 1, 1, 1, 1, 1, 1, 1, 1]);
    expect(Array.from(filled.slice(20))).toEqual([1, 0, 0, 0, 1]);
  });

  it('erodes and dilates with a disk and a square', () => {
    const { width, height, mask } = maskFromText([
      '.......',
      '.......',
      '.......',
      '...#...',
      '.......',
      '.......',
      '.......',
    ]);
    const d = dilateDisk(mask, width, height, 2);
    expect(d.reduce((a, b) => a + b, 0)).toBe(13); // disk of radius 2: 13 pixels
    expect(Array.from(erodeDisk(d, width, height, 2)).reduce((a, b) => a + b, 0)).toBe(1);
    const s = dilateSquare(mask, width, height, 1);
    expect(s.reduce((a, b) => a + b, 0)).toBe(9);
    expect(erodeSquare(s, width, height, 1).reduce((a, b) => a + b, 0)).toBe(1);
    expect(boundingBox(s, width, height)).toEqual({ x: 2, y: 2, width: 3, height: 3 });
  });

  it('erosion treats outside the image as background', () => {
    const { width, height, mask } = maskFromText(['###', '###', '###']);
    expect(Array.from(erodeDisk(mask, width, height, 1))).toEqual([0, 0, 0, 0, 1, 0, 0, 0, 0]);
    expect(Array.from(erodeSquare(mask, width, height, 1))).toEqual([0, 0, 0, 0, 1, 0, 0, 0, 0]);
  });

  it('disk dilation and erosion equal the brute-force definition, for both border rules', () => {
    // Deterministic pseudo-random blobs (a small LCG), several radii, odd sizes.
    let seed = 7;
    const rand = () => (seed = (seed * 1103515245 + 12345) % 2147483648) / 2147483648;
    for (const [width, height, density] of [
      [23, 17, 0.5],
      [31, 9, 0.8],
      [12, 40, 0.15],
    ]) {
      const mask = new Uint8Array(width * height).map(() => (rand() < density ? 1 : 0));
      for (const r of [1, 2, 3, 5]) {
        const brute = (dilate: boolean, strict: boolean) => {
          const out = new Uint8Array(width * height);
          for (let y = 0; y < height; y++)
            for (let x = 0; x < width; x++) {
              let any = false;
              let all = true;
              for (let dy = -r; dy <= r; dy++)
                for (let dx = -r; dx <= r; dx++) {
                  if (dx * dx + dy * dy > r * r) continue;
                  const xx = x + dx;
                  const yy = y + dy;
                  const inside = xx >= 0 && yy >= 0 && xx < width && yy < height;
                  if (!inside) {
                    if (strict) all = false;
                    continue;
                  }
                  if (mask[yy * width + xx]) any = true;
                  else all = false;
                }
              out[y * width + x] = (dilate ? any : all) ? 1 : 0;
            }
          return Array.from(out);
        };
        expect(Array.from(dilateDisk(mask, width, height, r))).toEqual(brute(true, false));
        expect(Array.from(erodeDisk(mask, width, height, r))).toEqual(brute(false, true));
        expect(Array.from(erodeDisk(mask, width, height, r, 'ignore'))).toEqual(brute(false, false));
      }
    }
  });

  it('outline distance equals the brute-force squared distance to the nearest unset pixel', () => {
    let seed = 11;
    const rand = () => (seed = (seed * 1103515245 + 12345) % 2147483648) / 2147483648;
    for (const [width, height] of [
      [19, 13],
      [7, 30],
    ]) {
      const mask = new Uint8Array(width * height).map(() => (rand() < 0.85 ? 1 : 0));
      const d = outlineDistanceSquared(mask, width, height);
      for (let y = 0; y < height; y++)
        for (let x = 0; x < width; x++) {
          // Pixels outside the image count as unset: the nearest is one step beyond an edge.
          let best = Math.min(x + 1, y + 1, width - x, height - y) ** 2;
          for (let yy = 0; yy < height; yy++)
            for (let xx = 0; xx < width; xx++)
              if (!mask[yy * width + xx]) best = Math.min(best, (xx - x) ** 2 + (yy - y) ** 2);
          expect(d[y * width + x]).toBe(best);
        }
    }
  });
});
