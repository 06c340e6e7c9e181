/**
 * Reference tests: every value of every feature on every fixture image against the output of
 * shared/reference/features_ref.py (scikit-image 0.19) stored in fixtures/reference.json, with the
 * tolerances of shared/spec/features.md. Regenerate with fixtures/generate.ts.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { createContext, createImage, MangoError, runPlugin } from '@mango/core';
import { nodeImages } from '@mango/core/node';
import { loadImageFile, repoRoot } from '@mango/core/testing/node';
import { describe, expect, it } from 'vitest';
import features, { computeFeatures, FEATURE_DESCRIPTIONS, FEATURE_VALUE_NAMES } from './index.ts';
import { compareFeatures } from './tolerance.ts';
import { FEATURE_IDS, type FeatureId } from './names.ts';

const fixtures = join(repoRoot, 'plugins/features/fixtures');
interface ReferenceItem {
  image_name: string;
  features?: Record<string, Record<string, number>>;
  error?: string;
}
const reference: ReferenceItem[] = JSON.parse(readFileSync(join(fixtures, 'reference.json'), 'utf8'));

describe('features against the scikit-image reference (fixtures)', () => {
  it('has between 12 and 20 fixtures, all with features', () => {
    expect(reference.length).toBeGreaterThanOrEqual(12);
    expect(reference.length).toBeLessThanOrEqual(20);
    for (const item of reference) expect(item.features, item.image_name).toBeDefined();
  });

  it.each(reference.map((r) => [r.image_name, r] as const))('%s: all 13 features within tolerance', async (_, item) => {
    const image = await loadImageFile(join(fixtures, 'images', item.image_name));
    const got = computeFeatures(image, FEATURE_IDS);
    const { mismatches, compared } = compareFeatures(item.features!, got);
    expect(compared).toBe(81);
    expect(mismatches).toEqual([]);
  });
});

describe('value names and descriptions', () => {
  it('lists the reference value names in the reference order for every feature', () => {
    const first = reference[0].features!;
    for (const id of FEATURE_IDS) {
      expect(FEATURE_VALUE_NAMES[id], id).toEqual(Object.keys(first[id]));
      expect(FEATURE_DESCRIPTIONS[id].length, id).toBeGreaterThan(20);
    }
  });

  it('returns the names in FEATURE_VALUE_NAMES order', async () => {
    const image = await loadImageFile(join(fixtures, 'images', 'mango-bruises.png'));
    const got = computeFeatures(image, ['gabor', 'rgb']);
    expect(Object.keys(got)).toEqual(['rgb', 'gabor']);
    expect(Object.keys(got.gabor!)).toEqual(FEATURE_VALUE_NAMES.gabor);
  });
});

describe('features plugin', () => {
  const ctx = createContext(nodeImages);

  it('computes only the requested features and says when nothing was downscaled', async () => {
    const image = await loadImageFile(join(fixtures, 'images', 'ellipse-rotated.png'));
    const out = await runPlugin(features, image, { features: ['area', 'hsv'] }, ctx);
    expect(out.downscaled).toBe(false);
    expect(Object.keys(out.features).sort()).toEqual(['area', 'hsv']);
    const item = reference.find((r) => r.image_name === 'ellipse-rotated.png')!;
    expect(out.features.area.area).toBe(item.features!.area.area);
  });

  it('downscales images above maxSide and reports it', async () => {
    const image = await loadImageFile(join(fixtures, 'images', 'mango-bruises.png'));
    const out = await runPlugin(features, image, { features: ['area'], maxSide: 128 }, ctx);
    expect(out.downscaled).toBe(true);
    const full = reference.find((r) => r.image_name === 'mango-bruises.png')!.features!.area.area;
    // a quarter of the pixels, give or take the resampled edge
    expect(out.features.area.area / full).toBeGreaterThan(0.2);
    expect(out.features.area.area / full).toBeLessThan(0.3);
  });

  it('throws NO_FOREGROUND on a fully transparent image', async () => {
    const image = createImage(8, 8, [200, 100, 50, 0]);
    await expect(runPlugin(features, image, { features: ['rgb'] }, ctx)).rejects.toMatchObject({
      code: 'NO_FOREGROUND',
      message: 'no foreground pixels',
    });
    expect(() => computeFeatures(image, ['rgb'])).toThrow(MangoError);
  });

  it('rejects an empty feature list and unknown ids', async () => {
    const image = createImage(4, 4, [1, 2, 3, 255]);
    await expect(runPlugin(features, image, { features: [] }, ctx)).rejects.toMatchObject({ code: 'INVALID_INPUT' });
    await expect(runPlugin(features, image, { features: ['colour' as FeatureId] }, ctx)).rejects.toMatchObject({
      code: 'INVALID_INPUT',
    });
  });

  it('treats alpha 127 as background and 128 as foreground', () => {
    const image = createImage(2, 1, [0, 0, 0, 127]);
    image.data.set([255, 0, 0, 128], 4);
    const out = computeFeatures(image, ['rgb', 'area']);
    expect(out.rgb!.mean_R).toBe(255);
    expect(out.area!.area).toBe(1);
  });
});
