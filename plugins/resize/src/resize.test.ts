import { describe, expect, it } from 'vitest';
import { createContext, createImage, runPlugin } from '@mango/core';
import { nodeImages, decodeImage, encodeImage } from '@mango/core/node';
import resize, { targetSize, heightForWidth } from './index.ts';

describe('resize dimensions', () => {
  it('computes the other dimension from the ratio, rounded', () => {
    expect(targetSize(4000, 3000, { width: 1000, keepAspect: true })).toEqual({ width: 1000, height: 750 });
    expect(targetSize(4000, 3000, { height: 100, keepAspect: true })).toEqual({ width: 133, height: 100 });
    expect(heightForWidth(101, 4 / 3)).toBe(76); // 75.75 rounds up
    expect(targetSize(10, 10, { width: 3, height: 7, keepAspect: false })).toEqual({ width: 3, height: 7 });
  });

  it('keepAspect with both sides fits each image within the box, keeping its own ratio', () => {
    // the box is the first photo's (1280x720 at width 800): the others keep their shapes
    const box = { width: 800, height: 450, keepAspect: true };
    expect(targetSize(1280, 720, box)).toEqual({ width: 800, height: 450 });
    expect(targetSize(1600, 806, box)).toEqual({ width: 800, height: 403 });
    expect(targetSize(4000, 3000, box)).toEqual({ width: 600, height: 450 });
    expect(targetSize(3000, 4000, box)).toEqual({ width: 338, height: 450 });
    // never past the box by rounding, at least 1 pixel
    expect(targetSize(1001, 1000, { width: 10, height: 10, keepAspect: true })).toEqual({ width: 10, height: 10 });
    expect(targetSize(20000, 1, { width: 100, height: 100, keepAspect: true })).toEqual({ width: 100, height: 1 });
    // without keepAspect the box is the size
    expect(targetSize(4000, 3000, { ...box, keepAspect: false })).toEqual({ width: 800, height: 450 });
  });

  it('refuses a missing dimension without keepAspect', async () => {
    const ctx = createContext(nodeImages);
    await expect(runPlugin(resize, createImage(4, 4), { width: 2 }, ctx)).rejects.toThrow(
      'Please enter both width and height!',
    );
  });
});

describe('resize plugin on sharp', () => {
  it('resamples a gradient and keeps its mean colour', async () => {
    const src = createImage(200, 100);
    for (let y = 0; y < 100; y++)
      for (let x = 0; x < 200; x++) {
        const i = (y * 200 + x) * 4;
        src.data[i] = x;
        src.data[i + 1] = 2 * y;
        src.data[i + 2] = 128;
        src.data[i + 3] = 255;
      }
    const out = await runPlugin(resize, src, { width: 50, keepAspect: true }, createContext(nodeImages));
    expect(out.width).toBe(50);
    expect(out.height).toBe(25);
    let r = 0;
    let g = 0;
    for (let i = 0; i < out.image.data.length; i += 4) {
      r += out.image.data[i];
      g += out.image.data[i + 1];
    }
    const n = 50 * 25;
    expect(Math.abs(r / n - 99.5)).toBeLessThan(1);
    expect(g / n).toBeCloseTo(99, 0);
    // Round trip through JPEG, as the web export does.
    const jpeg = await encodeImage(out.image, 'jpeg');
    const back = await decodeImage(jpeg);
    expect([back.width, back.height, back.format]).toEqual([50, 25, 'jpeg']);
  });
});
