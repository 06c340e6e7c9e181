import { describe, expect, it } from 'vitest';
import type { RasterImage } from './image.ts';
import { boxDownscale, boxSum4, downscaleArea, fitSize } from './resample.ts';
import { seededRandom } from './testing/index.ts';

function noise(width: number, height: number, seed: number): RasterImage {
  const rnd = seededRandom(seed);
  const data = new Uint8ClampedArray(width * height * 4);
  for (let i = 0; i < data.length; i++) data[i] = Math.floor(rnd() * 256);
  return { width, height, data };
}

/** Brute force: the mean of the source pixels [x0, x1) x [y0, y1) of channel c. */
function blockMean(image: RasterImage, x0: number, x1: number, y0: number, y1: number, c: number) {
  let s = 0;
  for (let y = y0; y < y1; y++) for (let x = x0; x < x1; x++) s += image.data[(y * image.width + x) * 4 + c];
  return s / ((x1 - x0) * (y1 - y0));
}

describe('boxDownscale', () => {
  it('averages blocks, including partial blocks at the edges', () => {
    const data = new Uint8ClampedArray(3 * 2 * 4);
    const vals = [10, 20, 30, 40, 50, 60];
    vals.forEach((v, i) => data.set([v, v, v, 255], i * 4));
    const out = boxDownscale({ width: 3, height: 2, data }, 2);
    expect(out.width).toBe(2);
    expect(out.height).toBe(1);
    expect(out.data[0]).toBe(30); // (10+20+40+50)/4
    expect(out.data[4]).toBe(45); // (30+60)/2
  });

  it('matches the brute-force block means to the byte, aligned or not', () => {
    const image = noise(23, 17, 3);
    const f = 4;
    const out = boxDownscale(image, f);
    // An unaligned copy of the same pixels takes the byte-reading path.
    const shifted = new Uint8ClampedArray(image.data.length + 1).subarray(1);
    shifted.set(image.data);
    const out2 = boxDownscale({ ...image, data: shifted }, f);
    expect(out.width).toBe(6);
    expect(out.height).toBe(5);
    for (let by = 0; by < out.height; by++)
      for (let bx = 0; bx < out.width; bx++)
        for (let c = 0; c < 4; c++) {
          const m = blockMean(image, bx * f, Math.min(23, bx * f + f), by * f, Math.min(17, by * f + f), c);
          const o = (by * out.width + bx) * 4 + c;
          expect(Math.abs(out.data[o] - m)).toBeLessThanOrEqual(0.5);
          expect(out2.data[o]).toBe(out.data[o]);
        }
  });
});

describe('downscaleArea', () => {
  it('is the mean of the cells floor(i * W / w) .. floor((i + 1) * W / w), rounded up', () => {
    const image = noise(31, 19, 5);
    const out = downscaleArea(image, 9, 7);
    for (let oy = 0; oy < 7; oy++)
      for (let ox = 0; ox < 9; ox++)
        for (let c = 0; c < 4; c++) {
          const x0 = Math.floor((ox * 31) / 9);
          const x1 = Math.floor(((ox + 1) * 31) / 9);
          const y0 = Math.floor((oy * 19) / 7);
          const y1 = Math.floor(((oy + 1) * 19) / 7);
          const m = blockMean(image, x0, x1, y0, y1, c);
          // acc / n + 0.5 through round-half-even: the mean rounded up (never below it, less than 1 above).
          const d = out.data[(oy * 9 + ox) * 4 + c] - m;
          expect(d).toBeGreaterThanOrEqual(0);
          expect(d).toBeLessThanOrEqual(1);
        }
    expect(downscaleArea(image, 31, 19)).toBe(image);
    expect(() => downscaleArea(image, 32, 19)).toThrow(RangeError);
  });

  it('rounds half up: 10 and 11 average to 11', () => {
    const data = new Uint8ClampedArray([10, 10, 10, 255, 11, 11, 11, 255]);
    expect(Array.from(downscaleArea({ width: 2, height: 1, data }, 1, 1).data)).toEqual([11, 11, 11, 255]);
  });

  it('to exactly half a side (its own fast path) gives the bytes of the general kernel', () => {
    for (const [w, h] of [
      [2, 2],
      [34, 18],
      [640, 480],
    ]) {
      const image = noise(w, h, w + h);
      // an unaligned copy of the same pixels takes the general kernel
      const unaligned = new Uint8ClampedArray(image.data.length + 1).subarray(1);
      unaligned.set(image.data);
      const fast = downscaleArea(image, w / 2, h / 2);
      expect(fast).toEqual(downscaleArea({ width: w, height: h, data: unaligned }, w / 2, h / 2));
      // and the brute-force mean of each 2x2 block, x (1 / 4) + 0.5 rounded half to even as Uint8ClampedArray does
      const k = 4 * ((h / 2 - 1) * (w / 2) + (w / 2 - 1));
      const at = (x: number, y: number) => image.data[4 * (y * w + x)];
      const sum = at(w - 2, h - 2) + at(w - 1, h - 2) + at(w - 2, h - 1) + at(w - 1, h - 1);
      expect(fast.data[k]).toBe(new Uint8ClampedArray([sum / 4 + 0.5])[0]);
    }
  });

  it('fitSize keeps the aspect ratio and never upscales', () => {
    expect(fitSize(4000, 3000, 1024)).toEqual({ width: 1024, height: 768 });
    expect(fitSize(300, 200, 1024)).toEqual({ width: 300, height: 200 });
  });
});

describe('boxSum4', () => {
  it('sums the clipped (2r+1)^2 window of each of the 4 channels (brute force)', () => {
    const w = 13;
    const h = 9;
    const rnd = seededRandom(11);
    const src = new Float32Array(w * h * 4);
    for (let i = 0; i < src.length; i++) src[i] = Math.round(rnd() * 100);
    for (const r of [0, 1, 3, 20]) {
      const out = new Float32Array(src.length);
      boxSum4(src, out, w, h, r);
      for (let y = 0; y < h; y++)
        for (let x = 0; x < w; x++)
          for (let c = 0; c < 4; c++) {
            let s = 0;
            for (let yy = Math.max(0, y - r); yy <= Math.min(h - 1, y + r); yy++)
              for (let xx = Math.max(0, x - r); xx <= Math.min(w - 1, x + r); xx++) s += src[(yy * w + xx) * 4 + c];
            expect(out[(y * w + x) * 4 + c]).toBe(s);
          }
    }
  });
});
