/**
 * Live reference test on real photos from ../shared/data: runs shared/reference/features_ref.py
 * (scikit-image 0.19 under /usr/bin/python3) and the plugin on the same pixels and compares every
 * value with the spec's tolerances. Photos above 1024 px are compared on the image the plugin
 * analyses (downscaled by it), saved as PNG so both sides read identical pixels. Skips with a
 * message when ../shared or the Python reference is not available.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { createContext, FEATURE_IDS, runPlugin, type RasterImage } from '@mango/core';
import { encodeImage, nodeImages } from '@mango/core/node';
import { loadImageFile, SHARED_MISSING, sharedDir } from '@mango/core/testing/node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import features, { DEFAULT_MAX_SIDE, downscaledSize } from './index.ts';
import { compareFeatures } from './tolerance.ts';

const shared = sharedDir();
const python = '/usr/bin/python3';
const hasReference =
  shared !== null && spawnSync(python, ['-c', 'import skimage, scipy, PIL'], { stdio: 'ignore' }).status === 0;
if (!shared) console.warn(SHARED_MISSING);
else if (!hasReference) console.warn(`skipped: ${python} with scikit-image is not available for the reference`);

interface Case {
  name: string;
  /** what the plugin receives */
  input: RasterImage;
  /** PNG of the pixels the plugin analyses (after its downscale), given to the reference */
  analysedPng: string;
  downscaled: boolean;
}

describe.skipIf(!hasReference)('features against the scikit-image reference on real photos', () => {
  const cases: Case[] = [];
  let reference: Record<string, Record<string, Record<string, number>>> = {};
  let dir = '';

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'features-ref-'));
    const data = join(shared!, 'data/bruise-dev');
    const pick = (sub: string, n: number) =>
      readdirSync(join(data, sub, 'images'))
        .filter((f) => /\.(jpe?g|png)$/i.test(f))
        .sort()
        .slice(0, n)
        .map((f) => join(data, sub, 'images', f));
    const sources: { name: string; image: RasterImage }[] = [];
    for (const path of [
      ...pick('senmango_real_lesions', 3),
      ...pick('synthetic_composites', 2),
      ...pick('aicup_defect_boxes', 1),
    ])
      sources.push({ name: basename(path), image: await loadImageFile(path) });
    // one composite made transparent: its fruit mask becomes the alpha channel
    const composite = pick('synthetic_composites', 3)[2];
    const stem = basename(composite).replace(/\.[^.]+$/, '');
    const photo = await loadImageFile(composite);
    const fruit = await loadImageFile(join(data, 'synthetic_composites/fruit_masks', `${stem}.png`));
    for (let i = 0; i < photo.width * photo.height; i++) photo.data[4 * i + 3] = fruit.data[4 * i];
    sources.push({ name: `${stem}-transparent.png`, image: photo });

    for (const { name, image } of sources) {
      const size = downscaledSize(image.width, image.height, DEFAULT_MAX_SIDE);
      const analysed = size ? await nodeImages.resize(image, size.width, size.height) : image;
      const analysedPng = join(dir, `${name.replace(/\.[^.]+$/, '')}.png`);
      writeFileSync(analysedPng, await encodeImage(analysed, 'png'));
      cases.push({ name, input: image, analysedPng, downscaled: size !== null });
    }
    const out = JSON.parse(
      execFileSync(python, [join(shared!, 'reference/features_ref.py'), ...cases.map((c) => c.analysedPng)], {
        encoding: 'utf8',
        maxBuffer: 64 << 20,
        env: { ...process.env, OPENBLAS_NUM_THREADS: '1' },
      }),
    ) as { image_name: string; features: Record<string, Record<string, number>> }[];
    reference = Object.fromEntries(out.map((r) => [r.image_name, r.features]));
  }, 900_000);

  afterAll(() => {
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it('covers 7 photos, including downscaled and transparent ones', () => {
    expect(cases).toHaveLength(7);
    expect(cases.some((c) => c.downscaled)).toBe(true);
    expect(cases.some((c) => !c.downscaled)).toBe(true);
  });

  for (let k = 0; k < 7; k++)
    it(`photo ${k + 1}: all 13 features within tolerance`, async () => {
      const c = cases[k];
      const ctx = createContext(nodeImages);
      const out = await runPlugin(features, c.input, { features: [...FEATURE_IDS] }, ctx);
      expect(out.downscaled, c.name).toBe(c.downscaled);
      const expected = reference[basename(c.analysedPng)];
      expect(expected, c.name).toBeDefined();
      const { mismatches, compared } = compareFeatures(expected, out.features);
      expect(compared).toBe(81);
      expect(mismatches, c.name).toEqual([]);
    });
});
