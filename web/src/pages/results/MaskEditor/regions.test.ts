import { describe, expect, it } from 'vitest';
import { growRegion, limitTo } from './regions.ts';

/** A map drawn as rows of digits: each digit d is the probability d * 25 (9 = 225). */
function drawn(rows: string[]) {
  const w = rows[0].length;
  const map = new Uint8Array(w * rows.length);
  rows.forEach((r, y) => [...r].forEach((c, x) => (map[y * w + x] = Number(c) * 25)));
  return { map, w, h: rows.length };
}
/** A mask as rows of '#' (set) and '.' (clear). */
const picture = (m: Uint8Array | null, w: number) =>
  m
    ? Array.from({ length: m.length / w }, (_, y) =>
        [...m.slice(y * w, y * w + w)].map((v) => (v ? '#' : '.')).join(''),
      )
    : null;

describe('growRegion (the magic wand)', () => {
  const { map, w, h } = drawn([
    '0000000000', //
    '0880000990',
    '0890000900',
    '0008000000', // the 8 at (3,3) touches (2,2) only diagonally
    '0000055000',
    '0000059000',
  ]);

  it('takes the 4-connected pixels at or above the threshold that contain the clicked one', () => {
    expect(picture(growRegion(map, w, h, 1, 1, 200), w)).toEqual([
      '..........',
      '.##.......',
      '.##.......',
      '..........',
      '..........',
      '..........',
    ]);
    // diagonal neighbours are not connected; a fractional click point is the pixel it falls in
    expect(picture(growRegion(map, w, h, 3.7, 3.2, 200), w)?.[3]).toBe('...#......');
    expect(growRegion(map, w, h, 3.7, 3.2, 200)!.reduce((a, v) => a + v, 0)).toBe(1);
  });

  it('grows further with a lower threshold, and gives null under it, outside the image or outside the limit', () => {
    const low = growRegion(map, w, h, 6, 5, 125)!;
    expect(picture(low, w)?.slice(4)).toEqual(['.....##...', '.....##...']);
    expect(growRegion(map, w, h, 6, 5, 200)!.reduce((a, v) => a + v, 0)).toBe(1); // only the 9
    expect(growRegion(map, w, h, 5, 4, 200)).toBeNull(); // a 5 (125) under 200
    expect(growRegion(map, w, h, -1, 0, 0)).toBeNull();
    expect(growRegion(map, w, h, 10, 0, 0)).toBeNull();
    // limited to the right half: the 9s at (7..8, 1) and (7, 2) stay, the seed outside is refused
    const right = new Uint8Array(w * h);
    for (let y = 0; y < h; y++) for (let x = 5; x < w; x++) right[y * w + x] = 1;
    expect(growRegion(map, w, h, 1, 1, 200, right)).toBeNull();
    expect(picture(growRegion(map, w, h, 8, 1, 200, right), w)?.slice(0, 3)).toEqual([
      '..........',
      '.......##.',
      '.......#..',
    ]);
    // threshold 0 inside the limit: the whole limit (it is 4-connected)
    expect(growRegion(map, w, h, 9, 5, 0, right)).toEqual(right);
  });

  it('refuses a map of the wrong size', () => {
    expect(() => growRegion(new Uint8Array(5), 2, 2, 0, 0, 0)).toThrow(/2x2 needs 4/);
  });
});

describe('limitTo', () => {
  it('keeps the edit inside the limit and the old pixels outside it', () => {
    const before = Uint8Array.from([1, 1, 0, 0]);
    const next = Uint8Array.from([0, 0, 1, 1]);
    expect(Array.from(limitTo(next, before, Uint8Array.from([1, 0, 1, 0])))).toEqual([0, 1, 1, 0]);
  });
});
