/**
 * The overlay's colour-card outline: a thin line on the card's quadrilateral, nothing inside or outside
 * it; and corrected masks drawn in the same colours (`overlayOfMasks`).
 */
import { describe, expect, it } from 'vitest';
import type { RasterImage } from '@mango/core';
import { renderOverlay } from './overlay.ts';
import { overlayOfMasks } from './corrected.ts';

const grey = (w: number, h: number): RasterImage => {
  const data = new Uint8ClampedArray(w * h * 4);
  for (let i = 0; i < w * h; i++) data.set([128, 128, 128, 255], i * 4);
  return { width: w, height: h, data };
};
const px = (img: RasterImage, x: number, y: number) => [
  ...img.data.subarray((y * img.width + x) * 4, (y * img.width + x) * 4 + 3),
];

describe('overlay: the colour card outline', () => {
  const image = grey(200, 100);
  const none = new Uint8Array(200 * 100);
  // an axis-aligned card from pixel (40, 20) to pixel (120, 70), given in a raster twice as wide
  const card = {
    corners: [
      { x: 81, y: 41 },
      { x: 241, y: 41 },
      { x: 241, y: 141 },
      { x: 81, y: 141 },
    ],
    rasterWidth: 400,
  };

  it('paints the four edges in the card colour, scaled to the overlay, and leaves the rest as it was', () => {
    const plain = renderOverlay(image, none, none, 200);
    const drawn = renderOverlay(image, none, none, 200, undefined, card);
    const green = [60, 255, 60];
    for (const [x, y] of [
      [40, 45], // left edge
      [120, 45], // right edge
      [80, 20], // top edge
      [80, 70], // bottom edge
      [40, 20], // a corner
    ]) {
      expect(px(drawn, x, y), `${x},${y}`).toEqual(green);
      expect(px(plain, x, y)).toEqual([128, 128, 128]);
    }
    // inside the card, outside it and next to an edge: unchanged
    for (const [x, y] of [
      [80, 45],
      [10, 10],
      [38, 45],
      [42, 45],
      [80, 22],
    ])
      expect(px(drawn, x, y), `${x},${y}`).toEqual([128, 128, 128]);
    let painted = 0;
    for (let i = 0; i < 200 * 100; i++) if (drawn.data[i * 4 + 1] === 255) painted++;
    // a one-pixel line around 80 x 50: exactly its perimeter
    expect(painted).toBe(2 * (80 + 50));
  });

  it('without a card the overlay is unchanged', () => {
    expect(renderOverlay(image, none, none, 200).data).toEqual(renderOverlay(image, none, none, 200, undefined).data);
  });
});

/** A mask of w x h set on the rectangle [x0, x1) x [y0, y1). */
function rect(w: number, h: number, x0: number, y0: number, x1: number, y1: number) {
  const m = new Uint8Array(w * h);
  for (let y = y0; y < y1; y++) for (let x = x0; x < x1; x++) m[y * w + x] = 1;
  return m;
}

describe('overlayOfMasks: corrected masks drawn as the model overlay (issue 28: /viewphoto/result)', () => {
  const W = 120;
  const H = 80;
  const fruit = rect(W, H, 10, 10, 70, 60);
  const bruise = rect(W, H, 30, 20, 50, 40);

  it('outlines the fruit in cyan and tints the lesion, with its outline, in the plugin colours; the rest is the photo', () => {
    const out = overlayOfMasks(grey(W, H), { width: W, height: H, fruit, bruise }, 1600);
    expect([out.width, out.height]).toEqual([W, H]);
    expect(px(out, 10, 30)).toEqual([0, 210, 255]); // fruit edge
    expect(px(out, 30, 30)).toEqual([255, 0, 90]); // lesion edge
    // inside the lesion: 45 % photo, 55 % tint (128 * 0.45 + [255, 0, 90] * 0.55, rounded half to even)
    expect(px(out, 40, 30)).toEqual([198, 58, 107]);
    expect(px(out, 20, 30)).toEqual([128, 128, 128]); // healthy peel
    expect(px(out, 100, 70)).toEqual([128, 128, 128]); // background
  });

  it('counts a lesion painted off the fruit as fruit (outlined), as the figures do', () => {
    const off = rect(W, H, 90, 20, 110, 40);
    const out = overlayOfMasks(grey(W, H), { width: W, height: H, fruit, bruise: off }, 1600);
    expect(px(out, 90, 30)).toEqual([0, 210, 255]);
    expect(px(out, 40, 30)).toEqual([128, 128, 128]); // the old lesion is gone
  });

  it('upsamples masks of a working copy to the photo, and fits the overlay to maxSide', () => {
    const half = {
      width: W / 2,
      height: H / 2,
      fruit: rect(W / 2, H / 2, 5, 5, 35, 30),
      bruise: rect(W / 2, H / 2, 15, 10, 25, 20),
    };
    const full = overlayOfMasks(grey(W, H), half, 1600);
    const same = overlayOfMasks(grey(W, H), { width: W, height: H, fruit, bruise }, 1600);
    expect(full.data).toEqual(same.data);
    const small = overlayOfMasks(grey(W, H), { width: W, height: H, fruit, bruise }, 60);
    expect([small.width, small.height]).toEqual([60, 40]);
    expect(px(small, 20, 15)).not.toEqual([128, 128, 128]); // the lesion, at half size
  });

  it('refuses masks that do not hold width x height pixels', () => {
    expect(() => overlayOfMasks(grey(W, H), { width: W, height: H, fruit: new Uint8Array(3), bruise }, 1600)).toThrow(
      /need 9600 pixels/,
    );
  });
});
