import { describe, expect, it } from 'vitest';
import { createContext, createImage, runPlugin, type RasterImage } from '@mango/core';
import { nodeImages } from '@mango/core/node';
import { imageFromText, seededRandom } from '@mango/core/testing';
import crop, { rotation } from './index.ts';

const ctx = () => createContext(nodeImages);

/** A w x h opaque image whose pixel (x, y) has red x, green y and blue a random value. */
function coordinateImage(w: number, h: number, seed = 1): RasterImage {
  const img = createImage(w, h);
  const rnd = seededRandom(seed);
  for (let y = 0; y < h; y++)
    for (let x = 0; x < w; x++) img.data.set([x, y, Math.floor(rnd() * 256), 255], (y * w + x) * 4);
  return img;
}

function pixel(img: RasterImage, x: number, y: number): number[] {
  const i = (y * img.width + x) * 4;
  return Array.from(img.data.subarray(i, i + 4));
}

describe('crop without rotation', () => {
  it('equals the sub-array of the image', async () => {
    const src = coordinateImage(7, 5);
    const out = await runPlugin(crop, src, { x: 2, y: 1, width: 4, height: 3 }, ctx());
    expect([out.width, out.height]).toEqual([4, 3]);
    for (let y = 0; y < 3; y++)
      for (let x = 0; x < 4; x++) expect(pixel(out.image, x, y)).toEqual(pixel(src, x + 2, y + 1));
  });

  it('keeps the whole image when the rectangle is the image, transparency included', async () => {
    const src = imageFromText(['ab', 'ba'], { a: [10, 20, 30, 0], b: [200, 100, 50, 128] });
    const out = await runPlugin(crop, src, { x: 0, y: 0, width: 2, height: 2 }, ctx());
    expect(Array.from(out.image.data)).toEqual(Array.from(src.data));
  });

  it('refuses a rectangle that leaves the image with a clear message', async () => {
    const src = coordinateImage(10, 8);
    await expect(runPlugin(crop, src, { x: 5, y: 0, width: 6, height: 2 }, ctx())).rejects.toThrow(
      'the crop rectangle (x 5, y 0, 6x2) leaves the image, which is 10x8',
    );
    await expect(runPlugin(crop, src, { x: 0, y: 0, width: 8, height: 10, rotate: 90 }, ctx())).resolves.toMatchObject({
      width: 8,
      height: 10,
    });
    await expect(runPlugin(crop, src, { x: 0, y: 0, width: 10, height: 8, rotate: 90 }, ctx())).rejects.toThrow(
      'leaves the image, which is 8x10 after rotating by 90 degrees',
    );
    await expect(runPlugin(crop, src, { x: -1, y: 0, width: 2, height: 2 }, ctx())).rejects.toThrow(
      'invalid options for crop',
    );
    await expect(runPlugin(crop, src, { x: 0, y: 0, width: 0, height: 2 }, ctx())).rejects.toThrow(
      'invalid options for crop',
    );
  });
});

describe('crop with rotation', () => {
  it('rotates 90 degrees clockwise by permuting pixels exactly', async () => {
    const src = imageFromText(['abc', 'def'], {
      a: [1, 0, 0, 255],
      b: [2, 0, 0, 255],
      c: [3, 0, 0, 255],
      d: [4, 0, 0, 255],
      e: [5, 0, 0, 255],
      f: [6, 0, 0, 0],
    });
    const out = await runPlugin(crop, src, { x: 0, y: 0, width: 2, height: 3, rotate: 90 }, ctx());
    // Clockwise: the left column (a over d) becomes the top row read right to left.
    const reds = [];
    for (let y = 0; y < 3; y++) for (let x = 0; x < 2; x++) reds.push(pixel(out.image, x, y)[0]);
    expect(reds).toEqual([4, 1, 5, 2, 6, 3]);
    expect(pixel(out.image, 0, 2)).toEqual([6, 0, 0, 0]);
  });

  it('gives the same pixels for 90, -270 and 450 degrees, and 180 reverses the image', async () => {
    const src = coordinateImage(9, 6, 7);
    const full = (rotate: number, w: number, h: number) =>
      runPlugin(crop, src, { x: 0, y: 0, width: w, height: h, rotate }, ctx());
    const a = await full(90, 6, 9);
    expect(Array.from((await full(-270, 6, 9)).image.data)).toEqual(Array.from(a.image.data));
    expect(Array.from((await full(450, 6, 9)).image.data)).toEqual(Array.from(a.image.data));
    const half = await full(180, 9, 6);
    for (let y = 0; y < 6; y++)
      for (let x = 0; x < 9; x++) expect(pixel(half.image, x, y)).toEqual(pixel(src, 8 - x, 5 - y));
    // Four quarter turns are the identity.
    let turned = src;
    for (let k = 0; k < 4; k++)
      turned = (
        await runPlugin(crop, turned, { x: 0, y: 0, width: turned.height, height: turned.width, rotate: 90 }, ctx())
      ).image;
    expect(Array.from(turned.data)).toEqual(Array.from(src.data));
  });

  it('grows the canvas to hold the rotated image, transparent in the corners', async () => {
    const rot = rotation(100, 50, 45);
    const expected = Math.ceil((150 * Math.SQRT2) / 2 - 1e-6); // (100 + 50) * cos 45
    expect([rot.width, rot.height]).toEqual([expected, expected]);
    const src = createImage(100, 50, [200, 100, 0, 255]);
    const out = await runPlugin(crop, src, { x: 0, y: 0, width: rot.width, height: rot.height, rotate: 45 }, ctx());
    expect(pixel(out.image, 0, 0)[3]).toBe(0); // corner outside the turned image
    const c = Math.floor(rot.width / 2);
    expect(pixel(out.image, c, c)).toEqual([200, 100, 0, 255]); // centre inside
    // Colours stay exact on the antialiased edge (premultiplied interpolation); only alpha fades.
    let edge = 0;
    for (let i = 0; i < out.image.data.length; i += 4) {
      const a = out.image.data[i + 3];
      if (a > 0 && a < 255) {
        edge++;
        expect([out.image.data[i], out.image.data[i + 1], out.image.data[i + 2]]).toEqual([200, 100, 0]);
      }
    }
    expect(edge).toBeGreaterThan(100);
    // Opaque area is close to the source area (5000 pixels).
    let alphaSum = 0;
    for (let i = 3; i < out.image.data.length; i += 4) alphaSum += out.image.data[i] / 255;
    expect(Math.abs(alphaSum - 5000)).toBeLessThan(5000 * 0.01);
  });

  it('samples bilinearly between pixels', async () => {
    // 2x2 image turned 45 degrees: the centre of the 3x3 canvas lies on the shared corner of all four pixels.
    const src = imageFromText(['ab', 'cd'], {
      a: [0, 0, 0, 255],
      b: [100, 0, 0, 255],
      c: [200, 0, 0, 255],
      d: [40, 0, 0, 255],
    });
    const rot = rotation(2, 2, 45);
    expect([rot.width, rot.height]).toEqual([3, 3]);
    const out = await runPlugin(crop, src, { x: 1, y: 1, width: 1, height: 1, rotate: 45 }, ctx());
    expect(pixel(out.image, 0, 0)).toEqual([85, 0, 0, 255]); // mean of 0, 100, 200, 40
  });
});
