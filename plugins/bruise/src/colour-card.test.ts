import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  PATCH_PITCH_MM,
  cardOutline,
  createContext,
  localScale,
  project,
  runPlugin,
  type RasterImage,
} from '@mango/core';
import { applyLightCast, poseHomography, renderColourCard, renderPhotographedCard } from '@mango/core/testing';
import { SHARED_MISSING, loadImageFile, sharedDir } from '@mango/core/testing/node';
import { nodeImages } from '@mango/core/node';
import { createModelLoader } from '@mango/models';
import bruise from './index.ts';
import { CLIPPED_LEVEL, analyseBruise, clearClipped } from './analyse.ts';
import { BruiseOptions } from './schema.ts';

const shared = sharedDir();
const photo = shared && join(shared, 'data/bruise-dev/synthetic_composites/images/syn_mangodc_3-Center_2.jpg');

describe.skipIf(!photo || !existsSync(photo))(
  `a ColorChecker beside a real fruit${shared ? '' : ` (${SHARED_MISSING})`}`,
  () => {
    const pose = { x: 1340, y: 1130, pitchPx: 36, angleDeg: 160, tiltX: 0.03 };
    const run = async (image: RasterImage, options: object, want: string[] = []) =>
      runPlugin(bruise, image, { method: 'classical', ...options }, createContext(nodeImages, { want }));

    it('is found, corrects the photo, is not fruit and gives the scale (a typed px/cm wins)', async () => {
      const plain = await loadImageFile(photo!);
      const withCard = renderPhotographedCard(plain, pose);
      const warm = applyLightCast(withCard, 3500, 0);
      const before = await run(plain, { colourCard: 'off' });
      const after = await run(warm, {});
      expect(after.colour_card?.found).toBe(true);
      expect(after.colour_card!.patches).toBeGreaterThanOrEqual(18);
      expect(after.colour_card!.delta_e_before!.median).toBeGreaterThan(5);
      expect(after.colour_card!.delta_e_after!.median).toBeLessThan(2);
      expect(after.colour_card!.matrix).toHaveLength(3);
      // the card is not a fruit: one fruit, the same size as in the photo without a card (within 1 %)
      expect(after.fruits).toHaveLength(before.fruits.length);
      expect(Math.abs(after.total_mango_pixels / before.total_mango_pixels - 1)).toBeLessThan(0.01);
      // the warm cast, corrected, scores like the plain photo
      expect(Math.abs(after.bruise_percent - before.bruise_percent)).toBeLessThan(0.5);
      expect(after.scale_source).toBe('colour-card');
      const truth = localScale(poseHomography(pose), 2.5, 1.5) / (PATCH_PITCH_MM.classic / 10);
      expect(Math.abs(after.px_per_cm! / truth - 1)).toBeLessThan(0.01);
      const given = await run(warm, { pxPerCm: 20 });
      expect(given.scale_source).toBe('given');
      expect(given.px_per_cm).toBe(20);
      const passport = await run(warm, { cardKind: 'passport' });
      expect(passport.px_per_cm! / after.px_per_cm!).toBeCloseTo(PATCH_PITCH_MM.classic / PATCH_PITCH_MM.passport, 3);
    });

    it('a colour cast is not flagged when the card is found (its colours are corrected), and is with the card off (7500 K)', async () => {
      const withCard = renderPhotographedCard(await loadImageFile(photo!), pose);
      for (const kelvin of [2800, 7500]) {
        const lit = applyLightCast(withCard, kelvin, 0);
        const auto = await run(lit, {});
        expect(auto.colour_card?.found, `${kelvin} K`).toBe(true);
        expect(auto.quality!.flags.map((f) => f.id)).not.toContain('colour-cast');
      }
      // the card off, the same cool light is flagged (under 2800 K the classical method's fruit takes in
      // the white rig: no background is left to read, README.md "Photo quality")
      const off = await run(applyLightCast(withCard, 7500, 0), { colourCard: 'off' });
      expect(off.quality!.flags.find((f) => f.id === 'colour-cast')?.message).toMatch(/cooler \(bluer\)/);
    });

    it('outlines the card found on the overlay (thin, green), and draws nothing there with colourCard off', async () => {
      const plain = await loadImageFile(photo!);
      const h = poseHomography(pose);
      const withCard = renderColourCard(plain, h, { blur: 1, noise: 2 });
      const overlayOf = async (options: object) => {
        const r = await run(withCard, { ...options, overlayMaxSide: withCard.width }, ['overlay']);
        const o = r.images.overlay!;
        if (o.kind !== 'picture') throw new Error('no overlay');
        return o.image;
      };
      const auto = await overlayOf({});
      const off = await overlayOf({ colourCard: 'off' });
      // the overlay is drawn on the analysis' working copy: photo pixels scale by k
      const k = auto.width / withCard.width;
      expect(off.width).toBe(auto.width);
      const isGreen = (img: RasterImage, x: number, y: number) => {
        const i = (Math.round(y * k - 0.5) * img.width + Math.round(x * k - 0.5)) * 4;
        return img.data[i] === 60 && img.data[i + 1] === 255 && img.data[i + 2] === 60;
      };
      // points along the card's true border (the rendered card's outline, frame included), 10 per edge
      const corners = cardOutline(h);
      const border = corners.flatMap((a, e) => {
        const b = corners[(e + 1) % 4];
        return Array.from({ length: 10 }, (_, k) => ({
          x: a.x + ((b.x - a.x) * (k + 0.5)) / 10,
          y: a.y + ((b.y - a.y) * (k + 0.5)) / 10,
        }));
      });
      // the detected outline lies on the true one within a pixel or two of the overlay: look 2 px across it
      const near = (img: RasterImage, p: { x: number; y: number }) =>
        [-2, -1, 0, 1, 2].some((dy) => [-2, -1, 0, 1, 2].some((dx) => isGreen(img, p.x + dx / k, p.y + dy / k)));
      expect(border.filter((p) => near(auto, p)).length).toBeGreaterThanOrEqual(38);
      expect(border.filter((p) => near(off, p))).toHaveLength(0);
      // thin: the patches inside the card keep their colours
      const centre = project(h, 2.5, 1.5);
      expect(isGreen(auto, centre.x, centre.y)).toBe(false);
      const p0 = project(h, 0, 0);
      expect(isGreen(auto, p0.x, p0.y)).toBe(false);
    });

    it('without a card: found false, nothing changed; off: no colour_card field', async () => {
      const plain = await loadImageFile(photo!);
      const auto = await run(plain, {});
      const off = await run(plain, { colourCard: 'off' });
      expect(auto.colour_card).toEqual({
        found: false,
        patches: 0,
        delta_e_before: null,
        delta_e_after: null,
        matrix: null,
      });
      expect(off.colour_card).toBeUndefined();
      expect(auto.bruise_percent).toBe(off.bruise_percent);
      expect(auto.total_mango_pixels).toBe(off.total_mango_pixels);
      expect(auto.scale_source).toBeNull();
    });
  },
);

const overexposed = shared && join(shared, 'data/bruise-dev/aicup_defect_boxes/images/10870.jpg');
describe.skipIf(!overexposed || !existsSync(overexposed))(
  `clipped peel under a card, the shipped model${shared ? '' : ` (${SHARED_MISSING})`}`,
  () => {
    // on the grey cloth left of the tray, clear of the fruit
    const pose = { x: 150, y: 190, pitchPx: 30, angleDeg: 8 };
    const ctx = () => createContext(nodeImages, { models: createModelLoader(), want: ['bruise-mask'] });

    it('over-exposed peel the card brings down is not lesion: +1 EV scores as the photo as taken', async () => {
      const withCard = renderPhotographedCard(await loadImageFile(overexposed!), pose);
      const asTaken = await runPlugin(bruise, withCard, { method: 'model' }, ctx());
      const bright = applyLightCast(withCard, 6504, 1);
      const r = await runPlugin(bruise, bright, { method: 'model' }, ctx());
      expect(asTaken.colour_card?.found).toBe(true);
      expect(r.colour_card?.found).toBe(true);
      // clipping is judged on the photo as taken, not on the corrected copy (which the card darkens at +1 EV)
      const over = (q: typeof r) => q.quality!.flags.find((f) => f.id === 'overexposed')?.value ?? 0;
      // measured: as taken 0.129 (this tray photo clips a little itself), +1 EV 0.643 (read on the corrected
      // copy, which the card darkens, it was under 0.10 and not flagged)
      expect(over(asTaken)).toBeLessThan(0.2);
      expect(over(r)).toBeGreaterThan(0.5);
      // measured: 0 EV 0 %, +1 EV 0.13 %; without clearClipped +1 EV read 14.88 % (the clipped peel as lesion)
      expect(Math.abs(r.bruise_percent - asTaken.bruise_percent)).toBeLessThan(0.5);
      // no lesion pixel, nor lesion probability, where the photo as taken clipped (on the working copy,
      // where the rule is made: each pixel the mean of the photo's pixels it covers)
      const a = await analyseBruise(bright, BruiseOptions.parse({ method: 'model' }), {
        models: createModelLoader(),
        probability: true,
      });
      expect(a.taken).toBeDefined();
      let clipped = 0;
      let onClipped = 0;
      for (let i = 0; i < a.bruise.length; i++) {
        const d = a.taken!.data;
        if (Math.max(d[i * 4], d[i * 4 + 1], d[i * 4 + 2]) < CLIPPED_LEVEL || !a.fruit[i]) continue;
        clipped++;
        if (a.bruise[i] || a.probability![i]) onClipped++;
      }
      expect(clipped).toBeGreaterThan(10_000);
      expect(onClipped).toBe(0);
    }, 60_000);
  },
);

describe('clearClipped', () => {
  it('clears lesion and probability where a channel of the photo as taken is at CLIPPED_LEVEL or above, only there', () => {
    // red, none, none (249 is not clipped), blue, green
    const data = new Uint8ClampedArray([
      255, 180, 40, 255, 120, 80, 40, 255, 249, 249, 249, 255, 10, 10, 250, 255, 10, 250, 10, 255,
    ]);
    const taken: RasterImage = { width: 5, height: 1, data };
    const bruiseMask = new Uint8Array([1, 1, 1, 1, 1]);
    const probability = new Uint8Array([200, 200, 200, 200, 200]);
    clearClipped(taken, bruiseMask, probability);
    expect([...bruiseMask]).toEqual([0, 1, 1, 0, 0]);
    expect([...probability]).toEqual([0, 200, 200, 0, 0]);
    expect(() => clearClipped(taken, new Uint8Array(4), undefined)).toThrow(/differ in size/);
  });
});
