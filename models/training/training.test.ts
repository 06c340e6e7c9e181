/**
 * Training smoke test: the whole pipeline (annotation specs rebuilt into COCO, renderer, training,
 * ONNX export) on a few photos for two steps, then the exported file runs in onnxruntime-node. CI does not train
 * the shipped model; this only proves the pipeline works where python3-torch is installed.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
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

describe.skipIf(!torch)('fine-tuning starts from the ONNX weights (mango_train/onnx_init.py)', () => {
  it('the network loaded from the shipped ONNX file gives the same logits as onnxruntime', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'mango-onnx-init-'));
    try {
      const onnx = resolve(import.meta.dirname, '../bruise-unet-320.onnx');
      const script = [
        'import sys, numpy as np, torch',
        'from mango_train.net import BruiseUNet',
        'from mango_train.onnx_init import load_onnx',
        'torch.manual_seed(7)',
        'net = load_onnx(BruiseUNet(), sys.argv[1]).eval()',
        'x = torch.randn(1, 3, 96, 128)',
        "x.numpy().astype('<f4').tofile(sys.argv[2] + '/x.bin')",
        "net(x).detach().numpy().astype('<f4').tofile(sys.argv[2] + '/y.bin')",
      ].join('\n');
      execFileSync('/usr/bin/python3', ['-c', script, onnx, dir], { cwd: import.meta.dirname, stdio: 'pipe' });
      const floats = (f: string) => {
        const b = readFileSync(join(dir, f));
        return new Float32Array(b.buffer, b.byteOffset, b.byteLength / 4);
      };
      const ort = await import('onnxruntime-node');
      const session = await ort.InferenceSession.create(onnx);
      const out = (await session.run({ input: new ort.Tensor('float32', floats('x.bin'), [1, 3, 96, 128]) })).logits;
      const torchOut = floats('y.bin');
      expect(torchOut.length).toBe(2 * 96 * 128);
      let worst = 0;
      for (let i = 0; i < torchOut.length; i++)
        worst = Math.max(worst, Math.abs((out.data as Float32Array)[i] - torchOut[i]));
      expect(worst).toBeLessThan(1e-4);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }, 120_000);
});
