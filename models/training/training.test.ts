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

/** Runs a Python snippet in models/training with the given arguments. */
const python = (lines: string[], ...args: string[]) =>
  execFileSync('/usr/bin/python3', ['-c', lines.join('\n'), ...args], { cwd: import.meta.dirname, stdio: 'pipe' });

describe.skipIf(!torch)('experiment tools: ensembles and the in-network white balance', () => {
  it('an ensemble file gives the mean of its members’ logits (mango_train/ensemble.py)', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'mango-ensemble-'));
    try {
      const shipped = resolve(import.meta.dirname, '../bruise-unet-320.onnx');
      // a second member: a freshly initialised network (seeded), exported as training exports it
      python(
        [
          'import sys, torch',
          'from mango_train.net import BruiseUNet',
          'from mango_train.train import export_onnx',
          'torch.manual_seed(3)',
          "export_onnx(BruiseUNet(), sys.argv[1] + '/b.onnx')",
        ],
        dir,
      );
      execFileSync(
        '/usr/bin/python3',
        ['-m', 'mango_train.ensemble', '--out', join(dir, 'e.onnx'), shipped, join(dir, 'b.onnx')],
        { cwd: import.meta.dirname, stdio: 'pipe' },
      );
      const ort = await import('onnxruntime-node');
      const data = Float32Array.from({ length: 3 * 48 * 64 }, (_, i) => Math.sin(i * 0.37) * 1.5);
      const logits = async (file: string) => {
        const session = await ort.InferenceSession.create(file);
        const out = await session.run({ input: new ort.Tensor('float32', data, [1, 3, 48, 64]) });
        expect(out.logits.dims).toEqual([1, 2, 48, 64]);
        return out.logits.data as Float32Array;
      };
      const [a, b, e] = [await logits(shipped), await logits(join(dir, 'b.onnx')), await logits(join(dir, 'e.onnx'))];
      let worst = 0;
      let apart = 0;
      for (let i = 0; i < e.length; i++) {
        worst = Math.max(worst, Math.abs(e[i] - (a[i] + b[i]) / 2));
        apart = Math.max(apart, Math.abs(a[i] - b[i]));
      }
      expect(apart).toBeGreaterThan(0.5); // the members differ, so the mean is a real test
      expect(worst).toBeLessThan(1e-4);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }, 120_000);

  it('with --canon a white-balance cast or an exposure change does not reach the U-Net (exported graph)', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'mango-canon-'));
    try {
      python(
        [
          'import sys, torch',
          'from mango_train.net import BruiseUNet',
          'from mango_train.train import export_onnx',
          'torch.manual_seed(5)',
          "export_onnx(BruiseUNet(canon='grey'), sys.argv[1] + '/c.onnx')",
        ],
        dir,
      );
      const ort = await import('onnxruntime-node');
      const session = await ort.InferenceSession.create(join(dir, 'c.onnx'));
      const [h, w] = [40, 56];
      // a picture (sRGB 0.1-0.6, so a 1.25x gain in linear light clips nothing) with 8 columns of padding
      const srgb = Float32Array.from({ length: 3 * h * w }, (_, i) =>
        i % w < 8 ? 0 : 0.1 + 0.5 * (0.5 + 0.5 * Math.sin(i * 0.21 + Math.floor(i / (h * w)))),
      );
      const run = async (gains: number[]) => {
        const x = new Float32Array(srgb.length);
        for (let i = 0; i < x.length; i++) {
          const c = Math.floor(i / (h * w));
          const v = srgb[i] === 0 ? 0 : (srgb[i] ** 2.2 * gains[c]) ** (1 / 2.2);
          x[i] = (v - 0.5) / 0.25;
        }
        const out = await session.run({ input: new ort.Tensor('float32', x, [1, 3, h, w]) });
        return out.logits.data as Float32Array;
      };
      const base = await run([1, 1, 1]);
      for (const gains of [
        [1.25, 1, 0.8], // warm light
        [0.8, 0.95, 1.2], // cool light
        [0.71, 0.71, 0.71], // -0.5 EV
      ]) {
        const y = await run(gains);
        let worst = 0;
        for (let i = 0; i < y.length; i++) worst = Math.max(worst, Math.abs(y[i] - base[i]));
        expect(worst).toBeLessThan(1e-3);
      }
      // without the layer the same cast does change the logits (the test can fail)
      python(
        [
          'import sys, torch',
          'from mango_train.net import BruiseUNet',
          'from mango_train.train import export_onnx',
          'torch.manual_seed(5)',
          "export_onnx(BruiseUNet(), sys.argv[1] + '/p.onnx')",
        ],
        dir,
      );
      const plain = await ort.InferenceSession.create(join(dir, 'p.onnx'));
      const x0 = Float32Array.from(srgb, (v) => (v - 0.5) / 0.25);
      const x1 = Float32Array.from(srgb, (v, i) => {
        const g = [1.25, 1, 0.8][Math.floor(i / (h * w))];
        return (v === 0 ? 0 : (v ** 2.2 * g) ** (1 / 2.2) - 0.5) / 0.25;
      });
      const y0 = (await plain.run({ input: new ort.Tensor('float32', x0, [1, 3, h, w]) })).logits.data as Float32Array;
      const y1 = (await plain.run({ input: new ort.Tensor('float32', x1, [1, 3, h, w]) })).logits.data as Float32Array;
      expect(Math.max(...y0.map((v, i) => Math.abs(v - y1[i])))).toBeGreaterThan(1e-2);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }, 120_000);
});

describe.skipIf(!torch)('cast-consistency training (train.py --consistency W)', () => {
  it('a batch holds each scene through two cameras, and the loss pulls their outputs together (or the second to the first)', () => {
    // a synthetic photo (a disc of "fruit" with a dark spot of "lesion"): the pairs share the truth and
    // differ in the input; the loss is 0 for equal outputs and grows with their difference
    const out = python([
      'import json, numpy as np, torch',
      'from mango_train import train',
      'from mango_train.realdata import Photo',
      'yy, xx = np.mgrid[:384, :384]',
      'fruit = (yy - 192) ** 2 + (xx - 192) ** 2 < 150 ** 2',
      'bruise = (yy - 150) ** 2 + (xx - 200) ** 2 < 30 ** 2',
      'rgb = np.where(fruit[..., None], [200, 170, 60], [90, 90, 90]).astype(np.uint8)',
      'rgb[bruise] = [80, 50, 20]',
      "p = Photo('senmango', 'x.jpg', 'g', rgb=rgb, fruit=fruit, bruise=bruise & fruit, boxes=[(42, 42, 342, 342)])",
      'x, f, b, w = next(iter(train.Batches([p], 3, 6, True)))',
      'same_truth = bool(torch.equal(f[0::2], f[1::2]) and torch.equal(b[0::2], b[1::2]))',
      'input_diff = float((x[0::2] - x[1::2]).abs().mean())',
      'logits = torch.randn(6, 2, 32, 32)',
      'fm = torch.ones(6, 32, 32)',
      'twin = logits.clone(); twin[1::2] = twin[0::2]',
      'g = logits.clone().requires_grad_(True)',
      'train.consistency_fn(g, fm, teacher=True).backward()',
      'print(json.dumps({"n": len(x), "same_truth": same_truth, "input_diff": input_diff,',
      '  "lesion_share": float(b.mean()), "equal": float(train.consistency_fn(twin, fm)),',
      '  "random": float(train.consistency_fn(logits, fm)),',
      '  "teacher_grad_first": float(g.grad[0::2].abs().sum()), "teacher_grad_second": float(g.grad[1::2].abs().sum())}))',
    ]).toString();
    const r = JSON.parse(out.trim().split('\n').pop()!) as Record<string, number | boolean>;
    expect(r.n).toBe(6);
    expect(r.same_truth).toBe(true);
    expect(r.lesion_share).toBeGreaterThan(0);
    expect(r.input_diff).toBeGreaterThan(0.02);
    expect(r.equal).toBe(0);
    expect(r.random).toBeGreaterThan(0.05);
    // --consistency-mode teacher: the first camera's output is a fixed target
    expect(r.teacher_grad_first).toBe(0);
    expect(r.teacher_grad_second).toBeGreaterThan(0);
  }, 120_000);
});

const annotationTools = spawnSync('/usr/bin/python3', ['-c', 'import numpy, scipy, skimage, PIL, cv2']).status === 0;
const annotations = resolve(import.meta.dirname, 'annotations');
const images = (file: string) =>
  (JSON.parse(readFileSync(join(annotations, file), 'utf8')) as { images: { path: string }[] }).images;

describe('the AI CUP evaluation masks (annotations/aicup-eval.coco.json)', () => {
  it('are their own file: none of the training file’s photos is an AI CUP photo, every one of theirs is', () => {
    const training = images('real-dev.coco.json');
    const evaluation = images('aicup-eval.coco.json');
    expect(training.length).toBeGreaterThan(280);
    expect(training.filter((i) => i.path.startsWith('aicup_defect_boxes/'))).toEqual([]);
    expect(evaluation.length).toBe(40);
    expect(evaluation.every((i) => i.path.startsWith('aicup_defect_boxes/images/'))).toBe(true);
  });

  it.skipIf(!annotationTools)('the training code refuses them, as the real photos or as corrections', () => {
    const refused = (call: string) =>
      spawnSync(
        '/usr/bin/python3',
        [
          '-c',
          ['import sys', 'from mango_train.realdata import list_photos', call].join('\n'),
          join(annotations, 'aicup-eval.coco.json'),
        ],
        { cwd: import.meta.dirname, encoding: 'utf8' },
      );
    for (const call of [
      "list_photos('/nowhere', sys.argv[1])",
      "list_photos(None, None, [(sys.argv[1], '/nowhere')])",
    ]) {
      const r = refused(call);
      expect(r.status, call).toBe(1);
      expect(r.stderr, call).toMatch(/00595\.jpg in .*aicup-eval\.coco\.json is an AI CUP photo: evaluation only/);
    }
  });

  it.skipIf(!annotationTools || !shared)(
    'the blind second passes rebuild from their specs to the committed agreement',
    () => {
      const out = mkdtempSync(join(tmpdir(), 'mango-agree-'));
      try {
        execFileSync(
          '/usr/bin/python3',
          ['-m', 'mango_annotate', 'agree', '--set', 'aicup_defect_boxes', '--json', join(out, 'agree.json')],
          {
            cwd: import.meta.dirname,
            stdio: 'pipe',
            env: { ...process.env, MANGO_DATA: join(shared!, 'data', 'bruise-dev') },
          },
        );
        type Pair = Record<'fruit_iou' | 'lesion_iou' | 'bruise_percent_pass1' | 'bruise_percent_pass2', number> & {
          file: string;
        };
        const rebuilt = JSON.parse(readFileSync(join(out, 'agree.json'), 'utf8')) as Pair[];
        const committed = JSON.parse(
          readFileSync(resolve(import.meta.dirname, 'experiments/aicup-eval/annotator-agreement.json'), 'utf8'),
        ) as Pair[];
        expect(rebuilt.map((r) => r.file)).toEqual(committed.map((r) => r.file));
        expect(rebuilt).toHaveLength(4);
        // GrabCut (OpenCV) starts one first pass: other library builds may move a few pixels
        for (const [k, r] of rebuilt.entries())
          for (const key of ['fruit_iou', 'lesion_iou', 'bruise_percent_pass1', 'bruise_percent_pass2'] as const)
            expect(r[key], `${r.file} ${key}`).toBeCloseTo(committed[k][key], 2);
      } finally {
        rmSync(out, { recursive: true, force: true });
      }
    },
    120_000,
  );
});
