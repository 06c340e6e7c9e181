import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import type { ModelManifestEntry, RasterImage } from '@mango/core';
import { createContext, runPlugin } from '@mango/core';
import { nodeImages } from '@mango/core/node';
import { conv1x1Model, createModelLoader, sha256File } from '@mango/models';
import bruise from './index.ts';
import { bruiseScores, cropSquarePlanes, fruitSquare, fruitSquareInput, FRUIT_MARGIN } from './model.ts';

const entry = (over: Partial<ModelManifestEntry['input']> = {}): ModelManifestEntry => ({
  id: 'm',
  task: 'bruise-segmentation',
  file: 'm.onnx',
  sha256: '0'.repeat(64),
  license: 'test',
  input: { width: 4, height: 4, layout: 'NCHW', mean: [0, 0, 0], std: [1, 1, 1], crop: 'fruit-square', ...over },
  output: { classes: ['bruise'], activation: 'logit' },
});

function solid(w: number, h: number, rgb: [number, number, number]): RasterImage {
  const data = new Uint8ClampedArray(w * h * 4);
  for (let i = 0; i < w * h; i++) data.set([...rgb, 255], i * 4);
  return { width: w, height: h, data };
}

describe('fruit squares', () => {
  it('widens the box by the margin and centres it, rounding as the training code does', () => {
    expect(FRUIT_MARGIN).toBe(0.06);
    // box 100 x 50 at (10, 20): side round(100 * 1.12) = 112, centre (60, 45)
    expect(fruitSquare(10, 20, 110, 70)).toEqual({ x0: 4, y0: -11, side: 112 });
  });

  it('averages the cells when shrinking and reads zero outside the picture', () => {
    const img = solid(4, 4, [100, 150, 200]);
    const planes = cropSquarePlanes(img, { x0: -2, y0: 0, side: 4 }, 2);
    // left column of cells lies at x = -2..-1 (outside), the right one at x = 0..1
    expect(Array.from(planes[0])).toEqual([0, 100, 0, 100]);
    expect(Array.from(planes[2])).toEqual([0, 200, 0, 200]);
  });

  it('interpolates bilinearly when enlarging, with zero beyond the picture', () => {
    const img: RasterImage = { width: 2, height: 1, data: new Uint8ClampedArray([0, 0, 0, 255, 200, 0, 0, 255]) };
    // side 2 -> 4 px: sample centres at -0.25, 0.25, 0.75, 1.25 on both axes; row y = 1 is outside
    const planes = cropSquarePlanes(img, { x0: 0, y0: 0, side: 2 }, 4);
    expect(Array.from(planes[0].slice(4, 8))).toEqual([0, 37.5, 112.5, 112.5]);
    expect(Array.from(planes[0].slice(12, 16))).toEqual([0, 0, 0, 0]);
  });

  it('feeds the fruit of one label as the fourth channel, normalising only RGB', () => {
    const img = solid(8, 8, [255, 0, 0]);
    const labels = new Int32Array(64);
    for (let y = 2; y < 6; y++) for (let x = 2; x < 6; x++) labels[y * 8 + x] = y < 4 ? 1 : 2;
    const e = entry({ fruit_channel: true, mean: [0.5, 0.5, 0.5], std: [0.25, 0.25, 0.25] });
    const t = fruitSquareInput(img, labels, { width: 8, height: 8 }, 1, { x0: 2, y0: 2, side: 4 }, e);
    expect(t.dims).toEqual([1, 4, 4, 4]);
    expect(t.data[0]).toBeCloseTo((1 - 0.5) / 0.25, 6);
    expect(t.data[16]).toBeCloseTo((0 - 0.5) / 0.25, 6);
    // fruit 1 holds the two upper rows of the square, fruit 2 (the lower rows) is not this fruit
    expect(Array.from(t.data.slice(48, 64))).toEqual([1, 1, 1, 1, 1, 1, 1, 1, 0, 0, 0, 0, 0, 0, 0, 0]);
  });

  it('reads logits, probabilities and class scores as a signed bruise score', () => {
    const logit = bruiseScores({ data: new Float32Array([-2, 3]), dims: [1, 1, 1, 2] }, entry());
    expect(Array.from(logit.scores)).toEqual([-2, 3]);
    const prob = { ...entry(), output: { classes: ['bruise'] } };
    expect(Array.from(bruiseScores({ data: new Float32Array([0.2, 0.9]), dims: [1, 1, 1, 2] }, prob).scores)).toEqual([
      expect.closeTo(-0.3, 6),
      expect.closeTo(0.4, 6),
    ]);
    const two = { ...entry(), output: { classes: ['healthy', 'bruise'] } };
    const s = bruiseScores({ data: new Float32Array([1, 0, 0, 1]), dims: [1, 2, 1, 2] }, two);
    expect(Array.from(s.scores)).toEqual([-1, 1]);
  });
});

describe('bruise plugin with a fruit-square model', () => {
  const dir = mkdtempSync(join(tmpdir(), 'mango-square-model-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));
  // Input channels: R, G, B (x / 255) and the fruit mask. Logit = 8 (R - G) - 1: bruise where the
  // peel is red; the fruit channel is read (weight 0.5) but cannot make a green pixel bruise.
  writeFileSync(join(dir, 'sq.onnx'), conv1x1Model({ weights: [[8, -8, 0, 0.5]], bias: [-1], width: 32, height: 32 }));
  writeFileSync(
    join(dir, 'manifest.json'),
    JSON.stringify({
      models: [
        {
          id: 'square-toy',
          task: 'bruise-segmentation',
          file: 'sq.onnx',
          sha256: sha256File(join(dir, 'sq.onnx')),
          license: 'test-only',
          input: {
            width: 32,
            height: 32,
            layout: 'NCHW',
            mean: [0, 0, 0],
            std: [1, 1, 1],
            fruit_channel: true,
            crop: 'fruit-square',
          },
          output: { classes: ['bruise'], activation: 'logit' },
        },
      ],
    }),
  );

  it('scores each fruit of a cut-out on its own square and reports the model', async () => {
    // 96 x 64 cut-out with two fruits: the left one half red (bruise), the right one all green.
    const w = 96;
    const h = 64;
    const data = new Uint8ClampedArray(w * h * 4);
    for (let y = 0; y < h; y++)
      for (let x = 0; x < w; x++) {
        const inLeft = x >= 8 && x < 40 && y >= 16 && y < 48;
        const inRight = x >= 56 && x < 88 && y >= 16 && y < 48;
        const red = inLeft && x < 24;
        data.set(red ? [200, 40, 30, 255] : [50, 190, 40, inLeft || inRight ? 255 : 0], (y * w + x) * 4);
      }
    const models = createModelLoader(dir);
    const r = await runPlugin(
      bruise,
      { width: w, height: h, data },
      { method: 'model' },
      createContext(nodeImages, { models }),
    );
    expect(r.method).toBe('model');
    expect(r.model_id).toBe('square-toy');
    expect(r.model_sha256).toBe(sha256File(join(dir, 'sq.onnx')));
    expect(r.fruits).toHaveLength(2);
    const [left, right] = [...r.fruits].sort((a, b) => a.bbox.x - b.bbox.x);
    expect(left.pixels).toBe(32 * 32);
    // the red half: 16 of 32 columns (the bilinear read-back may move the edge by one column)
    expect(left.bruise_percent).toBeGreaterThanOrEqual(46.875);
    expect(left.bruise_percent).toBeLessThanOrEqual(53.125);
    expect(right.bruise_percent).toBe(0);
  });
});
