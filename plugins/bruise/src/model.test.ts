import { execFileSync, spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import type { ModelManifestEntry, RasterImage } from '@mango/core';
import { createContext, runPlugin, seededRandom } from '@mango/core';
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

// OpenCV (Debian's python3-opencv, which CI installs for the training) as the independent reference
const opencv = spawnSync('/usr/bin/python3', ['-c', 'import cv2, numpy']).status === 0;
if (!opencv) console.warn('skipped: the INTER_AREA reference needs /usr/bin/python3 with cv2 (python3-opencv)');

describe('fruit squares', () => {
  it('widens the box by the margin and centres it, rounding as the training code does', () => {
    expect(FRUIT_MARGIN).toBe(0.06);
    // box 100 x 50 at (10, 20): side round(100 * 1.12) = 112, centre (60, 45)
    expect(fruitSquare(10, 20, 110, 70)).toEqual({ x0: 4, y0: -11, side: 112 });
  });

  it('places the square of a turned or mirrored picture where the turned or mirrored square lies', () => {
    // A 224 px photo filled by its fruit: the box's centre is 112 and round(224 * 1.12) = 251 would put the
    // corner at -13.5, which Math.round sends to -13 and a mirror to -14; the side takes the box's parity.
    expect(fruitSquare(0, 0, 224, 224, { width: 224, height: 224 })).toEqual({ x0: -14, y0: -14, side: 252 });
    // without the frame, the training code's rounding (as before)
    expect(fruitSquare(0, 0, 224, 224)).toEqual({ x0: -13, y0: -13, side: 251 });
    const random = seededRandom(7);
    const int = (n: number) => Math.floor(random() * n);
    let ties = 0;
    for (let k = 0; k < 2000; k++) {
      const W = 40 + int(300);
      const H = 40 + int(300);
      const x0 = int(W - 2);
      const y0 = int(H - 2);
      const x1 = x0 + 1 + int(W - x0 - 1);
      const y1 = y0 + 1 + int(H - y0 - 1);
      const sq = fruitSquare(x0, y0, x1, y1, { width: W, height: H });
      const halfX = ((x0 + x1 - sq.side) & 1) === 1;
      const halfY = ((y0 + y1 - sq.side) & 1) === 1;
      if (halfX || halfY) ties++;
      // a box centred in the frame with its corner half-way: no whole pixel is its own mirror (left alone)
      if ((halfX && x0 + x1 === W) || (halfY && y0 + y1 === H)) continue;
      // mirrored left-right: the box [W - x1, W - x0)
      const m = fruitSquare(W - x1, y0, W - x0, y1, { width: W, height: H });
      expect(m).toEqual({ x0: W - sq.x0 - sq.side, y0: sq.y0, side: sq.side });
      // turned a quarter counter-clockwise (numpy's rot90): x' = y, y' = W - x, the frame H x W
      const t = fruitSquare(y0, W - x1, y1, W - x0, { width: H, height: W });
      expect(t).toEqual({ x0: sq.y0, y0: W - sq.x0 - sq.side, side: sq.side });
    }
    // about half the boxes have a corner half-way between two pixels on one axis (the sums' parities differ)
    expect(ties).toBeGreaterThan(500);
  });

  it.skipIf(!opencv)(
    'shrinks a square as OpenCV INTER_AREA does (exact cell areas), partly outside the picture',
    () => {
      const random = seededRandom(3);
      const [W, H] = [97, 83];
      const img = solid(W, H, [0, 0, 0]);
      for (let i = 0; i < W * H * 4; i++) if (i % 4 !== 3) img.data[i] = Math.floor(random() * 256);
      const rgb = Buffer.alloc(W * H * 3);
      for (let i = 0; i < W * H; i++) for (let c = 0; c < 3; c++) rgb[i * 3 + c] = img.data[i * 4 + c];
      for (const sq of [
        { x0: -7, y0: 5, side: 91, size: 40 },
        { x0: 3, y0: -11, side: 64, size: 23 },
        { x0: 10, y0: 10, side: 60, size: 40 },
      ]) {
        const ours = cropSquarePlanes(img, sq, sq.size);
        const script = [
          'import sys, numpy as np, cv2',
          `a = np.frombuffer(sys.stdin.buffer.read(), np.uint8).reshape(${H}, ${W}, 3).astype(np.float32)`,
          `side, x0, y0 = ${sq.side}, ${sq.x0}, ${sq.y0}`,
          'canvas = np.zeros((side, side, 3), np.float32)',
          'ys, xs = max(0, -y0), max(0, -x0)',
          `ye, xe = min(side, ${H} - y0), min(side, ${W} - x0)`,
          'canvas[ys:ye, xs:xe] = a[y0 + ys:y0 + ye, x0 + xs:x0 + xe]',
          `out = cv2.resize(canvas, (${sq.size}, ${sq.size}), interpolation=cv2.INTER_AREA)`,
          'sys.stdout.buffer.write(out.astype(np.float32).tobytes())',
        ].join('\n');
        const out = execFileSync('/usr/bin/python3', ['-c', script], { input: rgb });
        const ref = new Float32Array(out.buffer, out.byteOffset, out.byteLength / 4);
        let worst = 0;
        for (let i = 0; i < sq.size * sq.size; i++) {
          for (let c = 0; c < 3; c++) worst = Math.max(worst, Math.abs(ours[c][i] - ref[i * 3 + c]));
        }
        expect(worst).toBeLessThan(1e-3);
      }
    },
  );

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
