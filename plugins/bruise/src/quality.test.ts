import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import sharp from 'sharp';
import { createContext, runPlugin } from '@mango/core';
import { decodeImage, nodeImages } from '@mango/core/node';
import { applyLightCast } from '@mango/core/testing';
import { SHARED_MISSING, sharedDir } from '@mango/core/testing/node';
import bruise from './index.ts';
import { TRIP_PHOTOS } from './eval/quality-photos.ts';
import {
  QUALITY_FLAG_IDS,
  QUALITY_THRESHOLDS,
  UNMEASURED,
  measureQuality,
  qualityFlags,
  type QualityMeasures,
} from './quality.ts';
import { analyseBruise } from './analyse.ts';
import { BruiseOptions } from './schema.ts';
import { BruiseResultItem, FLAG_TEXTS } from './results.ts';
import { BRUISE_TH } from './th.ts';

const shared = sharedDir();
const composites = shared ? join(shared, 'data', 'bruise-dev', 'synthetic_composites', 'images') : null;
/** A real dev photo (224 px, one whole green mango on grey) that passes every check. */
const CLEAN = 'syn_senmango_healthy_188.jpg';
/** A real dev photo on a light grey background, read near the daylight balance as it is. */
const CAST_PHOTO = 'syn_senmango_healthy_007.jpg';

const REASONS: Record<(typeof QUALITY_FLAG_IDS)[number], RegExp> = {
  blur: /^out of focus: the fruit's outline is blurred over [\d.]+ % of its diameter, more than 3.5 %/,
  overexposed: /^over-exposed: \d+(\.\d)? % of the fruit's peel .* clipped white .* more than 10 %/,
  underexposed: /^under-exposed: \d+(\.\d)? % of the fruit's peel .* clipped black .* more than 10 %/,
  'cut-by-edge': /^a fruit is cut by the frame edge along \d+(\.\d)? % of its diameter \(more than 15 %\)/,
  'fruit-too-small': /^fruit too small: the smallest fruit is [\d.]+ px across .* fewer than 64 px/,
  'jpeg-compression': /^heavy JPEG compression: the file was saved at quality 10 .* below 40/,
  'colour-cast':
    /^colour cast: the near-grey background reads a light of about \d+ K, [\d.]+ mired (warmer \(yellower\)|cooler \(bluer\)) than the camera's daylight balance \(6500 K\), more than (50|20), and there is no colour card/,
};

/** The plugin run as the front ends run it (default options; no model installed: classical). */
async function score(bytes: Uint8Array, options: Record<string, unknown> = {}) {
  const image = await decodeImage(bytes, 'photo.jpg', undefined, { maxSide: 640 });
  return runPlugin(bruise, image, options, createContext(nodeImages, { filename: 'photo.jpg', want: [] }));
}

describe.skipIf(!composites || !existsSync(composites))(
  `photo-quality flags on real dev photos made to trip them${shared ? '' : ` (${SHARED_MISSING})`}`,
  () => {
    const clean = () => new Uint8Array(readFileSync(join(composites!, CLEAN)));

    it('the clean dev photo raises no flag, and its result carries an empty list', async () => {
      const r = await score(clean());
      expect(r.quality).toEqual({ flags: [] });
      expect(BruiseResultItem.omit({ overlay_img: true }).safeParse(r).success).toBe(true);
    });

    for (const id of QUALITY_FLAG_IDS) {
      it(`${id}: ${TRIP_PHOTOS[id].what} trips it, with its figure past the threshold and a reason`, async () => {
        const before = await score(clean());
        expect(before.quality!.flags.map((f) => f.id)).not.toContain(id);
        const r = await score(await TRIP_PHOTOS[id].make(clean()));
        const flag = r.quality!.flags.find((f) => f.id === id);
        expect(flag, JSON.stringify(r.quality)).toBeDefined();
        const low = id === 'fruit-too-small' || id === 'jpeg-compression';
        if (low) expect(flag!.value).toBeLessThan(flag!.threshold);
        else expect(flag!.value).toBeGreaterThan(flag!.threshold);
        // the reason says what is wrong in words, with the figure and the threshold
        expect(flag!.message).toMatch(REASONS[id]);
        expect(flag!.message).toMatch(/\d.*\d/);
      });
    }

    it('strictQuality refuses a flagged photo with the reason and scores a clean one', async () => {
      const q10 = await TRIP_PHOTOS['jpeg-compression'].make(clean());
      await expect(score(q10, { strictQuality: true })).rejects.toMatchObject({
        code: 'POOR_QUALITY',
        status: 422,
        message: expect.stringMatching(/refused by strict quality: heavy JPEG compression: .*quality 10/),
      });
      const ok = await score(clean(), { strictQuality: true });
      expect(ok.quality).toEqual({ flags: [] });
      expect(ok.total_mango_pixels).toBeGreaterThan(10_000);
    });

    it('a fruit mask run out to the frame through a neck (leaves, a neighbour) is not a fruit cut by the frame', async () => {
      const image = await decodeImage(clean(), 'photo.jpg', undefined, { maxSide: 640 });
      const options = BruiseOptions.parse({});
      const a = await analyseBruise(image, options);
      expect(measureQuality(a, image, options).cutByEdge).toBe(0);
      const { width: w } = a.work;
      let top = Infinity;
      let x0 = Infinity;
      let x1 = -Infinity;
      let n = 0;
      a.fruitLabels.forEach((l, i) => {
        if (l !== 1) return;
        n++;
        top = Math.min(top, Math.floor(i / w));
        x0 = Math.min(x0, i % w);
        x1 = Math.max(x1, i % w);
      });
      const d = Math.sqrt((4 * n) / Math.PI);
      const cx = Math.round((x0 + x1) / 2);
      expect(top).toBeGreaterThan(5);
      // what a segmentation running into the surroundings draws: a 3 px neck from the fruit's top to the
      // frame, and a strip 6 px deep along the frame over 40 % of the fruit's diameter
      const labels = a.fruitLabels.slice();
      for (let y = 0; y <= top; y++) for (let x = cx - 1; x <= cx + 1; x++) labels[y * w + x] = 1;
      for (let y = 0; y < 6; y++)
        for (let x = Math.round(cx - 0.2 * d); x <= Math.round(cx + 0.2 * d); x++) labels[y * w + x] = 1;
      const leaked = { ...a, fruitLabels: labels, fruit: Uint8Array.from(labels, (l) => (l ? 1 : 0)) };
      // its outline lies along the frame over 0.4 of its diameter (flagged before), but that is not the fruit's own
      const m = measureQuality(leaked, image, options);
      expect(m.cutByEdge).toBe(0);
      expect(qualityFlags(m).map((f) => f.id)).not.toContain('cut-by-edge');
      // the fruit itself moved to the frame (its top 12 % cut off) is cut by it
      const shift = Math.round(top + 0.12 * d);
      const cut = new Int32Array(labels.length);
      for (let i = shift * w; i < labels.length; i++) cut[i - shift * w] = a.fruitLabels[i];
      const c = measureQuality(
        { ...a, fruitLabels: cut, fruit: Uint8Array.from(cut, (l) => (l ? 1 : 0)) },
        image,
        options,
      );
      expect(c.cutByEdge).toBeGreaterThan(QUALITY_THRESHOLDS.cutByEdge);
    });

    it('colour cast: a real dev photo under a 7500 K or a 2800 K light (camera balanced for daylight) trips it, as it is not', async () => {
      const image = await decodeImage(readFileSync(join(composites!, CAST_PHOTO)), 'photo.jpg', undefined, {
        maxSide: 640,
      });
      const lit = async (kelvin: number) => {
        const r = await runPlugin(bruise, applyLightCast(image, kelvin), {}, createContext(nodeImages, { want: [] }));
        return r.quality!.flags.find((f) => f.id === 'colour-cast');
      };
      expect(await lit(6504)).toBeUndefined();
      const cool = await lit(7500);
      expect(cool?.message, 'a 7500 K light').toMatch(/cooler \(bluer\)/);
      expect(cool!.threshold).toBe(QUALITY_THRESHOLDS.colourCastCool);
      expect(cool!.value).toBeGreaterThan(QUALITY_THRESHOLDS.colourCastCool);
      const warm = await lit(2800);
      expect(warm?.message, 'a 2800 K light').toMatch(/warmer \(yellower\)/);
      expect(warm!.threshold).toBe(QUALITY_THRESHOLDS.colourCastWarm);
      // a 2800 K light is 203 mired warmer than 6504 K: the reading is near it
      expect(warm!.value).toBeGreaterThan(150);
      expect(warm!.value).toBeLessThan(260);
      // the reading of the photo as it is: near the daylight balance
      const a = await analyseBruise(image, BruiseOptions.parse({}));
      expect(Math.abs(measureQuality(a, image, BruiseOptions.parse({})).colourCast!)).toBeLessThan(10);
    });

    it('the JPEG quality is read from the file: q30 is flagged with value 30, q50 passes', async () => {
      const save = async (q: number) => score(new Uint8Array(await sharp(clean()).jpeg({ quality: q }).toBuffer()));
      expect((await save(30)).quality!.flags.find((f) => f.id === 'jpeg-compression')!.value).toBe(30);
      expect((await save(50)).quality!.flags.map((f) => f.id)).not.toContain('jpeg-compression');
    });
  },
);

describe('qualityFlags', () => {
  const none: QualityMeasures = UNMEASURED;
  it('a figure at its threshold passes; past it, flags; null is not measured', () => {
    const t = QUALITY_THRESHOLDS;
    expect(qualityFlags(none)).toEqual([]);
    expect(qualityFlags({ ...none, blur: t.blur, fruitAcross: t.fruitAcross, jpegQuality: t.jpegQuality })).toEqual([]);
    const flags = qualityFlags({ ...none, blur: t.blur + 0.01, fruitAcross: t.fruitAcross - 1, jpegQuality: 39 });
    expect(flags.map((f) => [f.id, f.value, f.threshold])).toEqual([
      ['blur', t.blur + 0.01, t.blur],
      ['fruit-too-small', t.fruitAcross - 1, t.fruitAcross],
      ['jpeg-compression', 39, t.jpegQuality],
    ]);
  });
  it('a colour card in the photo (colour_card.found) silences the cast flag', () => {
    const cast = { ...none, colourCast: QUALITY_THRESHOLDS.colourCastWarm + 10 };
    expect(qualityFlags(cast).map((f) => f.id)).toEqual(['colour-cast']);
    expect(qualityFlags(cast, true)).toEqual([]);
  });
  it('the cast flag has a threshold per side of the daylight balance: warmer by 50 mired, cooler by 20', () => {
    const { colourCastWarm: warm, colourCastCool: cool } = QUALITY_THRESHOLDS;
    const flag = (shift: number) => qualityFlags({ ...none, colourCast: shift }).map((f) => [f.value, f.threshold]);
    expect([warm, warm - 15, 0, -cool].map(flag)).toEqual([[], [], [], []]);
    expect(flag(warm + 0.1)).toEqual([[warm + 0.1, warm]]);
    expect(flag(-cool - 0.1)).toEqual([[cool + 0.1, cool]]);
    const [cooler] = qualityFlags({ ...none, colourCast: -25 });
    expect(cooler.message).toMatch(/about 7800 K, 25\.0 mired cooler \(bluer\) .* more than 20,/);
    const [warmer] = qualityFlags({ ...none, colourCast: 203.4 });
    expect(warmer.message).toMatch(/about 2800 K, 203\.4 mired warmer \(yellower\) .* more than 50,/);
  });
});

describe('the flags in Thai', () => {
  it('every flag id has a sentence, and the Thai catalogue has each sentence with the same placeholders', () => {
    for (const id of QUALITY_FLAG_IDS) {
      const english = FLAG_TEXTS[id]?.text;
      expect(english, id).toBeDefined();
      const thai = BRUISE_TH[english];
      expect(thai, `th.ts has no line for ${english}`).toMatch(/[\u0E00-\u0E7F]/);
      expect(thai.match(/{{\w+}}/g)?.sort()).toEqual(english.match(/{{\w+}}/g)?.sort());
    }
  });
});
