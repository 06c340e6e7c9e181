import { describe, expect, it } from 'vitest';
import { blackBodyRgb, exposure, flipHorizontal, rotate90, sensorNoise, whiteBalanceCast } from './invariance.ts';

const img = (w: number, h: number, f: (x: number, y: number) => number[]) => {
  const data = new Uint8ClampedArray(w * h * 4);
  for (let y = 0; y < h; y++) for (let x = 0; x < w; x++) data.set([...f(x, y), 255], (y * w + x) * 4);
  return { width: w, height: h, data };
};

describe('invariance variants', () => {
  it('turns a picture a quarter counter-clockwise (as numpy.rot90) and four turns give it back', () => {
    const a = img(3, 2, (x, y) => [x * 10 + y, 0, 0]);
    const r = rotate90(a);
    expect([r.width, r.height]).toEqual([2, 3]);
    // numpy.rot90([[0, 10, 20], [1, 11, 21]]) = [[20, 21], [10, 11], [0, 1]]
    expect(Array.from({ length: 6 }, (_, i) => r.data[i * 4])).toEqual([20, 21, 10, 11, 0, 1]);
    expect(rotate90(rotate90(rotate90(r))).data).toEqual(a.data);
    expect(flipHorizontal(flipHorizontal(a)).data).toEqual(a.data);
    expect(flipHorizontal(a).data[0]).toBe(20);
  });
  it('a warm cast raises red against blue, a cool one the reverse; 6500 K changes nothing', () => {
    const grey = img(1, 1, () => [128, 128, 128]);
    const warm = whiteBalanceCast(grey, 3500).data;
    const cool = whiteBalanceCast(grey, 9000).data;
    expect(warm[0]).toBeGreaterThan(warm[2] + 40);
    expect(cool[2]).toBeGreaterThan(cool[0] + 15);
    expect(Array.from(whiteBalanceCast(grey, 6500).data)).toEqual([128, 128, 128, 255]);
    expect(blackBodyRgb(6600)).toEqual([255, expect.closeTo(255, -1), 255]);
  });
  it('+0.5 EV multiplies linear light by sqrt 2: sRGB 128 (linear 0.216) becomes 0.305, sRGB 150', () => {
    expect(
      exposure(
        img(1, 1, () => [128, 128, 128]),
        0.5,
      ).data[0],
    ).toBe(150);
    expect(
      exposure(
        img(1, 1, () => [128, 128, 128]),
        -0.5,
      ).data[0],
    ).toBe(109);
  });
  it('sensor noise has the stated sigma and is repeatable', () => {
    const flat = img(200, 200, () => [128, 128, 128]);
    const n = sensorNoise(flat, 6);
    let s2 = 0;
    for (let i = 0; i < n.data.length; i += 4) s2 += (n.data[i] - 128) ** 2;
    expect(Math.sqrt(s2 / 40000)).toBeCloseTo(6, 0);
    expect(sensorNoise(flat, 6).data).toEqual(n.data);
  });
});
