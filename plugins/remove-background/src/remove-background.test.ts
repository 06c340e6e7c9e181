import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { createContext, MangoError, runPlugin, type DecodedImage, type RasterImage } from '@mango/core';
import { decodeImage, nodeImages } from '@mango/core/node';
import { seededRandom } from '@mango/core/testing';
import { sharedDir, SHARED_MISSING } from '@mango/core/testing/node';
import plugin, { applyAlpha, evaluateFruitIoU, evaluateImage, removeBackgroundOptions } from './index.ts';

/** A grey picture with a green disc and a dark bruise inside it. */
function disc(width = 200, height = 160): { image: RasterImage; truth: Uint8Array } {
  const data = new Uint8ClampedArray(width * height * 4);
  const truth = new Uint8Array(width * height);
  for (let y = 0; y < height; y++)
    for (let x = 0; x < width; x++) {
      const i = y * width + x;
      const inFruit = (x - 100) ** 2 + (y - 80) ** 2 <= 55 ** 2;
      const inBruise = (x - 110) ** 2 + (y - 85) ** 2 <= 15 ** 2;
      truth[i] = inFruit ? 1 : 0;
      const c = inBruise ? [40, 45, 20] : inFruit ? [130, 160, 60] : [120, 120, 122];
      data.set([...c, 255], i * 4);
    }
  return { image: { width, height, data }, truth };
}

const ctx = () => createContext(nodeImages);

describe('remove-background plugin', () => {
  it('declares its contract', () => {
    expect(plugin.id).toBe('remove-background');
    expect(plugin.kind).toBe('transform');
    expect(plugin.runtimes).toEqual(['node', 'browser']);
    const defaults = removeBackgroundOptions.parse({});
    expect(defaults.feather).toBe(1);
    expect(removeBackgroundOptions.safeParse({ feather: -1 }).success).toBe(false);
  });

  it('makes the background transparent and keeps the fruit, holes included, opaque', async () => {
    const { image, truth } = disc();
    const out = await runPlugin(plugin, image, {}, ctx());
    expect(out.fruits).toBe(1);
    const area = truth.reduce((a, v) => a + v, 0);
    expect(Math.abs(out.fruit_pixels - area) / area).toBeLessThan(0.03);
    const a = (x: number, y: number) => out.image.data[(y * 200 + x) * 4 + 3];
    expect(a(5, 5)).toBe(0);
    expect(a(100, 80)).toBe(255);
    expect(a(110, 85)).toBe(255); // the dark bruise stays opaque
    expect(out.image.data[(70 * 200 + 80) * 4 + 1]).toBe(160); // colours untouched
    // A tight edge: along the middle row, alpha climbs from 0 to 255 within 3 px.
    const row = Array.from({ length: 200 }, (_, x) => a(x, 80));
    const partial = row.filter((v) => v > 0 && v < 255).length;
    expect(partial).toBeGreaterThan(0);
    expect(partial).toBeLessThanOrEqual(6);
  });

  it('gives a hard edge with feather 0', async () => {
    const { image } = disc();
    const out = await runPlugin(plugin, image, { feather: 0 }, ctx());
    let soft = 0;
    let opaque = 0;
    for (let j = 3; j < out.image.data.length; j += 4) {
      const v = out.image.data[j];
      if (v !== 0 && v !== 255) soft++;
      if (v === 255) opaque++;
    }
    expect(soft).toBe(0);
    expect(opaque).toBe(out.fruit_pixels);
  });

  it('reports NO_FOREGROUND on a plain picture', async () => {
    const data = new Uint8ClampedArray(64 * 48 * 4).fill(128);
    await expect(runPlugin(plugin, { width: 64, height: 48, data }, {}, ctx())).rejects.toBeInstanceOf(MangoError);
  });

  it('keeps an existing transparency in applyAlpha', () => {
    const image = { width: 2, height: 1, data: new Uint8ClampedArray([1, 2, 3, 100, 4, 5, 6, 255]) };
    const out = applyAlpha(image, Uint8Array.from([255, 128]));
    expect(Array.from(out.data)).toEqual([1, 2, 3, 100, 4, 5, 6, 128]);
  });

  it('gives an opaque decoded image (hasAlpha false) the same cut-out without re-reading its alpha', () => {
    const random = seededRandom(11);
    const n = 4096;
    const data = Uint8ClampedArray.from({ length: n * 4 }, (_, i) => (i % 4 === 3 ? 255 : Math.floor(random() * 256)));
    // Runs of 0 and 255 four pixels long and longer (the bulk path), and soft alphas between them.
    const alpha = Uint8Array.from({ length: n }, (_, i) => (i % 64 < 20 ? 0 : i % 64 < 48 ? 255 : random() * 256));
    const reference = applyAlpha({ width: 64, height: 64, data }, alpha);
    for (const inPlace of [false, true]) {
      const decoded = { width: 64, height: 64, data: data.slice(), format: 'jpeg', hasAlpha: false };
      expect(applyAlpha(decoded, alpha, inPlace).data).toEqual(reference.data);
    }
    // Told it has alpha, a transparent pixel inside a run of 255 stays transparent.
    const withHole = data.slice();
    withHole[20 * 4 + 3] = 0;
    const decodedPng: DecodedImage = { width: 64, height: 64, data: withHole, format: 'png', hasAlpha: true };
    const kept = applyAlpha(decodedPng, alpha);
    expect(Array.from(kept.data.subarray(80, 84))).toEqual([0, 0, 0, 0]);
    expect(kept.data[21 * 4 + 3]).toBe(255);
  });

  it('writes the same cut-out in place as into a fresh buffer, and leaves the input alone otherwise', async () => {
    const random = seededRandom(7);
    const n = 4096;
    const bytes = Uint8ClampedArray.from({ length: n * 4 + 1 }, () => Math.floor(random() * 256));
    // Every few pixels fully opaque or fully transparent already, and alphas 0, 255 and in between.
    for (let i = 0; i < n; i += 3) bytes[i * 4 + 3] = i % 2 ? 255 : 0;
    const alpha = Uint8Array.from({ length: n }, (_, i) => (i % 5 === 0 ? 0 : i % 5 === 1 ? 255 : random() * 256));
    // Aligned (whole RGBA words) and unaligned (one byte in: the byte-by-byte path) pixels.
    for (const offset of [0, 1]) {
      const image = { width: 64, height: 64, data: bytes.slice().subarray(offset, offset + n * 4) };
      const before = image.data.slice();
      const copy = applyAlpha(image, alpha);
      expect(image.data).toEqual(before);
      const inPlace = applyAlpha(image, alpha, true);
      expect(inPlace.data).toBe(image.data);
      expect(inPlace.data).toEqual(copy.data);
    }
    const { image } = disc();
    const original = image.data.slice();
    const fresh = await runPlugin(plugin, image, {}, ctx());
    expect(image.data).toEqual(original);
    const owned = await runPlugin(plugin, image, {}, createContext(nodeImages, { ownsImage: true }));
    expect(owned.image.data).toBe(image.data);
    expect(owned.image.data).toEqual(fresh.image.data);
    expect(owned.fruit_pixels).toBe(fresh.fruit_pixels);
  });

  it('gives every pixel min(alpha, its own alpha) and transparent black at 0, runs of 0 and 255 included', () => {
    const random = seededRandom(11);
    // 1001 pixels (not a whole number of four-pixel words): long runs of alpha 0 and 255 as in a
    // cut-out, short ones, and soft edges; some pixels already transparent or half transparent.
    const n = 1001;
    const src = Uint8ClampedArray.from({ length: n * 4 }, () => Math.floor(random() * 256));
    for (let i = 0; i < n; i++) src[i * 4 + 3] = i % 7 === 0 ? 0 : i % 11 === 0 ? 90 : 255;
    const runs = [0, 120, 255, 400, 3, 401, 255, 405, 0, 700, 200, 703, 255, 990, 17, 1001];
    for (const alphaOffset of [0, 1]) {
      const alpha = new Uint8Array(n + alphaOffset).subarray(alphaOffset);
      for (let r = 0; r < runs.length; r += 2) alpha.fill(runs[r], r ? runs[r - 1] : 0, runs[r + 1]);
      alpha[120] = 128;
      alpha[702] = 0;
      const expected = new Uint8ClampedArray(n * 4);
      for (let i = 0; i < n; i++) {
        const a = Math.min(alpha[i], src[i * 4 + 3]);
        if (a > 0) expected.set([src[i * 4], src[i * 4 + 1], src[i * 4 + 2], a], i * 4);
      }
      const image = { width: n, height: 1, data: src.slice() };
      expect(applyAlpha(image, alpha).data).toEqual(expected);
      expect(applyAlpha(image, alpha, true).data).toEqual(expected);
    }
  });

  it('computes IoU with pixel counts', () => {
    const r = evaluateFruitIoU(Uint8Array.from([1, 1, 0, 0]), Uint8Array.from([255, 0, 255, 0]));
    expect(r).toEqual({ iou: 1 / 3, predicted: 2, truth: 2, intersection: 1 });
    expect(() => evaluateFruitIoU(new Uint8Array(2), new Uint8Array(3))).toThrow(RangeError);
  });
});

const shared = sharedDir();
describe('fruit IoU on the shared synthetic composites', () => {
  it.skipIf(!shared)(shared ? 'median IoU >= 0.97 against the hand-checked fruit masks' : SHARED_MISSING, async () => {
    const root = join(shared!, 'data/bruise-dev/synthetic_composites');
    const files = readdirSync(join(root, 'images')).filter((f) => f.endsWith('.jpg'));
    expect(files.length).toBeGreaterThan(20);
    const ious: number[] = [];
    for (const file of files) {
      const image = await decodeImage(readFileSync(join(root, 'images', file)));
      const maskPng = await decodeImage(readFileSync(join(root, 'fruit_masks', file.replace(/\.jpg$/, '.png'))));
      const truth = new Uint8Array(image.width * image.height);
      for (let i = 0; i < truth.length; i++) truth[i] = maskPng.data[i * 4] > 127 ? 1 : 0;
      const r = evaluateImage(image, truth);
      expect(r.fruits).toBe(1); // one whole fruit per composite
      ious.push(r.iou);
    }
    ious.sort((a, b) => a - b);
    const median = ious[Math.floor(ious.length / 2)];
    console.info(`fruit IoU on ${ious.length} composites: median ${median.toFixed(4)}, min ${ious[0].toFixed(4)}`);
    expect(median).toBeGreaterThanOrEqual(0.97);
    expect(ious[0]).toBeGreaterThan(0.9);
  });
});
