/**
 * `mango train bruise --annotations FILE... --images DIR`: a new version of the bruise model from a
 * lab's corrections (issue 28 item 3), registered in the deployment's model registry.
 *
 * 1. The corrections (COCO, CVAT "Segmentation mask 1.1", Label Studio: the formats `mango eval
 *    bruise --truth` reads) are matched to the photos of --images by file name and split by photo
 *    source: a COCO image's `source_group` (else each photo is its own group); groups ordered by the
 *    sha1 of seed and group, the first `heldOut` share held out.
 * 2. Training is the repository's one recipe (`python3 -m mango_train.train`, as `npm run
 *    train:bruise`) on the repository's annotated set (../shared/data/bruise-dev, when it is on the
 *    machine) plus the training part of the corrections, fine-tuned from the model in force (its ONNX
 *    weights, BatchNorm frozen) or from scratch.
 * 3. The new model and the model in force are both scored on the held-out corrections with the
 *    product's own inference (plugins/bruise eval): lesion % error p90 and Lin's CCC, side by side.
 * 4. The version is added to the registry with its card and that evaluation; activating it is the
 *    operator's (`mango models activate`, gated on those figures).
 */
import { spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir, userInfo } from 'node:os';
import { extname, join, resolve } from 'node:path';
import type { ModelManifestEntry } from '@mango/core';
import { QUARTER_TURNS } from '@mango/core';
import { createEntriesLoader, MODELS_DIR } from '@mango/models';
import { evaluateBruise, maskToCounts, openTruth, type TruthMasks } from '@mango/plugin-bruise/eval';
import { regionsOfMasks } from '@mango/plugin-bruise/coco';
import { splitByGroup } from '@mango/core/node';

/** The split by photo source lives in core (the quality bench splits the dev photos with it too). */
export { splitByGroup };

export const BRUISE_TASK = 'bruise-segmentation';
const IMAGE_EXT = new Set(['.jpg', '.jpeg', '.png']);

export interface TrainBruiseOptions {
  annotations: string[];
  images: string;
  fromScratch: boolean;
  steps: number;
  /** share of the photo groups held out for the evaluation */
  heldOut: number;
  seed: number;
  threads: number;
  /** the repository's annotated dev split (default ../shared/data/bruise-dev beside the repository) */
  devData: string;
  /** the new version's id (default bruise-<date>-<sha8>) */
  id?: string;
  log: (line: string) => void;
}

export interface Correction {
  file: string;
  group: string;
  masks: TruthMasks;
}

export interface Figures {
  error_p90: number;
  ccc: number;
  error_median: number;
}

export interface TrainedVersion {
  id: string;
  entry: ModelManifestEntry;
  file: Uint8Array;
  base: ModelManifestEntry | null;
  card: string;
  evaluation: {
    held_out: number;
    candidate: Figures;
    baseline: Figures & { model_id: string };
    split: string;
  } | null;
  train: Record<string, unknown>;
  held_out_files: string[];
  train_files: string[];
}

/** The photo source of each COCO image (`source_group`), by file name. */
function sourceGroups(path: string): Map<string, string> {
  const groups = new Map<string, string>();
  if (!path.toLowerCase().endsWith('.json')) return groups;
  try {
    const data = JSON.parse(readFileSync(path, 'utf8')) as { images?: { file_name?: string; source_group?: string }[] };
    for (const im of data.images ?? []) if (im.file_name && im.source_group) groups.set(im.file_name, im.source_group);
  } catch {
    // not COCO: each photo is its own group
  }
  return groups;
}

/** The source group of the AI CUP photos (annotations/aicup-eval.coco.json): terms unknown, evaluation only. */
export const EVALUATION_ONLY_GROUP = 'aicup:';

/** The corrections of the photos in `images` (the first file that has truth for a photo wins). */
export async function readCorrections(annotations: readonly string[], images: string): Promise<Correction[]> {
  const truths = annotations.map((a) => ({ truth: openTruth(a), groups: sourceGroups(a) }));
  const files = readdirSync(images)
    .filter((f) => IMAGE_EXT.has(extname(f).toLowerCase()))
    .sort();
  const out: Correction[] = [];
  for (const file of files) {
    for (const { truth, groups } of truths) {
      const masks = await truth.masks(file);
      if (masks) {
        const group = groups.get(file) ?? file;
        if (group.startsWith(EVALUATION_ONLY_GROUP))
          throw new Error(
            `${file}: an AI CUP photo (source group ${group}): evaluation only, it never trains a model (models/training/README.md)`,
          );
        out.push({ file, group, masks });
        break;
      }
    }
  }
  return out;
}

/** Corrections as the COCO file the training reads: fruit instances and their lesions, plain RLE counts. */
export function trainingCoco(items: readonly Correction[]) {
  let id = 0;
  const images = items.map((c, k) => ({
    id: k + 1,
    file_name: c.file,
    width: c.masks.width,
    height: c.masks.height,
    source_group: c.group,
  }));
  const annotations = items.flatMap((c, k) => {
    const { width: w, height: h } = c.masks;
    const regions = regionsOfMasks(c.file, w, h, c.masks.fruit, c.masks.bruise);
    return regions.fruits.flatMap((f) =>
      [
        [1, f.fruit],
        [2, f.bruise],
      ].flatMap(([category, mask]) => {
        const m = mask as Uint8Array;
        let area = 0;
        for (const v of m) area += v ? 1 : 0;
        if (!area) return [];
        return [
          {
            id: ++id,
            image_id: k + 1,
            category_id: category,
            iscrowd: 1,
            area,
            segmentation: { size: [h, w], counts: maskToCounts(m, w, h) },
          },
        ];
      }),
    );
  });
  return {
    images,
    annotations,
    categories: [
      { id: 1, name: 'fruit' },
      { id: 2, name: 'bruise' },
    ],
  };
}

function python(args: string[], cwd: string, log: (line: string) => void): Promise<void> {
  return new Promise((res, rej) => {
    const child = spawn('/usr/bin/python3', args, { cwd, stdio: ['ignore', 'pipe', 'pipe'] });
    let tail = '';
    const take = (chunk: Buffer) => {
      const text = chunk.toString();
      tail = (tail + text).slice(-4000);
      for (const line of text.split('\n')) if (line.trim()) log(line);
    };
    child.stdout.on('data', take);
    child.stderr.on('data', take);
    child.on('error', (e) => rej(new Error(`python3 could not start (${e.message}): see models/training/install.sh`)));
    child.on('close', (code) => (code === 0 ? res() : rej(new Error(`training failed (exit ${code}):\n${tail}`))));
  });
}

async function figures(entry: ModelManifestEntry, images: string, truth: string, only: Set<string>): Promise<Figures> {
  const ev = await evaluateBruise({
    images,
    truth,
    method: 'model',
    models: createEntriesLoader([entry]),
    only: (f) => only.has(f),
  });
  const p = ev.pixel!;
  return { error_p90: p.abs_error_p90 ?? 0, ccc: p.lin_ccc, error_median: p.abs_error_median ?? 0 };
}

const sha256 = (b: Uint8Array) => createHash('sha256').update(b).digest('hex');

export async function trainBruise(base: ModelManifestEntry | null, o: TrainBruiseOptions): Promise<TrainedVersion> {
  if (!existsSync(o.images)) throw new Error(`--images: no folder ${o.images}`);
  const corrections = await readCorrections(o.annotations, o.images);
  if (corrections.length === 0)
    throw new Error(`no photo of ${o.images} has a correction in ${o.annotations.join(', ')} (matched by file name)`);
  const { train, heldOut } = splitByGroup(corrections, o.heldOut, o.seed);
  o.log(
    `corrections: ${corrections.length} photos in ${new Set(corrections.map((c) => c.group)).size} groups; ` +
      `training on ${train.length}, holding out ${heldOut.length} (grouped by photo source, seed ${o.seed})`,
  );
  const devData = resolve(o.devData);
  const haveDev = existsSync(devData);
  if (!haveDev)
    o.log(
      `the repository's annotated photos are not on this machine (${devData}): training on the given corrections alone`,
    );
  if (!o.fromScratch && !base) throw new Error('no model in force to fine-tune: give --from-scratch');

  const work = mkdtempSync(join(tmpdir(), 'mango-train-'));
  try {
    const trainCoco = join(work, 'corrections-train.coco.json');
    writeFileSync(trainCoco, JSON.stringify(trainingCoco(train)));
    const heldCoco = join(work, 'corrections-held-out.coco.json');
    writeFileSync(heldCoco, JSON.stringify(trainingCoco(heldOut)));
    // Held-out photos and their sources are left out of the repository's set too (no leak).
    const exclude = join(work, 'held-out.txt');
    writeFileSync(exclude, [...new Set(heldOut.flatMap((c) => [c.file, c.group]))].join('\n') + '\n');
    const out = join(work, 'out');
    const trainingDir = join(MODELS_DIR, 'training');
    await python(
      [
        '-m',
        'mango_train.train',
        '--data',
        haveDev ? devData : '',
        '--coco',
        join(trainingDir, 'annotations', 'real-dev.coco.json'),
        '--extra',
        `${trainCoco}:${resolve(o.images)}`,
        '--exclude',
        exclude,
        ...(o.fromScratch ? [] : ['--init-onnx', base!.file]),
        '--out',
        out,
        '--steps',
        String(o.steps),
        '--seed',
        String(o.seed),
        '--threads',
        String(o.threads),
      ],
      trainingDir,
      o.log,
    );
    const file = new Uint8Array(readFileSync(join(out, 'model.onnx')));
    const trainInfo = JSON.parse(readFileSync(join(out, 'train.json'), 'utf8')) as Record<string, unknown>;
    const sha = sha256(file);
    const id = o.id ?? `bruise-${new Date().toISOString().slice(0, 10)}-${sha.slice(0, 8)}`;
    const template: ModelManifestEntry = base ?? {
      id,
      task: BRUISE_TASK,
      file: '',
      sha256: sha,
      license: 'trained here',
      input: {
        width: 320,
        height: 320,
        layout: 'NCHW',
        mean: [0.5, 0.5, 0.5],
        std: [0.25, 0.25, 0.25],
        crop: 'two-stage',
      },
      output: { name: 'logits', classes: ['fruit', 'bruise'], activation: 'logit' },
      tta: [...QUARTER_TURNS],
      tta_first: [...QUARTER_TURNS],
    };
    const entry: ModelManifestEntry = {
      ...template,
      id,
      sha256: sha,
      file: join(out, 'model.onnx'),
      card: undefined,
      training: { ...trainInfo, base: base?.id ?? null, corrections: train.length },
    } as ModelManifestEntry;

    let evaluation: TrainedVersion['evaluation'] = null;
    if (heldOut.length > 0 && base) {
      o.log(`scoring ${heldOut.length} held-out photos with ${id} and with ${base.id}`);
      const only = new Set(heldOut.map((c) => c.file));
      const candidate = await figures(entry, o.images, heldCoco, only);
      const baseline = await figures(base, o.images, heldCoco, only);
      evaluation = {
        held_out: heldOut.length,
        candidate,
        baseline: { ...baseline, model_id: base.id },
        split: `groups by source (COCO source_group, else the photo), sha1 order with seed ${o.seed}, ${Math.round(o.heldOut * 100)} % held out`,
      };
    }
    const card = modelCard({ id, sha, base, o, train, heldOut, evaluation, trainInfo, haveDev });
    return {
      id,
      entry: { ...entry, file: `${id}.onnx` },
      file,
      base,
      card,
      evaluation,
      train: trainInfo,
      held_out_files: heldOut.map((c) => c.file),
      train_files: train.map((c) => c.file),
    };
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
}

function modelCard(a: {
  id: string;
  sha: string;
  base: ModelManifestEntry | null;
  o: TrainBruiseOptions;
  train: Correction[];
  heldOut: Correction[];
  evaluation: TrainedVersion['evaluation'];
  trainInfo: Record<string, unknown>;
  haveDev: boolean;
}): string {
  const f = (x: Figures) => `${x.error_median.toFixed(2)} | ${x.error_p90.toFixed(2)} | ${x.ccc.toFixed(3)}`;
  const ev = a.evaluation;
  return [
    `# ${a.id}`,
    '',
    `A bruise-segmentation model trained with \`mango train bruise\` on ${new Date().toISOString()} by ${userInfo().username}.`,
    '',
    `- sha256: \`${a.sha}\``,
    `- started from: ${a.o.fromScratch ? 'random weights (--from-scratch)' : `${a.base!.id} (\`${a.base!.sha256}\`), BatchNorm frozen`}`,
    `- recipe: models/training/mango_train (the one of \`npm run train:bruise\`), ${a.o.steps} steps, seed ${a.o.seed}`,
    `- photos: ${a.train.length} corrections for training${a.haveDev ? ", plus the repository's annotated dev set and composites" : " (the repository's annotated photos were not on the machine)"}`,
    `- annotations: ${a.o.annotations.join(', ')}`,
    `- training seconds: ${String(a.trainInfo.seconds ?? '?')}`,
    '',
    '## Held-out corrections',
    '',
    ev
      ? [
          `${ev.held_out} photos whose photo source took no part in training (${ev.split}).`,
          '',
          "| model | lesion % error median | p90 | Lin's CCC |",
          '|---|---|---|---|',
          `| ${a.id} (this) | ${f(ev.candidate)} |`,
          `| ${ev.baseline.model_id} (in force) | ${f(ev.baseline)} |`,
        ].join('\n')
      : 'None: no photo was held out, so the activation gate will refuse this version without --force.',
    '',
  ].join('\n');
}
