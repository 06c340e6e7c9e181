import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { PATCH_PITCH_MM, createContext, localScale, runPlugin, type RasterImage } from '@mango/core';
import { applyLightCast, poseHomography, renderColourCard } from '@mango/core/testing';
import { SHARED_MISSING, loadImageFile, sharedDir } from '@mango/core/testing/node';
import { nodeImages } from '@mango/core/node';
import bruise from './index.ts';

const shared = sharedDir();
const photo = shared && join(shared, 'data/bruise-dev/synthetic_composites/images/syn_mangodc_3-Center_2.jpg');

describe.skipIf(!photo || !existsSync(photo))(
  `a ColorChecker beside a real fruit${shared ? '' : ` (${SHARED_MISSING})`}`,
  () => {
    const pose = { x: 1340, y: 1130, pitchPx: 36, angleDeg: 160, tiltX: 0.03 };
    const run = async (image: RasterImage, options: object) =>
      runPlugin(bruise, image, { method: 'classical', ...options }, createContext(nodeImages, { want: [] }));

    it('is found, corrects the photo, is not fruit and gives the scale (a typed px/cm wins)', async () => {
      const plain = await loadImageFile(photo!);
      const h = poseHomography(pose);
      const withCard = renderColourCard(plain, h, {
        blur: 1,
        noise: 2,
        glare: { u: 3.2, v: 2.1, radius: 0.3, strength: 0.4 },
      });
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
      const truth = localScale(h, 2.5, 1.5) / (PATCH_PITCH_MM.classic / 10);
      expect(Math.abs(after.px_per_cm! / truth - 1)).toBeLessThan(0.01);
      const given = await run(warm, { pxPerCm: 20 });
      expect(given.scale_source).toBe('given');
      expect(given.px_per_cm).toBe(20);
      const passport = await run(warm, { cardKind: 'passport' });
      expect(passport.px_per_cm! / after.px_per_cm!).toBeCloseTo(PATCH_PITCH_MM.classic / PATCH_PITCH_MM.passport, 3);
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
