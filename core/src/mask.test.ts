import { describe, expect, it } from 'vitest';
import {
  dilateDisk,
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
});
