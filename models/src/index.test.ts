import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { conv1x1Model, createModelLoader, readManifest, sha256File } from './index.ts';

const dir = mkdtempSync(join(tmpdir(), 'mango-models-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function entry(id: string, file: string, sha256: string, task = 'bruise-segmentation') {
  return {
    id,
    task,
    file,
    sha256,
    license: 'test-only',
    input: { width: 4, height: 2, layout: 'NCHW', mean: [0, 0, 0], std: [1, 1, 1] },
    output: { classes: ['healthy', 'bruise'] },
  };
}

describe('createModelLoader', () => {
  // out0 = 0.5, out1 = 2 * in[0] - in[1]: a known function of the input.
  const bytes = conv1x1Model({
    weights: [
      [0, 0, 0],
      [2, -1, 0],
    ],
    bias: [0.5, 0],
    width: 4,
    height: 2,
  });
  writeFileSync(join(dir, 'tiny.onnx'), bytes);
  writeFileSync(join(dir, 'other.onnx'), bytes);
  const good = sha256File(join(dir, 'tiny.onnx'));
  writeFileSync(
    join(dir, 'manifest.json'),
    JSON.stringify({
      models: [
        entry('tiny', 'tiny.onnx', good),
        entry('bad-hash', 'other.onnx', '0'.repeat(64)),
        entry('missing', 'missing.onnx', good),
        entry('other-task', 'tiny.onnx', good, 'fruit-segmentation'),
      ],
    }),
  );

  it('offers only installed models whose sha256 matches, per task', async () => {
    const loader = createModelLoader(dir);
    expect((await loader.available('bruise-segmentation')).map((m) => m.id)).toEqual(['tiny']);
    expect((await loader.available('fruit-segmentation')).map((m) => m.id)).toEqual(['other-task']);
    await expect(loader.load('bad-hash')).rejects.toThrow(/sha256/);
    await expect(loader.load('missing')).rejects.toThrow(/not installed/);
    await expect(loader.load('nope')).rejects.toThrow(/model nope is not among the models offered/);
  });

  it('runs the model and returns the known output; sessions are cached', async () => {
    const loader = createModelLoader(dir);
    const m = await loader.load('tiny');
    expect(await loader.load('tiny')).toBe(m);
    const hw = 8;
    const data = new Float32Array(3 * hw);
    for (let i = 0; i < hw; i++) {
      data[i] = i / 10; // channel 0
      data[hw + i] = 0.1; // channel 1
    }
    const out = await m.run({ data, dims: [1, 3, 2, 4] });
    expect(out.dims).toEqual([1, 2, 2, 4]);
    for (let i = 0; i < hw; i++) {
      expect(out.data[i]).toBeCloseTo(0.5, 6);
      expect(out.data[hw + i]).toBeCloseTo((2 * i) / 10 - 0.1, 5);
    }
  });

  it('reads an empty or missing manifest as no models and rejects a malformed one', async () => {
    expect(readManifest(join(dir, 'nowhere')).models).toEqual([]);
    const emptyDir = mkdtempSync(join(tmpdir(), 'mango-models-empty-'));
    writeFileSync(join(emptyDir, 'manifest.json'), JSON.stringify({ models: [] }));
    expect(await createModelLoader(emptyDir).available('bruise-segmentation')).toEqual([]);
    rmSync(emptyDir, { recursive: true, force: true });
    const badDir = mkdtempSync(join(tmpdir(), 'mango-models-bad-'));
    writeFileSync(join(badDir, 'manifest.json'), JSON.stringify({ models: [{ id: 'x' }] }));
    expect(() => readManifest(badDir)).toThrow(/manifest.json/);
    rmSync(badDir, { recursive: true, force: true });
  });
});
