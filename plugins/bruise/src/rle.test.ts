import { describe, expect, it } from 'vitest';
import { seededRandom } from '@mango/core/testing';
import {
  countsToString,
  decodeCocoRle,
  decodeLabelStudioRle,
  encodeCocoRle,
  encodeLabelStudioRle,
  fillPolygon,
  maskToCounts,
  stringToCounts,
} from './rle.ts';

describe('mask encodings', () => {
  it('COCO RLE: the string pycocotools 2.0.11 gives for a 7x9 mask, and back', () => {
    const mask = new Uint8Array(7 * 9);
    for (let y = 1; y < 4; y++) for (let x = 2; x < 6; x++) mask[y * 9 + x] = 1;
    for (let x = 0; x < 9; x++) mask[5 * 9 + x] = 1;
    mask[6 * 9 + 8] = 1;
    // pycocotools.mask.encode(np.asfortranarray(m)) of the same mask
    expect(encodeCocoRle(mask, 9, 7)).toEqual({ size: [7, 9], counts: '5160L2ON12ON12ON12ON500001' });
    expect(decodeCocoRle({ size: [7, 9], counts: '5160L2ON12ON12ON12ON500001' }).mask).toEqual(mask);
    expect(decodeCocoRle({ size: [7, 9], counts: maskToCounts(mask, 9, 7) }).mask).toEqual(mask);
  });

  it('COCO RLE and Label Studio brush RLE round-trip random masks exactly', () => {
    const rnd = seededRandom(4);
    for (const [w, h] of [
      [1, 1],
      [13, 7],
      [64, 48],
    ]) {
      const mask = new Uint8Array(w * h);
      // blobs, so that runs are of all lengths
      for (let i = 0; i < mask.length; i++) mask[i] = rnd() < (i % w < w / 2 ? 0.9 : 0.1) ? 1 : 0;
      const counts = maskToCounts(mask, w, h);
      expect(stringToCounts(countsToString(counts))).toEqual(counts);
      expect(decodeCocoRle(encodeCocoRle(mask, w, h)).mask).toEqual(mask);
      expect(decodeLabelStudioRle(encodeLabelStudioRle(mask), w, h)).toEqual(mask);
    }
    expect(() => decodeLabelStudioRle(encodeLabelStudioRle(new Uint8Array(4)), 3, 3)).toThrow(/not 3x3x4/);
    expect(() => decodeCocoRle({ size: [2, 2], counts: [1, 1] })).toThrow(/covers 2 of 4/);
  });

  it('fills polygons at pixel centres as pycocotools does for a rectangle', () => {
    const m = new Uint8Array(7 * 9);
    fillPolygon(m, 9, 7, [
      [1, 1],
      [8, 1],
      [8, 5],
      [1, 5],
    ]);
    // pycocotools.mask.decode(frPyObjects([[1,1, 8,1, 8,5, 1,5]], 7, 9)): rows 1-4, columns 1-7
    for (let y = 0; y < 7; y++)
      for (let x = 0; x < 9; x++) expect(m[y * 9 + x], `${x},${y}`).toBe(y >= 1 && y <= 4 && x >= 1 && x <= 7 ? 1 : 0);
  });
});
