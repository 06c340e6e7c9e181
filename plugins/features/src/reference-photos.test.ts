/**
 * Live reference test: runs shared/reference/features_ref.py (scikit-image 0.19 under
 * /usr/bin/python3, numpy on the reference BLAS: skimageReference.ts) and the plugin on the same
 * pixels, for the 17 fixtures of fixtures/images and 10 real photos from ../shared/data
 * (skimageReference.ts referencePhotoSources: every dev photo the feature tests analyse). For each
 * image it checks:
 *   - G8, the 8-bit grey image, pixel for pixel against the very array the reference computed its
 *     GLCM, LBP and Otsu from (img_as_ubyte(rgb2gray(rgb / 255)));
 *   - all 81 values: within the spec's tolerances, and the values that depend only on G8 and the
 *     mask (gray_entropy, GLCM, LBP, fractal dimensions) to 1e-9 relative (exactTolerance).
 * Photos above 1024 px are compared on the image the plugin analyses (downscaled by it), saved as
 * PNG so both sides read identical pixels. Skips with a message when ../shared, the Python
 * reference or the reference BLAS is not available.
 */
import { mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createContext, runPlugin, type RasterImage } from '@mango/core';
import { encodeImage, nodeImages } from '@mango/core/node';
import { loadImageFile, repoRoot, sharedDir } from '@mango/core/testing/node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { grayPlanes } from './gray.ts';
import features, { DEFAULT_MAX_SIDE, downscaledSize } from './index.ts';
import {
  loadReferencePhoto,
  referencePhotoSources,
  referenceUnavailable,
  runReference,
  type ReferenceResult,
} from './skimageReference.ts';
import { compareFeatures, exactTolerance } from './tolerance.ts';
import { FEATURE_IDS } from './names.ts';

const shared = sharedDir();
const unavailable = referenceUnavailable(shared);
if (unavailable) console.warn(unavailable);

const fixtureDir = join(repoRoot, 'plugins/features/fixtures/images');
const fixtureNames = readdirSync(fixtureDir)
  .filter((f) => f.endsWith('.png'))
  .sort();
const photoSources = unavailable ? [] : referencePhotoSources(shared!);

interface Case {
  label: string;
  /** what the plugin receives */
  input: RasterImage;
  /** the pixels the plugin analyses (after its downscale) */
  analysed: RasterImage;
  /** file of those pixels, given to the reference */
  analysedPath: string;
  downscaled: boolean;
}

/** Pixels whose G8 differs, with the first few described. */
function g8Differences(image: RasterImage, reference: Uint8Array | undefined) {
  const ours = grayPlanes(image).g8;
  if (!reference || reference.length !== ours.length)
    return { count: -1, first: [`reference G8 has ${reference?.length} pixels, ours ${ours.length}`] };
  let count = 0;
  const first: string[] = [];
  for (let i = 0; i < ours.length; i++)
    if (ours[i] !== reference[i]) {
      if (count++ < 5) {
        const [r, g, b] = image.data.subarray(4 * i, 4 * i + 3);
        const x = i % image.width;
        const y = (i - x) / image.width;
        first.push(`(${x}, ${y}) rgb ${r},${g},${b}: ours ${ours[i]}, skimage ${reference[i]}`);
      }
    }
  return { count, first };
}

describe.skipIf(unavailable !== null)('G8 and features against the live scikit-image reference', () => {
  const cases = new Map<string, Case>();
  const reference = new Map<string, ReferenceResult>();
  let dir = '';

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'features-ref-'));
    for (const name of fixtureNames) {
      const path = join(fixtureDir, name);
      const image = await loadImageFile(path);
      cases.set(`fixture ${name}`, {
        label: name,
        input: image,
        analysed: image,
        analysedPath: path,
        downscaled: false,
      });
    }
    for (const [k, source] of photoSources.entries()) {
      const image = await loadReferencePhoto(source);
      const size = downscaledSize(image.width, image.height, DEFAULT_MAX_SIDE);
      const analysed = size ? await nodeImages.resize(image, size.width, size.height) : image;
      const analysedPath = join(dir, `photo-${k + 1}.png`);
      writeFileSync(analysedPath, await encodeImage(analysed, 'png'));
      const label = `${source.name} (${analysed.width}x${analysed.height})`;
      cases.set(`photo ${k + 1}`, { label, input: image, analysed, analysedPath, downscaled: size !== null });
    }
    const keys = [...cases.keys()];
    const results = runReference(
      shared!,
      keys.map((key) => cases.get(key)!.analysedPath),
    );
    results.forEach((r, i) => reference.set(keys[i], r));
  }, 900_000);

  /** The largest relative difference to scikit-image of each feature over the images compared, and where. */
  const worst = new Map<string, { rel: number; label: string }>();

  afterAll(() => {
    if (dir) rmSync(dir, { recursive: true, force: true });
    if (worst.size === 0) return;
    const lines = [...worst.entries()].map(([id, w]) => `  ${id}: ${w.rel.toExponential(2)} (${w.label})`);
    console.log(`max relative difference to scikit-image over ${cases.size} images:\n${lines.join('\n')}`);
  });

  it('covers the 17 fixtures and 10 photos (every dev photo the feature tests analyse), downscaled and transparent ones too', () => {
    expect(fixtureNames).toHaveLength(17);
    const photos = [...cases.entries()].filter(([key]) => key.startsWith('photo')).map(([, c]) => c);
    expect(photos).toHaveLength(10);
    for (const name of ['alternaria_001.jpg', 'healthy_001.jpg', '10911.jpg', '34737.jpg'])
      expect(photos.some((c) => c.label.startsWith(`${name} `))).toBe(true);
    expect(photos.some((c) => c.downscaled)).toBe(true);
    expect(photos.some((c) => !c.downscaled)).toBe(true);
    expect(photoSources.some((s) => s.fruitMask)).toBe(true);
  });

  const keys = [...fixtureNames.map((name) => `fixture ${name}`), ...photoSources.map((s, k) => `photo ${k + 1}`)];
  const titles = new Map(
    keys.map((key, k) => [
      key,
      k < fixtureNames.length ? key : `${key} (${photoSources[k - fixtureNames.length].name})`,
    ]),
  );

  for (const key of keys) {
    it(`${titles.get(key)}: G8 identical to skimage img_as_ubyte(rgb2gray) on every pixel`, () => {
      const c = cases.get(key)!;
      const ref = reference.get(key)!;
      expect(ref.error, c.label).toBeUndefined();
      const { count, first } = g8Differences(c.analysed, ref.g8);
      expect({ image: c.label, differingPixels: count, first }).toEqual({
        image: c.label,
        differingPixels: 0,
        first: [],
      });
    });

    it(`${titles.get(key)}: all 13 features within tolerance, G8-derived values exact`, async () => {
      const c = cases.get(key)!;
      const ctx = createContext(nodeImages);
      const out = await runPlugin(features, c.input, { features: [...FEATURE_IDS] }, ctx);
      expect(out.downscaled, c.label).toBe(c.downscaled);
      const expected = reference.get(key)!.features;
      expect(expected, c.label).toBeDefined();
      const spec = compareFeatures(expected!, out.features);
      for (const [id, rel] of Object.entries(spec.worst))
        if (rel >= (worst.get(id)?.rel ?? 0)) worst.set(id, { rel, label: c.label });
      expect(spec.compared).toBe(81);
      expect(spec.mismatches, `${c.label}: spec tolerances`).toEqual([]);
      const exact = compareFeatures(expected!, out.features, exactTolerance);
      expect(exact.mismatches, `${c.label}: values from G8 and the mask to 1e-9`).toEqual([]);
    });
  }
});
