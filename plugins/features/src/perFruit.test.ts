/**
 * Per-fruit features (issue 27 item 3). Offline: crops, masks, boxes and cm values on a made-up
 * labelled image. Live: a real SenMango photo with two fruit, the fruit found by the bruise plugin
 * with the shipped model (auto), each fruit's 81 values against scikit-image on that fruit's crop and
 * mask (shared/reference/features_ref.py, as reference-photos.test.ts runs it).
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createContext, runPlugin, type RasterImage } from '@mango/core';
import { encodeImage, nodeImages } from '@mango/core/node';
import { loadImageFile, sharedDir } from '@mango/core/testing/node';
import { createModelLoader } from '@mango/models';
import bruise from '@mango/plugin-bruise';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { computeFeatures } from './computeFeatures.ts';
import features from './index.ts';
import { fruitCrop, fruitFeatures, labelBoundingBoxes, scaledValues } from './perFruit.ts';
import { referenceUnavailable, runReference, type ReferenceResult } from './skimageReference.ts';
import { compareFeatures, exactTolerance } from './tolerance.ts';
import { FEATURE_IDS } from './names.ts';

/** A 60 x 40 photo (a colour gradient) with fruit 1 a 20 x 10 block at (5, 4) and fruit 2 a disc at (40, 20). */
function scene() {
  const width = 60;
  const height = 40;
  const data = new Uint8ClampedArray(width * height * 4);
  const labels = new Uint8Array(width * height);
  for (let y = 0; y < height; y++)
    for (let x = 0; x < width; x++) {
      const i = y * width + x;
      data.set([4 * x, 6 * y, (x * y) % 256, 255], i * 4);
      if (x >= 5 && x < 25 && y >= 4 && y < 14) labels[i] = 1;
      if ((x - 40) ** 2 + (y - 20) ** 2 <= 64) labels[i] = 2;
    }
  return { image: { width, height, data } as RasterImage, labels };
}

describe('per-fruit crops and values', () => {
  it('boxes each fruit number, crops it with alpha on its own pixels only, and scales lengths and areas', () => {
    const { image, labels } = scene();
    const boxes = labelBoundingBoxes(labels, image.width, image.height, 3);
    expect(boxes).toEqual([{ x: 5, y: 4, width: 20, height: 10 }, { x: 32, y: 12, width: 17, height: 17 }, null]);
    const crop = fruitCrop(image, labels, 2, boxes[1]!);
    let opaque = 0;
    for (let y = 0; y < crop.height; y++)
      for (let x = 0; x < crop.width; x++) {
        const i = y * crop.width + x;
        const inDisc = (x + 32 - 40) ** 2 + (y + 12 - 20) ** 2 <= 64;
        expect(crop.data[i * 4 + 3]).toBe(inDisc ? 255 : 0);
        // the photo's own colour at that place
        expect(crop.data[i * 4]).toBe(4 * (x + 32));
        if (inDisc) opaque++;
      }
    const fruits = fruitFeatures(image, labels, 3, ['area', 'perimeter', 'rgb'], { pxPerCm: 4 });
    expect(fruits.map((f) => f.fruit)).toEqual([1, 2]);
    expect(fruits[0].features.area!.area).toBe(200);
    expect(fruits[1].features.area!.area).toBe(opaque);
    // fruit 1: a 20 x 10 block's mean R is that of x = 5..24
    expect(fruits[0].features.rgb!.mean_R).toBeCloseTo(4 * 14.5, 10);
    expect(fruits[0].scaled!.area_cm2).toBe(200 / 16);
    expect(fruits[0].scaled!.perimeter_cm).toBe(fruits[0].features.perimeter!.perimeter / 4);
    expect(Object.keys(fruits[0].scaled!)).toEqual([
      'area_cm2',
      'convex_area_cm2',
      'equivalent_diameter_cm',
      'perimeter_cm',
      'perimeter_crofton_cm',
    ]);
    expect(fruitFeatures(image, labels, 2, ['area'])[0].scaled).toBeUndefined();
    expect(scaledValues({ eccentricity: { major_axis_length: 10, minor_axis_length: 5 } }, 2)).toEqual({
      major_axis_length_cm: 5,
      minor_axis_length_cm: 2.5,
    });
  });

  it('refuses the fruit options without perFruit, and keeps the per-image values as they were with it', async () => {
    const { image } = scene();
    const ctx = createContext(nodeImages);
    await expect(runPlugin(features, image, { features: ['rgb'], pxPerCm: 10 }, ctx)).rejects.toThrow(
      /pxPerCm: only with perFruit/,
    );
    const plain = await runPlugin(features, image, { features: ['rgb', 'area'] }, ctx);
    expect(plain.fruits).toBeUndefined();
    expect(plain.features).toEqual(computeFeatures(image, ['rgb', 'area']));
  });
});

const shared = sharedDir();
const unavailable = referenceUnavailable(shared);
if (unavailable) console.warn(unavailable);

/**
 * A SenMango photo (224 x 224) of a fruit with a spot and, at the edge, part of a second fruit: the
 * shipped model finds both (the 6000-step model reads aspergillus_057.jpg, which
 * this test used before, as one fruit). The features of each are checked against scikit-image.
 */
const PHOTO = 'data/bruise-dev/senmango_real_lesions/images/aspergillus_024.jpg';

describe.skipIf(unavailable !== null)('per-fruit features of a real photo against scikit-image', () => {
  let dir = '';
  let photo: RasterImage;
  let result: Awaited<ReturnType<typeof features.run>>;
  let truth: Awaited<ReturnType<typeof bruise.run>>;
  const reference: ReferenceResult[] = [];

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'features-fruit-'));
    photo = await loadImageFile(join(shared!, PHOTO));
    const ctx = () => createContext(nodeImages, { models: createModelLoader(), filename: 'aspergillus_024.jpg' });
    result = await runPlugin(features, photo, { features: [...FEATURE_IDS], perFruit: true, pxPerCm: 25 }, ctx());
    // The bruise plugin on its own: its per-fruit figures and its fruit labels, which the crops come from.
    truth = await runPlugin(bruise, photo, { pxPerCm: 25 }, { ...ctx(), want: ['fruit-labels'] });
    const labels = truth.images['fruit-labels'];
    if (labels?.kind !== 'mask') throw new Error('no fruit-labels');
    const boxes = labelBoundingBoxes(labels.mask.data, photo.width, photo.height, truth.fruits.length);
    const paths = [];
    for (const [i, box] of boxes.entries()) {
      const path = join(dir, `fruit-${i + 1}.png`);
      writeFileSync(path, await encodeImage(fruitCrop(photo, labels.mask.data, i + 1, box!), 'png'));
      paths.push(path);
    }
    reference.push(...runReference(shared!, paths));
  }, 600_000);

  afterAll(() => {
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it("has the bruise plugin's fruit, in its order, with its figures and the model's masks", () => {
    expect(result.fruit_masks).toMatchObject({ method: 'model', width: 224, height: 224, px_per_cm: 25 });
    expect(result.fruit_masks!.model_id).toBe(truth.model_id);
    expect(truth.fruits.length).toBe(2);
    expect(result.fruits!.map((f) => f.fruit)).toEqual(truth.fruits.map((_, i) => i + 1));
    for (const [i, f] of result.fruits!.entries()) {
      const { features: _f, scaled: _s, fruit: _n, ...figures } = f;
      expect(figures).toEqual(truth.fruits[i]);
      // one piece each: the object's area is the fruit's pixel count, at full resolution
      expect(f.features.area.area).toBe(truth.fruits[i].pixels);
      expect(f.scaled!.area_cm2).toBeCloseTo(truth.fruits[i].area_cm2!, 3);
      expect(f.scaled!.perimeter_cm).toBe(f.features.perimeter.perimeter / 25);
    }
    // the whole photo's values are still those of the photo, not of a fruit
    expect(result.downscaled).toBe(false);
    expect(result.features.area.area).toBe(224 * 224);
  });

  for (const n of [1, 2]) {
    it(`fruit ${n}: all 81 values within the spec's tolerances of scikit-image on its crop and mask`, () => {
      const ref = reference[n - 1];
      expect(ref.error).toBeUndefined();
      const ours = result.fruits![n - 1].features;
      const spec = compareFeatures(ref.features!, ours);
      expect(spec.compared).toBe(81);
      expect(spec.mismatches).toEqual([]);
      expect(compareFeatures(ref.features!, ours, exactTolerance).mismatches).toEqual([]);
    });
  }
});
