/**
 * The two-stage learned path on a model whose logits follow a colour rule (so the expected masks are
 * known exactly): yellow or brown = fruit, brown = lesion. It checks the geometry (squares, sampling
 * back, test-time views mapped back), the per-fruit ownership of lesions and the invariance to turns.
 */
import { describe, expect, it } from 'vitest';
import type { LoadedModel, ModelManifestEntry, RasterImage, Tensor } from '@mango/core';
import { TTA_VIEWS } from '@mango/core';
import { CORE_FRUIT_LOGIT, learnedSegmentation, MIN_FRUIT_LOGIT, squareLogits, viewPlane } from './learned.ts';
import { rotate90 } from './invariance.ts';

const entry: ModelManifestEntry = {
  id: 'colour-rule',
  task: 'bruise-segmentation',
  file: 'none.onnx',
  sha256: '0'.repeat(64),
  license: 'test',
  input: { width: 64, height: 64, layout: 'NCHW', mean: [0, 0, 0], std: [1, 1, 1], crop: 'two-stage' },
  output: { classes: ['fruit', 'bruise'], activation: 'logit' },
  tta: ['identity', 'flip-h', 'flip-v', 'rot90'],
};

/**
 * Logits from the input colours: fruit where red > 0.3 (yellow, brown), lesion where red - green > 0.12
 * and green < 0.5 (brown, and brown-yellow blends that are mostly brown; not the yellow-grey outline).
 */
function colourRuleModel(calls: number[] = []): LoadedModel {
  return {
    entry,
    run: async (t: Tensor): Promise<Tensor> => {
      const [, , h, w] = t.dims;
      const hw = h * w;
      calls.push(hw);
      const out = new Float32Array(2 * hw);
      for (let i = 0; i < hw; i++) {
        const r = t.data[i];
        const g = t.data[hw + i];
        const fruit = r > 0.3;
        out[i] = fruit ? 4 : -4;
        out[hw + i] = fruit && r - g > 0.12 && g < 0.5 ? 4 : -4;
      }
      return { data: out, dims: [1, 2, h, w] };
    },
  };
}

/** Grey background, two yellow discs (radius 20) apart, a brown spot (radius 6) on the right one. */
function scene(): RasterImage {
  const w = 160;
  const h = 96;
  const data = new Uint8ClampedArray(w * h * 4);
  for (let y = 0; y < h; y++) {
    for (let x = 0; x < w; x++) {
      const inA = (x - 40) ** 2 + (y - 48) ** 2 <= 400;
      const inB = (x - 115) ** 2 + (y - 48) ** 2 <= 400;
      const spot = (x - 120) ** 2 + (y - 44) ** 2 <= 36;
      const rgb = spot ? [110, 70, 30] : inA || inB ? [225, 185, 60] : [40, 40, 45];
      data.set([...rgb, 255], (y * w + x) * 4);
    }
  }
  return { width: w, height: h, data };
}

describe('test-time views', () => {
  it('maps every view back to the original (inverse of flips and the quarter turn)', () => {
    const s = 5;
    const p = Float32Array.from({ length: s * s }, (_, i) => i);
    for (const v of TTA_VIEWS) {
      expect(Array.from(viewPlane(viewPlane(p, s, v), s, v, true))).toEqual(Array.from(p));
    }
    // numpy.rot90 of [[0, 1], [2, 3]] is [[1, 3], [0, 2]]; k=2 gives [[3, 2], [1, 0]]; k=3 [[2, 0], [3, 1]]
    const q = Float32Array.from([0, 1, 2, 3]);
    expect(Array.from(viewPlane(q, 2, 'rot90'))).toEqual([1, 3, 0, 2]);
    expect(Array.from(viewPlane(q, 2, 'rot180'))).toEqual([3, 2, 1, 0]);
    expect(Array.from(viewPlane(q, 2, 'rot270'))).toEqual([2, 0, 3, 1]);
    // numpy: a.T is [[0, 2], [1, 3]]; np.rot90(a, 2).T is [[3, 1], [2, 0]]
    expect(Array.from(viewPlane(q, 2, 'transpose'))).toEqual([0, 2, 1, 3]);
    expect(Array.from(viewPlane(q, 2, 'anti-transpose'))).toEqual([3, 1, 2, 0]);
    // the quarter turns compose: two quarter turns are a half turn, three the other quarter turn
    const twice = viewPlane(viewPlane(p, s, 'rot90'), s, 'rot90');
    expect(Array.from(twice)).toEqual(Array.from(viewPlane(p, s, 'rot180')));
    expect(Array.from(viewPlane(twice, s, 'rot90'))).toEqual(Array.from(viewPlane(p, s, 'rot270')));
    // a mirror then a quarter turn is the mirror across a diagonal (numpy: rot90(fliplr(a)) == a.T)
    const fh = viewPlane(p, s, 'flip-h');
    expect(Array.from(viewPlane(fh, s, 'rot90'))).toEqual(Array.from(viewPlane(p, s, 'transpose')));
    expect(Array.from(viewPlane(fh, s, 'rot270'))).toEqual(Array.from(viewPlane(p, s, 'anti-transpose')));
  });

  it('runs the model once per view and averages the mapped-back logits', async () => {
    const calls: number[] = [];
    const planes = [0, 1, 2].map(() => new Float32Array(64 * 64).fill(200));
    const out = await squareLogits(colourRuleModel(calls), planes, 64);
    expect(calls).toEqual([4096, 4096, 4096, 4096]);
    expect(out.fruit[0]).toBe(4);
    expect(out.bruise[0]).toBe(-4);
  });
});

describe('learned two-stage segmentation', () => {
  it('finds both fruit and gives the lesion to the fruit it lies on', async () => {
    const image = scene();
    const r = await learnedSegmentation(image, image, colourRuleModel());
    expect(r.count).toBe(2);
    const area = [0, 0, 0];
    let lesion = 0;
    let lesionOnRight = 0;
    for (let i = 0; i < r.labels.length; i++) {
      area[r.labels[i]]++;
      if (r.bruise[i]) {
        lesion++;
        if (i % image.width > 80) lesionOnRight++;
      }
    }
    // two discs of radius 20: pi * 400 = 1257 px each (the outline is resampled: within 6 %)
    expect(area[1]).toBeGreaterThan(1257 * 0.94);
    expect(area[1]).toBeLessThan(1257 * 1.06);
    expect(area[2]).toBeGreaterThan(1257 * 0.94);
    // the spot: pi * 36 = 113 px, all of it on the right fruit
    expect(lesion).toBeGreaterThan(113 * 0.8);
    expect(lesion).toBeLessThan(113 * 1.25);
    expect(lesionOnRight).toBe(lesion);
    for (let i = 0; i < r.labels.length; i++) if (r.bruise[i]) expect(r.labels[i]).toBeGreaterThan(0);
  });

  it('gives the same areas for the photo turned a quarter', async () => {
    const image = scene();
    const a = await learnedSegmentation(image, image, colourRuleModel());
    const turned = rotate90(image);
    const b = await learnedSegmentation(turned, turned, colourRuleModel());
    const sum = (m: ArrayLike<number>) => Array.from(m).reduce((s, v) => s + (v ? 1 : 0), 0);
    expect(b.count).toBe(2);
    expect(Math.abs(sum(a.labels) - sum(b.labels))).toBeLessThanOrEqual(0.02 * sum(a.labels));
    expect(Math.abs(sum(a.bruise) - sum(b.bruise))).toBeLessThanOrEqual(4);
  });

  it('keeps known fruit labels as they are and only marks lesions on them', async () => {
    const image = scene();
    const labels = new Int32Array(image.width * image.height);
    for (let i = 0; i < labels.length; i++) if (i % image.width >= 90) labels[i] = 1; // a "truth" of one fruit
    const r = await learnedSegmentation(image, image, colourRuleModel(), { labels, count: 1 });
    expect(r.labels).toBe(labels);
    expect(r.count).toBe(1);
    let lesion = 0;
    for (let i = 0; i < labels.length; i++) if (r.bruise[i]) lesion++;
    expect(lesion).toBeGreaterThan(113 * 0.8);
  });
});

/** Fruit logit `fruit` on yellow, `tray` on the teal of a tray, -4 elsewhere; no lesion. */
const trayModel = (fruit: number, tray: number): LoadedModel => ({
  entry,
  run: async (t: Tensor): Promise<Tensor> => {
    const [, , h, w] = t.dims;
    const hw = h * w;
    const out = new Float32Array(2 * hw).fill(-4);
    for (let i = 0; i < hw; i++) {
      const [r, g, b] = [t.data[i], t.data[hw + i], t.data[2 * hw + i]];
      if (r > 0.7 && b < 0.4) out[i] = fruit;
      else if (g > 0.4 && b > 0.4 && r < 0.3) out[i] = tray;
    }
    return { data: out, dims: [1, 2, h, w] };
  },
});

describe('pieces the model is not sure of', () => {
  /** Fruit logit 4 on yellow, `unsure` on the teal of a tray. */
  const model = (unsure: number) => trayModel(4, unsure);
  /** A yellow disc (radius 20) and, apart from it, a teal bar (a tray's edge) on grey. */
  function tray(withFruit = true): RasterImage {
    const w = 160;
    const h = 96;
    const data = new Uint8ClampedArray(w * h * 4);
    for (let y = 0; y < h; y++) {
      for (let x = 0; x < w; x++) {
        const fruit = withFruit && (x - 40) ** 2 + (y - 48) ** 2 <= 400;
        const bar = x >= 100 && x < 150 && y >= 30 && y < 60;
        const rgb = fruit ? [225, 185, 60] : bar ? [30, 140, 140] : [40, 40, 45];
        data.set([...rgb, 255], (y * w + x) * 4);
      }
    }
    return { width: w, height: h, data };
  }
  const count = (r: { labels: Int32Array }, x0: number, x1: number) =>
    Array.from(r.labels).filter((l, i) => l > 0 && i % 160 >= x0 && i % 160 < x1).length;

  it(`drops a piece whose mean fruit logit is under MIN_FRUIT_LOGIT (${MIN_FRUIT_LOGIT}) and keeps a sure one`, async () => {
    const image = tray();
    const unsure = await learnedSegmentation(image, image, model(MIN_FRUIT_LOGIT - 1));
    expect(unsure.count).toBe(1);
    expect(count(unsure, 100, 150)).toBe(0);
    expect(count(unsure, 0, 80)).toBeGreaterThan(1200);
    const sure = await learnedSegmentation(image, image, model(MIN_FRUIT_LOGIT + 0.5));
    expect(sure.count).toBe(2);
    expect(count(sure, 100, 150)).toBeGreaterThan(1300); // the bar: 50 x 30 px, its outline resampled
  });

  it('keeps the surest piece of a photo even when the model is unsure of it', async () => {
    const image = tray(false);
    const r = await learnedSegmentation(image, image, model(1));
    expect(r.count).toBe(1);
    expect(count(r, 100, 150)).toBeGreaterThan(1300); // the bar: 50 x 30 px, its outline resampled
  });
});

describe('something attached to a fruit (dropAttached)', () => {
  /** Fruit logit CORE_FRUIT_LOGIT + 1 on yellow, `attached` on teal. */
  const model = (attached: number) => trayModel(CORE_FRUIT_LOGIT + 1, attached);
  const w = 160;
  const h = 96;
  /**
   * On grey: a yellow disc (radius 22) and a teal bar (a tray's rail, 50 x 14 px) touching its right side;
   * or a crescent (the disc less an overlapping disc) whose tips are teal (less sure fruit).
   */
  function scene(shape: 'disc' | 'crescent'): RasterImage {
    const data = new Uint8ClampedArray(w * h * 4);
    for (let y = 0; y < h; y++) {
      for (let x = 0; x < w; x++) {
        const inDisc = (x - 50) ** 2 + (y - 48) ** 2 <= 484;
        // a neighbour behind another fruit: a disc less an overlapping disc (not convex, all fruit)
        const fruit = shape === 'disc' ? inDisc : inDisc && (x - 60) ** 2 + (y - 48) ** 2 > 484;
        // the bar beside the disc; the crescent's tips, which the model is less sure of
        const bar = shape === 'disc' ? x >= 70 && x < 120 && y >= 41 && y < 55 : fruit && Math.abs(y - 48) > 12;
        const rgb = fruit ? [225, 185, 60] : bar ? [30, 140, 140] : [40, 40, 45];
        data.set([...rgb, 255], (y * w + x) * 4);
      }
    }
    return { width: w, height: h, data };
  }
  const count = (r: { labels: Int32Array }, x0: number, x1: number) =>
    Array.from(r.labels).filter((l, i) => l > 0 && i % w >= x0 && i % w < x1).length;

  it('cuts a piece that is not convex to the convex body of its sure pixels', async () => {
    const image = scene('disc');
    // the bar is fruit to the model, but less sure than the fruit: one piece, kept by dropUnsure
    const r = await learnedSegmentation(image, image, model(MIN_FRUIT_LOGIT + 0.5));
    expect(r.count).toBe(1);
    expect(count(r, 76, 160)).toBe(0); // the bar beyond the disc's margin is gone
    expect(count(r, 0, 76)).toBeGreaterThan(1450); // the disc: 1517 px, its outline resampled
    expect(count(r, 0, 76)).toBeLessThan(1600);
    // a sure bar is the fruit's body too: the piece stays as it is
    const sure = await learnedSegmentation(image, image, model(CORE_FRUIT_LOGIT + 1));
    expect(count(sure, 76, 160)).toBeGreaterThan(550);
  });

  it('leaves a crescent (a neighbour half hidden) as it is, its less sure tips too', async () => {
    const image = scene('crescent');
    const r = await learnedSegmentation(image, image, model(MIN_FRUIT_LOGIT + 0.5));
    const truth = Array.from({ length: w * h }, (_, i) => {
      const [x, y] = [i % w, Math.floor(i / w)];
      return (x - 50) ** 2 + (y - 48) ** 2 <= 484 && (x - 60) ** 2 + (y - 48) ** 2 > 484 ? 1 : 0;
    });
    const kept = Array.from(r.labels).filter((l) => l > 0).length;
    const both = Array.from(r.labels).filter((l, i) => l > 0 && truth[i]).length;
    const t = truth.reduce((a: number, b) => a + b, 0);
    expect(r.count).toBe(1);
    expect(both / (kept + t - both)).toBeGreaterThan(0.9); // IoU with the crescent
  });
});
