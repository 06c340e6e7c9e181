import { describe, expect, it } from 'vitest';
import { rotation } from '@mango/plugin-crop';
import { BOX, clampCentre, cropRectangle, initialView, scaleOf } from './geometry.ts';

describe('crop page geometry', () => {
  it('covers the 4:3 box at zoom 1 and centres it on the image', () => {
    const v = initialView();
    expect(scaleOf(800, 500, v)).toBeCloseTo(0.72, 10);
    expect(cropRectangle(800, 500, v)).toEqual({ x: 67, y: 0, width: 667, height: 500, rotate: 0 });
    // An image already 4:3 is taken whole.
    expect(cropRectangle(4000, 3000, v)).toEqual({ x: 0, y: 0, width: 4000, height: 3000, rotate: 0 });
  });

  it('halves the rectangle at zoom 2 and keeps 4:3', () => {
    const r = cropRectangle(4000, 3000, { ...initialView(), zoom: 2 });
    expect(r).toEqual({ x: 1000, y: 750, width: 2000, height: 1500, rotate: 0 });
  });

  it('keeps the box inside the image when dragged too far', () => {
    const v = { ...initialView(), zoom: 2, cx: -5000, cy: 9000 };
    const c = clampCentre(4000, 3000, v);
    const r = cropRectangle(4000, 3000, { ...v, ...c });
    expect([r.x, r.y]).toEqual([2000, 0]); // dragged far left and down: the box shows the top right
    // displayed image is 960x720 stage pixels: its right edge sits on the box's right edge
    expect(c.cx + 480).toBeCloseTo(BOX.x + BOX.width, 6);
    expect(c.cy - 360).toBeCloseTo(BOX.y, 6);
  });

  it('stays inside the grown canvas of a rotated image, as the crop plugin requires', () => {
    for (const rotate of [15, 30, 45, 90, 135, 345])
      for (const zoom of [1, 1.7, 3]) {
        const v = { ...initialView(), rotate, zoom, cx: 1e6, cy: -1e6 };
        const r = cropRectangle(1600, 1336, { ...v, ...clampCentre(1600, 1336, v) });
        const canvas = rotation(1600, 1336, rotate);
        expect(r.x).toBeGreaterThanOrEqual(0);
        expect(r.y).toBeGreaterThanOrEqual(0);
        expect(r.x + r.width).toBeLessThanOrEqual(canvas.width);
        expect(r.y + r.height).toBeLessThanOrEqual(canvas.height);
        expect(Math.abs(r.width / r.height - 4 / 3)).toBeLessThan(0.01);
      }
  });
});
