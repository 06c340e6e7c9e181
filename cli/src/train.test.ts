/**
 * `mango train bruise` and `mango models` (issue 28 items 3 and 4), end to end on the built command:
 * a tiny model fine-tuned from the shipped one on 4 corrected photos for 2 steps (the real fine-tune
 * is a bench: models/training/README.md). Its sha256 differs from the base's; the gate refuses it
 * (2 held-out photos, fewer than 10); --force activates it and the override is recorded; rollback
 * goes back to the shipped model. The corrections are 4 photos of the repository's annotated set
 * (their COCO is in models/training/annotations; the photos are read from ../shared).
 */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { MODELS_DIR, readManifest } from '@mango/models';
import { sharedDir, SHARED_MISSING } from '@mango/core/testing/node';
import { mango } from './testing.ts';

const torch = spawnSync('/usr/bin/python3', ['-c', 'import torch, onnx, scipy, PIL']).status === 0;
const shared = sharedDir();
if (!torch) console.warn('mango train test skipped: python3-torch is not installed (models/training/install.sh)');
if (!shared) console.warn(SHARED_MISSING);

const shipped = readManifest(MODELS_DIR).models.find((m) => m.task === 'bruise-segmentation')!;

describe.skipIf(!torch || !shared)('mango train bruise, then mango models', () => {
  const dir = mkdtempSync(join(tmpdir(), 'mango-train-cli-'));
  const dataDir = join(dir, 'data');
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('fine-tunes on 4 corrections, is refused by the gate, activated with --force (recorded), rolled back', async () => {
    const coco = JSON.parse(readFileSync(resolve(MODELS_DIR, 'training/annotations/real-dev.coco.json'), 'utf8')) as {
      images: { id: number; file_name: string }[];
      annotations: { image_id: number }[];
      categories: unknown[];
    };
    const images = coco.images.slice(0, 4);
    const ids = new Set(images.map((i) => i.id));
    const corrections = join(dir, 'corrections.coco.json');
    writeFileSync(
      corrections,
      JSON.stringify({ ...coco, images, annotations: coco.annotations.filter((a) => ids.has(a.image_id)) }),
    );

    const trained = await mango([
      'train',
      'bruise',
      '--annotations',
      corrections,
      '--images',
      join(shared!, 'data/bruise-dev/senmango_real_lesions/images'),
      '--steps',
      '2',
      '--threads',
      '1',
      '--dev-data',
      join(dir, 'no-dev-split-here'),
      '--id',
      'tiny-test',
      '--data-dir',
      dataDir,
    ]);
    expect(trained.code, trained.stderr).toBe(0);
    expect(trained.stderr).toMatch(
      /annotated photos are not on this machine .*: training on the given corrections alone/,
    );
    expect(trained.stderr).toMatch(/training on 2, holding out 2/);
    const version = JSON.parse(trained.stdout) as {
      id: string;
      sha256: string;
      base_id: string;
      evaluation: { held_out: number; baseline: { model_id: string } };
    };
    expect(version).toMatchObject({ id: 'tiny-test', base_id: shipped.id });
    expect(version.sha256).toMatch(/^[0-9a-f]{64}$/);
    expect(version.sha256).not.toBe(shipped.sha256);
    expect(version.evaluation).toMatchObject({ held_out: 2, baseline: { model_id: shipped.id } });

    const refused = await mango(['models', 'activate', 'tiny-test', '--data-dir', dataDir]);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toMatch(/gate: refused: too few held-out photos: 2 \(at least 10 are needed\)/);
    expect(refused.stderr).toMatch(/candidate: error p90 [\d.]+ points, CCC/);
    expect(refused.stderr).toMatch(/in force \(bruise-unet-320\): error p90 [\d.]+ points/);
    let list = await mango(['models', 'list', '--data-dir', dataDir]);
    expect(list.stdout).toMatch(new RegExp(`^\\*\\t${shipped.id}\\t`, 'm'));

    const forced = await mango(['models', 'activate', 'tiny-test', '--force', '--data-dir', dataDir]);
    expect(forced.code, forced.stderr).toBe(0);
    expect(forced.stdout).toMatch(/tiny-test is in force \(forced past the gate\)/);
    list = await mango(['models', 'list', '--data-dir', dataDir]);
    expect(list.stdout).toMatch(/^\*\ttiny-test\tbruise-segmentation\tfrom bruise-unet-320/m);
    const shown = JSON.parse((await mango(['models', 'show', 'tiny-test', '--data-dir', dataDir])).stdout) as {
      card: string;
      activations: { forced: boolean; gate: { passed: boolean; reason: string } }[];
    };
    expect(shown.activations[0]).toMatchObject({ forced: true, gate: { passed: false } });
    expect(shown.card).toMatch(/\| tiny-test \(this\) \| [\d.]+ \| [\d.]+ \| -?[\d.]+ \|/);

    const back = await mango(['models', 'rollback', '--data-dir', dataDir]);
    expect(back.stdout.trim()).toBe(`bruise-segmentation: tiny-test -> ${shipped.id}`);
  }, 300_000);
});

describe.skipIf(!shared)('mango train bruise refuses the AI CUP photos (evaluation only)', () => {
  it('names the photo and trains nothing when a correction is an AI CUP photo', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'mango-train-aicup-'));
    try {
      const r = await mango([
        'train',
        'bruise',
        '--annotations',
        resolve(MODELS_DIR, 'training/annotations/aicup-eval.coco.json'),
        '--images',
        join(shared!, 'data/bruise-dev/aicup_defect_boxes/images'),
        '--data-dir',
        join(dir, 'data'),
      ]);
      expect(r.code).not.toBe(0);
      expect(r.stderr).toMatch(/00595\.jpg: an AI CUP photo \(source group aicup:00595\.jpg\): evaluation only/);
      // refused before any training: nothing was written to the data folder
      expect(existsSync(join(dir, 'data', 'models'))).toBe(false);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }, 60_000);
});
