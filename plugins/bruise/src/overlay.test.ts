/** The overlay's colour-card outline: a thin line on the card's quadrilateral, nothing inside or outside it. */
import { describe, expect, it } from 'vitest';
import type { RasterImage } from '@mango/core';
import { renderOverlay } from './overlay.ts';

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
