import { describe, expect, it } from 'vitest';
import { fruitScene } from './index.ts';

describe('fruitScene', () => {
  const fruits = [
    { cx: 20, cy: 15, rx: 12, ry: 9, peel: [200, 150, 50] as [number, number, number], shade: () => 1 },
    {
      cx: 30,
      cy: 15,
      rx: 6,
      ry: 6,
      peel: [100, 120, 40] as [number, number, number],
      shade: (u: number) => 1 - 0.5 * u,
    },
  ];

  it('labels each ellipse (the later one on top), counts the areas and colours the pixels', () => {
    const { image, labels, mask, areas } = fruitScene({
      width: 48,
      height: 30,
      background: [10, 20, 30],
      backgroundAlpha: 0,
      fruits,
      seed: 1,
      noise: 0,
    });
    const counted = [0, 0, 0];
    for (let y = 0; y < 30; y++)
      for (let x = 0; x < 48; x++) {
        const i = y * 48 + x;
        let k = 0;
        fruits.forEach((f, j) => {
          if (((x - f.cx) / f.rx) ** 2 + ((y - f.cy) / f.ry) ** 2 <= 1) k = j + 1;
        });
        expect(labels[i]).toBe(k);
        expect(mask[i]).toBe(k ? 1 : 0);
        counted[k]++;
        const px = Array.from(image.data.subarray(i * 4, i * 4 + 4));
        if (k === 0) expect(px).toEqual([10, 20, 30, 0]);
        if (k === 1) expect(px).toEqual([200, 150, 50, 255]);
        if (k === 2) expect(px[0]).toBe(Math.round(100 * (1 - 0.5 * ((x - 30) / 6))));
      }
    expect(areas).toEqual(counted);
  });

  it('adds seeded noise within its amplitude, one value per pixel or per channel', () => {
    const spec = {
      width: 40,
      height: 30,
      background: [128, 128, 128] as [number, number, number],
      fruits: [],
      seed: 4,
    };
    const pixel = fruitScene(spec).image.data;
    const channel = fruitScene({ ...spec, noisePer: 'channel' }).image.data;
    expect(fruitScene(spec).image.data).toEqual(pixel);
    let differs = 0;
    for (let i = 0; i < pixel.length; i += 4) {
      for (let c = 0; c < 3; c++) {
        expect(Math.abs(pixel[i + c] - 128)).toBeLessThanOrEqual(3);
        expect(Math.abs(channel[i + c] - 128)).toBeLessThanOrEqual(3);
      }
      expect(pixel[i + 1]).toBe(pixel[i]);
      if (channel[i + 1] !== channel[i]) differs++;
    }
    expect(differs).toBeGreaterThan(100);
  });
});
