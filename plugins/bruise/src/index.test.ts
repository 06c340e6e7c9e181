import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { createContext, dilateDisk, runPlugin, type PluginImages, type RasterImage } from '@mango/core';
import { decodeImage, nodeImages } from '@mango/core/node';
import { fruitScene, seededRandom } from '@mango/core/testing';
import { sharedDir, SHARED_MISSING } from '@mango/core/testing/node';
import { conv1x1Model, createModelLoader, MODELS_DIR, sha256File } from '@mango/models';
import { cocoTruth } from './eval/coco.ts';
import { bruiseMasks } from './analyse.ts';
import bruise from './index.ts';
import { postprocessModelOutput, preprocessForModel } from './model.ts';
import { toBase64 } from './overlay.ts';
import { BruiseResultItem } from './results.ts';

const W = 240;
const H = 180;

interface Spot {
  cx: number;
  cy: number;
  r: number;
  /** per-channel multiplier and offset applied inside the spot */
  kind: 'bruise' | 'blush' | 'dot';
}

/**
 * A mango-like test photo: an elliptic green-yellow fruit on a white background, shaded toward
 * its outline and lit from the left, with a little noise; spots change the peel inside circles.
 * Returns the image and the truth bruise mask.
 */
function fruitPhoto(spots: Spot[], seed = 1, transparent = false) {
  const truth = new Uint8Array(W * H);
  const { image, mask } = fruitScene({
    width: W,
    height: H,
    background: [245, 245, 242],
    backgroundAlpha: transparent ? 0 : 255,
    fruits: [{ cx: W / 2, cy: H / 2, rx: 95, ry: 70, peel: [150, 175, 60], shade }],
    seed,
    paint: (rgb, x, y) => {
      for (const s of spots) {
        const inside = (x - s.cx) ** 2 + (y - s.cy) ** 2 <= s.r * s.r;
        if (!inside) continue;
        if (s.kind === 'bruise') {
          rgb = [rgb[0] * 0.55, rgb[1] * 0.48, rgb[2] * 0.5];
          truth[y * W + x] = 1;
        } else if (s.kind === 'blush') rgb = [Math.min(255, rgb[0] * 1.35), rgb[1] * 0.72, rgb[2] * 0.8];
        else rgb = [rgb[0] * 0.6, rgb[1] * 0.6, rgb[2] * 0.6];
      }
      return rgb;
    },
  });
  return { image, truth, fruit: mask };
}

/** Shaded toward the outline and lit from the left. */
function shade(u: number, v: number) {
  const d = u * u + v * v;
  return (1 - 0.35 * d * d) * (1 - 0.12 * u);
}

const count = (m: Uint8Array) => m.reduce((a, b) => a + b, 0);
const ctx = () => createContext(nodeImages);

describe('bruise plugin, classical method', () => {
  it('measures painted bruises close to their true share and counts the lesions', async () => {
    const { image, truth, fruit } = fruitPhoto([
      { cx: 90, cy: 80, r: 18, kind: 'bruise' },
      { cx: 160, cy: 105, r: 11, kind: 'bruise' },
    ]);
    const result = await runPlugin(
      bruise,
      image,
      { method: 'classical' },
      createContext(nodeImages, { filename: 'a.png' }),
    );
    // The HTTP item is the result with its overlay as a data URL (made by the front end).
    const { images: _images, ...figures } = result;
    expect(BruiseResultItem.safeParse({ ...figures, overlay_img: 'data:image/jpeg;base64,' }).success).toBe(true);
    const truthPct = (100 * count(truth)) / count(fruit);
    expect(result.method).toBe('classical');
    expect(result.filename).toBe('a.png');
    expect(result.fruits).toHaveLength(1);
    expect(result.fruits[0].lesion_count).toBe(2);
    expect(Math.abs(result.total_mango_pixels - count(fruit)) / count(fruit)).toBeLessThan(0.03);
    expect(Math.abs(result.bruise_percent - truthPct)).toBeLessThan(1);
    expect(result.non_bruise_percent).toBeCloseTo(100 - result.bruise_percent, 6);
    expect(result.severity).toBeGreaterThan(10);
    // colour_difference is the same CIEDE2000 (severity is its deprecated alias); the one fruit holds all of it.
    expect(result.colour_difference).toBe(result.severity);
    expect(result.fruits[0].colour_difference).toBe(result.colour_difference);
    expect(result.width).toBe(W);
    expect(result.elapsed_ms).toBeGreaterThan(0);
  });

  it('does not call blush, lenticel dots or edge shading bruise', async () => {
    const dots: Spot[] = [];
    const rnd = seededRandom(7);
    for (let k = 0; k < 25; k++) dots.push({ cx: 50 + rnd() * 140, cy: 50 + rnd() * 80, r: 1, kind: 'dot' });
    const { image } = fruitPhoto([{ cx: 150, cy: 75, r: 25, kind: 'blush' }, ...dots], 3);
    const result = await runPlugin(bruise, image, { method: 'classical' }, ctx());
    expect(result.bruise_percent).toBeLessThan(0.5);
    expect(result.severity).toBeNull();
    expect(result.colour_difference).toBeNull();
    expect(result.fruits.map((f) => f.colour_difference)).toEqual(result.fruits.map(() => null));
  });

  it('uses the alpha channel of a cut-out as the fruit and reports cm² with pxPerCm', async () => {
    const { image, fruit } = fruitPhoto([{ cx: 120, cy: 90, r: 20, kind: 'bruise' }], 2, true);
    const result = await runPlugin(bruise, image, { method: 'classical', pxPerCm: 10 }, ctx());
    expect(result.total_mango_pixels).toBe(count(fruit));
    expect(result.fruit_area_cm2).toBeCloseTo(count(fruit) / 100, 2);
    expect(result.bruise_area_cm2).toBeCloseTo(result.bruise_pixels / 100, 2);
    expect(result.fruits[0].area_cm2).toBeCloseTo(count(fruit) / 100, 2);
  });

  it('returns an overlay within overlayMaxSide and, when asked, full-resolution masks', async () => {
    const { image } = fruitPhoto([{ cx: 120, cy: 90, r: 20, kind: 'bruise' }]);
    const result = await runPlugin(bruise, image, { method: 'classical', overlayMaxSide: 120 }, ctx());
    // Unasked: the overlay only, as pixels with the format front ends encode it in.
    expect(Object.keys(result.images)).toEqual(['overlay']);
    const overlay = result.images.overlay!;
    expect(overlay.kind === 'picture' && [overlay.format, overlay.quality]).toEqual(['jpeg', 85]);
    if (overlay.kind !== 'picture') return;
    const jpeg = await nodeImages.encode(overlay.image, overlay.format, { quality: overlay.quality });
    const decoded = await decodeImage(jpeg);
    expect(Math.max(decoded.width, decoded.height)).toBe(120);
    const masks = await bruiseMasks(image, {
      method: 'classical',
      detectMaxSide: 640,
      darkening: 12,
      minLesionFraction: 0.002,
    });
    expect(masks.width).toBe(W);
    expect(masks.bruise.length).toBe(W * H);
    expect(count(masks.bruise)).toBe(result.bruise_pixels);
    for (let i = 0; i < masks.bruise.length; i++) if (masks.bruise[i]) expect(masks.fruit[i]).toBe(1);
    // Asked for through the context: the masks of the same analysis, no overlay.
    const asked = await runPlugin(
      bruise,
      image,
      { method: 'classical' },
      createContext(nodeImages, { want: ['fruit-mask', 'bruise-mask'] }),
    );
    expect(Object.keys(asked.images).sort()).toEqual(['bruise-mask', 'fruit-mask']);
    const fruit = asked.images['fruit-mask']!;
    const bruised = asked.images['bruise-mask']!;
    if (fruit.kind !== 'mask' || bruised.kind !== 'mask') throw new Error('masks expected');
    expect([bruised.mask.width, bruised.mask.height]).toEqual([W, H]);
    expect(bruised.mask.data).toEqual(masks.bruise);
    expect(fruit.mask.data).toEqual(masks.fruit);
    expect(count(bruised.mask.data)).toBe(asked.bruise_pixels);
  });

  it('counts at full resolution when detecting on a downscaled copy', async () => {
    const { image, truth, fruit } = fruitPhoto([{ cx: 100, cy: 85, r: 22, kind: 'bruise' }]);
    const result = await runPlugin(bruise, image, { method: 'classical', detectMaxSide: 160 }, ctx());
    const truthPct = (100 * count(truth)) / count(fruit);
    expect(Math.abs(result.total_mango_pixels - count(fruit)) / count(fruit)).toBeLessThan(0.04);
    expect(Math.abs(result.bruise_percent - truthPct)).toBeLessThan(1.5);
  });

  it('reports 0 % (not an error) when there is no fruit', async () => {
    const data = new Uint8ClampedArray(64 * 64 * 4).fill(0);
    const result = await runPlugin(bruise, { width: 64, height: 64, data }, { method: 'classical' }, ctx());
    expect(result.total_mango_pixels).toBe(0);
    expect(result.bruise_percent).toBe(0);
    expect(result.non_bruise_percent).toBe(0);
    expect(result.fruits).toEqual([]);
  });

  it('refuses method model when no model is installed; auto falls back to classical', async () => {
    const { image } = fruitPhoto([]);
    await expect(runPlugin(bruise, image, { method: 'model' }, ctx())).rejects.toThrow(/no bruise-segmentation model/);
    expect((await runPlugin(bruise, image, {}, ctx())).method).toBe('classical');
  });
});

describe('bruise plugin, model method', () => {
  const dir = mkdtempSync(join(tmpdir(), 'mango-bruise-model-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));
  // Two classes; bruise logit = 4 * (R - G), healthy logit = 0.2 (inputs normalised to [0, 1]):
  // bruise wherever red exceeds green by more than 0.05.
  writeFileSync(
    join(dir, 'toy.onnx'),
    conv1x1Model({
      weights: [
        [0, 0, 0],
        [4, -4, 0],
      ],
      bias: [0.2, 0],
      width: 16,
      height: 12,
    }),
  );
  const manifest = {
    models: [
      {
        id: 'toy-bruise',
        task: 'bruise-segmentation',
        file: 'toy.onnx',
        sha256: sha256File(join(dir, 'toy.onnx')),
        license: 'test-only',
        input: { width: 16, height: 12, layout: 'NCHW', mean: [0, 0, 0], std: [1, 1, 1] },
        output: { classes: ['healthy', 'bruise'] },
      },
    ],
  };
  writeFileSync(join(dir, 'manifest.json'), JSON.stringify(manifest));

  /** 64x48 cut-out: fruit = rows 8..39 (alpha 255), its left quarter of the image red, else green. */
  function blocky(): RasterImage {
    const w = 64;
    const h = 48;
    const data = new Uint8ClampedArray(w * h * 4);
    for (let y = 0; y < h; y++)
      for (let x = 0; x < w; x++) {
        const i = (y * w + x) * 4;
        const red = x < 16;
        data.set(red ? [220, 40, 30, 255] : [60, 200, 40, 255], i);
        if (y < 8 || y >= 40) data[i + 3] = 0;
      }
    return { width: w, height: h, data };
  }

  it('pre-processes to NCHW at the input size with the normalisation of the manifest', () => {
    const entry = {
      ...manifest.models[0],
      input: { ...manifest.models[0].input, mean: [0.5, 0, 0], std: [0.25, 1, 1] },
    } as never;
    const t = preprocessForModel(blocky(), entry);
    expect(t.dims).toEqual([1, 3, 12, 16]);
    // pixel (0, 6) is red in the source: (220/255 - 0.5) / 0.25
    expect(t.data[6 * 16]).toBeCloseTo((220 / 255 - 0.5) / 0.25, 4);
    expect(t.data[16 * 12 + 6 * 16 + 15]).toBeCloseTo(200 / 255, 4);
  });

  it('post-processes argmax, resizes back and keeps only fruit pixels', () => {
    const entry = manifest.models[0] as never;
    const fruit = new Uint8Array(8 * 4).fill(1);
    fruit[0] = 0;
    // 2 classes on a 4x2 grid: bruise wins in the left column pair.
    const data = new Float32Array([0, 0, 1, 1, 0, 0, 1, 1, 1, 1, 0, 0, 1, 1, 0, 0]);
    const mask = postprocessModelOutput({ data, dims: [1, 2, 2, 4] }, entry, fruit, 8, 4);
    expect(Array.from(mask.slice(0, 8))).toEqual([0, 1, 1, 1, 0, 0, 0, 0]);
    expect(Array.from(mask.slice(24, 32))).toEqual([1, 1, 1, 1, 0, 0, 0, 0]);
  });

  it('auto runs the installed ONNX model and gives the known mask and percentage', async () => {
    const models = createModelLoader(dir);
    const image = blocky();
    const result = await runPlugin(bruise, image, { method: 'auto' }, createContext(nodeImages, { models }));
    expect(result.method).toBe('model');
    expect(result.total_mango_pixels).toBe(64 * 32);
    // bruise = the red quarter of the fruit rows (nearest-neighbour round trip through 16x12 is exact here)
    expect(result.bruise_pixels).toBe(16 * 32);
    expect(result.bruise_percent).toBeCloseTo(25, 4);
    expect(result.fruits[0].lesion_count).toBe(1);
  });
});

describe('toBase64', () => {
  it('matches Buffer for every tail length', () => {
    for (const n of [0, 1, 2, 3, 4, 5, 1000, 10001]) {
      const bytes = Uint8Array.from({ length: n }, (_, i) => (i * 37 + 11) & 255);
      expect(toBase64(bytes)).toBe(Buffer.from(bytes).toString('base64'));
    }
  });
});

/** The `bruise-probability` image of a result as its grey values (R of the lossless PNG's pixels). */
function probabilityOf(result: { images: PluginImages }) {
  const img = result.images['bruise-probability'];
  if (img?.kind !== 'picture' || img.format !== 'png') throw new Error('a PNG picture expected');
  const { width, height, data } = img.image;
  const grey = new Uint8Array(width * height);
  for (let i = 0; i < grey.length; i++) grey[i] = data[i * 4];
  return { width, height, grey };
}
/** Mean of `values` where `where` is set (and `not` is not). */
function meanWhere(values: Uint8Array, where: Uint8Array, not?: Uint8Array) {
  let sum = 0;
  let n = 0;
  for (let i = 0; i < values.length; i++)
    if (where[i] && !not?.[i]) {
      sum += values[i];
      n++;
    }
  return sum / n;
}

describe('the bruise-probability image (the mask editor magic wand)', () => {
  it('classical: the colour distance from the healthy peel, high on the lesion, low on healthy peel, 0 outside', async () => {
    const { image, truth, fruit } = fruitPhoto([{ cx: 100, cy: 85, r: 20, kind: 'bruise' }]);
    const r = await runPlugin(
      bruise,
      image,
      { method: 'classical' },
      createContext(nodeImages, { want: ['bruise-probability', 'fruit-mask'] }),
    );
    expect(Object.keys(r.images).sort()).toEqual(['bruise-probability', 'fruit-mask']);
    const p = probabilityOf(r);
    expect([p.width, p.height]).toEqual([W, H]);
    const lesion = meanWhere(p.grey, truth);
    const healthy = meanWhere(p.grey, fruit, dilateDisk(truth, W, H, 3));
    // the painted lesion (about 0.5 x the peel's RGB) is ~35 ΔE from the peel's median (184 of 255 on
    // the 48 ΔE scale); the shaded rim of healthy peel ~8 ΔE (40)
    expect(lesion, `lesion ${lesion}, healthy ${healthy}`).toBeGreaterThan(150);
    expect(healthy, `lesion ${lesion}, healthy ${healthy}`).toBeLessThan(60);
    const maskImg = r.images['fruit-mask'];
    if (maskImg?.kind !== 'mask') throw new Error('mask expected');
    for (let i = 0; i < p.grey.length; i++) if (!maskImg.mask.data[i]) expect(p.grey[i]).toBe(0);
  });

  const shared = sharedDir();
  if (!shared) console.warn(`bruise-probability on real photos ${SHARED_MISSING}`);
  it.skipIf(!shared).each(['aspergillus_008.jpg', 'anthracnose_008.jpg'])(
    'learned: the shipped model gives high probability on the annotated lesion of %s, low on its healthy peel',
    async (name) => {
      const coco = JSON.parse(readFileSync(join(MODELS_DIR, 'training/annotations/real-dev.coco.json'), 'utf8'));
      const truth = (await cocoTruth('real-dev.coco.json', coco).masks(name))!;
      const path = join(shared!, 'data/bruise-dev/senmango_real_lesions/images', name);
      const r = await runPlugin(
        bruise,
        await decodeImage(readFileSync(path), name),
        {},
        createContext(nodeImages, { models: createModelLoader(), filename: name, want: ['bruise-probability'] }),
      );
      expect(r.method).toBe('model');
      const p = probabilityOf(r);
      expect([p.width, p.height]).toEqual([truth.width, truth.height]);
      // measured: aspergillus_008 207.7 / 5.9, anthracnose_008 234.3 / 1.5 (of 255)
      const lesion = meanWhere(p.grey, truth.bruise);
      const healthy = meanWhere(p.grey, truth.fruit, dilateDisk(truth.bruise, truth.width, truth.height, 3));
      expect(lesion, `${name}: lesion ${lesion.toFixed(1)}, healthy ${healthy.toFixed(1)}`).toBeGreaterThan(180);
      expect(healthy).toBeLessThan(15);
    },
    60_000,
  );
});
