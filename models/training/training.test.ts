/**
 * Training smoke test: the whole pipeline (annotation specs rebuilt into COCO, renderer, training,
 * ONNX export) on a few photos for two steps, then the exported file runs in onnxruntime-node. CI does not train
 * the shipped model; this only proves the pipeline works where python3-torch is installed.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { sharedDir, SHARED_MISSING } from '@mango/core/testing/node';

const torch = spawnSync('/usr/bin/python3', ['-c', 'import torch, onnx, scipy, skimage, PIL, cv2']).status === 0;
const shared = sharedDir();
const skip = !torch || !shared;
if (!torch) console.warn('training smoke test skipped: python3-torch is not installed (models/training/install.sh)');
if (!shared) console.warn(SHARED_MISSING);

describe.skipIf(skip)('npm run train:bruise -- --smoke', () => {
  it('trains two steps on a few photos and exports an ONNX model that onnxruntime runs', async () => {
    const out = mkdtempSync(join(tmpdir(), 'mango-train-smoke-'));
    try {
      execFileSync('bash', [resolve(import.meta.dirname, 'train.sh'), '--smoke'], {
        env: { ...process.env, MANGO_SMOKE_KEEP: out },
        stdio: 'pipe',
      });
      expect(existsSync(join(out, 'model.onnx'))).toBe(true);
      const ort = await import('onnxruntime-node');
      const session = await ort.InferenceSession.create(join(out, 'model.onnx'));
      expect(session.inputNames).toEqual(['input']);
      // RGB in, the fruit and the lesion logit out (the fruit is learned: no mask channel)
      const x = new ort.Tensor('float32', new Float32Array(3 * 64 * 96), [1, 3, 64, 96]);
      const y = (await session.run({ input: x })).logits;
      expect(y.dims).toEqual([1, 2, 64, 96]);
      expect(Number.isFinite((y.data as Float32Array)[0])).toBe(true);
    } finally {
      rmSync(out, { recursive: true, force: true });
    }
  }, 300_000);
});
