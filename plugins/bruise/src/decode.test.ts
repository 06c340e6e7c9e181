import { describe, expect, it } from 'vitest';
import sharp from 'sharp';
import { createContext, runPlugin } from '@mango/core';
import { decodeImage, nodeImages } from '@mango/core/node';
import bruise from './index.ts';

describe('bruise on a photo decoded straight to the working size (shrink-on-load)', () => {
  it('reports the same size, pixel counts and percentages as a full decode', async () => {
    // A yellow fruit with a brown bruise on grey, 2400x1800.
    const svg = `<svg xmlns="http://www.w3.org/2000/svg" width="2400" height="1800">
      <rect width="100%" height="100%" fill="#8c8c8a"/>
      <ellipse cx="1200" cy="900" rx="800" ry="560" fill="#e0b43c"/>
      <ellipse cx="1000" cy="800" rx="180" ry="140" fill="#6e5228"/></svg>`;
    const jpeg = await sharp(Buffer.from(svg)).jpeg({ quality: 92 }).toBuffer();
    const options = { method: 'classical' as const };
    const maxSide = bruise.decodeMaxSide!(bruise.options.parse(options));
    expect(maxSide).toBe(640);
    const ctx = createContext(nodeImages);
    const reduced = await decodeImage(jpeg, 'svg.jpg', undefined, { maxSide });
    expect([reduced.width, reduced.height]).toEqual([640, 480]);
    const fast = await runPlugin(bruise, reduced, options, ctx);
    const full = await runPlugin(bruise, await decodeImage(jpeg), options, ctx);
    expect([fast.width, fast.height]).toEqual([2400, 1800]);
    // Ellipse areas: fruit pi*800*560 = 1.407e6 px, bruise pi*180*140 = 79168 px (5.63 %).
    expect(fast.total_mango_pixels / (Math.PI * 800 * 560)).toBeCloseTo(1, 1);
    expect(Math.abs(fast.total_mango_pixels - full.total_mango_pixels) / full.total_mango_pixels).toBeLessThan(0.01);
    expect(Math.abs(fast.bruise_percent - full.bruise_percent)).toBeLessThan(0.3);
    expect(fast.bruise_percent).toBeGreaterThan(5);
    expect(fast.bruise_percent).toBeLessThan(6.5);
  });
});
