import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { createContext, runPlugin } from '@mango/core';
import { decodeImage, nodeImages } from '@mango/core/node';
import { fruitScene, pasteCoin, sceneWithDisc } from '@mango/core/testing';
import { SHARED_MISSING, sharedDir } from '@mango/core/testing/node';
import bruise from './index.ts';
import { circleConfidence, roundness } from './reference.ts';

const ctx = () => createContext(nodeImages);
const shade = (u: number, v: number) => 1 - 0.15 * (u * u + v * v);
describe('reference scale from a disc in the photo', () => {
  it('measures the scale within 1 % (areas within 2 %) on generated photos, and never counts the disc as fruit', async () => {
    const measured: number[] = [];
    for (const [pxPerCm, seed] of [
      [40, 1],
      [24, 2],
      [61.5, 3],
    ] as const) {
      const { image, areas } = sceneWithDisc(pxPerCm, seed);
      const r = await runPlugin(bruise, image, { method: 'classical', referenceMm: 25 }, ctx());
      expect(r.scale_source).toBe('reference');
      expect(r.scale_status).toBe('found');
      expect(r.warnings).toBeUndefined();
      expect(r.fruits).toHaveLength(2);
      expect(r.reference).not.toBeNull();
      expect(r.reference!.x).toBeCloseTo((1450 * pxPerCm) / 40 + 0.5, 0);
      expect(r.reference!.confidence).toBeGreaterThan(0.5);
      expect(Math.abs(r.px_per_cm! / pxPerCm - 1)).toBeLessThan(0.01);
      for (const [i, fruit] of r.fruits.entries()) {
        const truthCm2 = areas[i + 1] / pxPerCm ** 2;
        measured.push(fruit.area_cm2! / truthCm2 - 1);
        expect(Math.abs(fruit.area_cm2! / truthCm2 - 1)).toBeLessThan(0.02);
      }
    }
    console.log(`generated: fruit cm² errors (%) ${measured.map((e) => (100 * e).toFixed(2)).join(', ')}`);
  });

  it('rings the reference object in yellow on the overlay', async () => {
    const { image } = sceneWithDisc(40, 8);
    const r = await runPlugin(bruise, image, { method: 'classical', referenceMm: 25, overlayMaxSide: 800 }, ctx());
    const overlay = r.images.overlay;
    if (overlay?.kind !== 'picture') throw new Error('no overlay');
    const o = overlay.image;
    const k = o.width / 1600;
    const at = (x: number, y: number) => Array.from(o.data.slice((y * o.width + x) * 4, (y * o.width + x) * 4 + 3));
    // on the ring (the disc's edge, 50 px from its centre at 40 px/cm), and not at its centre
    expect(at(Math.round(1450 * k), Math.round((760 - 50) * k))).toEqual([255, 220, 0]);
    expect(at(Math.round(1450 * k), Math.round(760 * k))).not.toEqual([255, 220, 0]);
  });

  it('a typed scale wins over the reference ("given"), and the reference is still reported and not fruit', async () => {
    const { image } = sceneWithDisc(40, 4);
    const r = await runPlugin(bruise, image, { method: 'classical', referenceMm: 25, pxPerCm: 50 }, ctx());
    expect(r.scale_source).toBe('given');
    expect(r.scale_status).toBe('given');
    expect(r.px_per_cm).toBe(50);
    expect(r.fruits).toHaveLength(2);
    expect(r.reference?.diameter_px).toBeCloseTo(100, -0.5);
  });

  it('without a reference option the disc is an object like any other; without a round object, reference is null', async () => {
    const { image } = sceneWithDisc(40, 6);
    const plain = await runPlugin(bruise, image, { method: 'classical' }, ctx());
    expect(plain.fruits).toHaveLength(3);
    expect(plain.scale_source).toBeNull();
    expect(plain.scale_status).toBe('none');
    expect(plain.warnings).toBeUndefined();
    expect(plain.reference).toBeUndefined();
    const noDisc = fruitScene({
      width: 800,
      height: 450,
      background: [200, 200, 205],
      seed: 7,
      fruits: [{ cx: 400, cy: 225, rx: 200, ry: 140, peel: [235, 170, 40], shade }],
    });
    const none = await runPlugin(bruise, noDisc.image, { method: 'classical', referenceMm: 25 }, ctx());
    expect(none.reference).toBeNull();
    expect(none.scale_source).toBeNull();
    expect(none.px_per_cm).toBeUndefined();
    expect(none.fruits).toHaveLength(1);
    // a reference asked for and not found is said loudly: its status and a warning
    expect(none.scale_status).toBe('not-found');
    expect(none.warnings).toEqual([
      'no 25 mm reference object found in the photo: it has no scale, so no cm² figures and no grade that needs them',
    ]);
    expect(none.fruit_area_cm2).toBeUndefined();
    // requireScale makes it an error for the photo (400 INVALID_INPUT, the same reason)
    await expect(
      runPlugin(bruise, noDisc.image, { method: 'classical', referenceMm: 25, requireScale: true }, ctx()),
    ).rejects.toMatchObject({ code: 'INVALID_INPUT', message: expect.stringContaining('no 25 mm reference object') });
    // ... and without any scale asked for, it names the options that give one
    await expect(
      runPlugin(bruise, noDisc.image, { method: 'classical', requireScale: true }, ctx()),
    ).rejects.toMatchObject({ code: 'INVALID_INPUT', message: expect.stringContaining('px_per_cm') });
    // a found or typed scale passes
    const found = await runPlugin(bruise, image, { method: 'classical', referenceMm: 25, requireScale: true }, ctx());
    expect(found.scale_status).toBe('found');
    const given = await runPlugin(
      bruise,
      noDisc.image,
      { method: 'classical', pxPerCm: 30, requireScale: true },
      ctx(),
    );
    expect([given.scale_status, given.px_per_cm]).toEqual(['given', 30]);
  });

  it('roundness: a digitised circle is round, a mango-shaped ellipse is not', () => {
    const w = 200;
    const labels = new Int32Array(w * w);
    for (let y = 0; y < w; y++)
      for (let x = 0; x < w; x++) {
        if ((x - 50) ** 2 + (y - 50) ** 2 <= 30 ** 2) labels[y * w + x] = 1;
        if (((x - 140) / 50) ** 2 + ((y - 140) / 37) ** 2 <= 1) labels[y * w + x] = 2;
      }
    const [disc, ellipse] = roundness(labels, w, w, 2);
    expect(disc.axisRatio).toBeGreaterThan(0.99);
    expect(circleConfidence(disc)).toBeGreaterThan(0.5);
    expect(ellipse.axisRatio).toBeCloseTo(0.74, 1);
    expect(circleConfidence(ellipse)).toBe(0);
  });
});

const shared = sharedDir();
const composites = shared && join(shared, 'data/bruise-dev/synthetic_composites');

describe.skipIf(!composites || !existsSync(composites))(
  `reference disc pasted into real dev photos${shared ? '' : ` (${SHARED_MISSING})`}`,
  () => {
    it('finds a pasted 25 mm coin beside the real fruit: scale within 1 %, the coin not counted as fruit', async () => {
      // The full-size photos (the 224 px SenMango crops are filled by their fruit: no room for a coin).
      const names = readdirSync(join(composites!, 'images')).filter((n) => n.startsWith('syn_mangodc'));
      const errors: number[] = [];
      const fruitErrors: number[] = [];
      for (const [k, name] of names.entries()) {
        const image = await decodeImage(readFileSync(join(composites!, 'images', name)), name);
        const fruitPng = await decodeImage(
          readFileSync(join(composites!, 'fruit_masks', name.replace(/\.jpg$/, '.png'))),
          name,
        );
        const { width, height } = image;
        const isFruit = (x: number, y: number) => fruitPng.data[(y * width + x) * 4] > 127;
        // The coin: 9 % of the short side across, in the first free corner (no fruit within its box).
        const d = Math.round(0.09 * Math.min(width, height));
        const m = Math.round(0.06 * Math.min(width, height));
        const corners = [
          [width - m - d / 2, height - m - d / 2],
          [m + d / 2, height - m - d / 2],
          [width - m - d / 2, m + d / 2],
          [m + d / 2, m + d / 2],
        ];
        const free = corners.find(([cx, cy]) => {
          for (let y = Math.floor(cy - d); y < cy + d; y++)
            for (let x = Math.floor(cx - d); x < cx + d; x++)
              if (x >= 0 && y >= 0 && x < width && y < height && isFruit(x, y)) return false;
          return true;
        });
        if (!free) continue;
        const pxPerCm = d / 2.5;
        pasteCoin(image, free[0], free[1], d, k + 1);
        const plain = await runPlugin(bruise, image, { method: 'classical' }, ctx());
        const r = await runPlugin(bruise, image, { method: 'classical', referenceMm: 25 }, ctx());
        expect(r.scale_source, name).toBe('reference');
        expect(Math.hypot(r.reference!.x - free[0] - 0.5, r.reference!.y - free[1] - 0.5), name).toBeLessThan(2);
        expect(r.fruits.length, name).toBe(plain.fruits.length - 1);
        const areaError = (r.px_per_cm! / pxPerCm) ** -2 - 1;
        errors.push(areaError);
        expect(Math.abs(areaError), name).toBeLessThan(0.02);
        // The whole fruit area in cm² against the truth mask at the true scale: this adds the fruit
        // segmentation's own error (fruit IoU median 0.988) to the scale's, hence the wider bound.
        let truthPixels = 0;
        for (let i = 0; i < width * height; i++) if (fruitPng.data[i * 4] > 127) truthPixels++;
        const fruitError = r.fruit_area_cm2! / (truthPixels / pxPerCm ** 2) - 1;
        fruitErrors.push(fruitError);
        expect(Math.abs(fruitError), name).toBeLessThan(0.05);
      }
      expect(errors.length).toBeGreaterThanOrEqual(4);
      const pct = (v: number[]) => v.map((e) => (100 * e).toFixed(2)).join(', ');
      console.log(`pasted coin: scale area errors (%) ${pct(errors)}; fruit cm² vs truth mask (%) ${pct(fruitErrors)}`);
    });
  },
);
