/**
 * Pixel truth in the formats labs annotate with, recognised from their content (issue 28): a COCO
 * file (polygons, RLE; read in eval/coco.ts), a CVAT "Segmentation mask 1.1" export (a folder or a
 * zip), a Label Studio JSON export (polygons, brush masks) and this repository's PNG folders
 * (fruit_masks/, bruise_masks/). Categories named `fruit` (or `mango`) and `bruise` are read; the
 * fruit truth is fruit or bruise (a bruise lies on its fruit). Browser-safe: the files come as
 * `AnnotationInput` (parsed JSON, or the files of a folder or zip) and images are decoded by the
 * caller's decoder; `mango eval bruise --truth` (eval/truth.ts) and a stored run's annotation import
 * (the run declaration) both read through here.
 */
import type { AnnotationFiles, AnnotationInput, DecodeImage } from '@mango/core';
import { decodeLabelStudioRle, fillPolygon } from '../rle.ts';
import { cocoTruth, isCocoFile } from './coco.ts';
import {
  baseName as basename,
  invalidTruth as invalid,
  maskOfImage,
  masksOf,
  paintedTruth,
  roleOf,
  stemOf as stem,
  type PixelTruth,
  type Role,
} from './truth-masks.ts';

const text = (bytes: Uint8Array) => new TextDecoder().decode(bytes);

/** The folder inside `files` that holds `marker` (a file name, or a folder's with its `/`): '' for the top, the shortest, or null. */
function rootOf(files: AnnotationFiles, marker: string): string | null {
  let root: string | null = null;
  for (const n of files.names) {
    const at = n.startsWith(marker) ? 0 : n.indexOf(`/${marker}`);
    if (at < 0) continue;
    const prefix = at === 0 && n.startsWith(marker) ? '' : n.slice(0, at + 1);
    if (root === null || prefix.length < root.length) root = prefix;
  }
  return root;
}

/** The PNG files directly in `folder`, by stem. */
function pngsIn(files: AnnotationFiles, folder: string): Map<string, string> {
  const out = new Map<string, string>();
  for (const n of files.names) {
    const rest = n.startsWith(folder) ? n.slice(folder.length) : null;
    if (rest && !rest.includes('/') && /\.png$/i.test(rest)) out.set(stem(rest), n);
  }
  return out;
}

function pngFolders(files: AnnotationFiles, root: string, decode: DecodeImage): PixelTruth {
  const fruits = pngsIn(files, `${root}fruit_masks/`);
  const bruises = pngsIn(files, `${root}bruise_masks/`);
  const entryOf = (filename: string) => (bruises.has(stem(filename)) ? (fruits.get(stem(filename)) ?? null) : null);
  return {
    format: 'png-folders',
    entries: () => [...fruits].filter(([s]) => bruises.has(s)).map(([, n]) => n),
    entryOf,
    async masks(filename) {
      const fp = entryOf(filename);
      if (!fp) return null;
      const bp = bruises.get(stem(filename))!;
      const f = maskOfImage(await decode(files.read(fp), basename(fp)));
      const b = maskOfImage(await decode(files.read(bp), basename(bp)));
      if (f.width !== b.width || f.height !== b.height)
        throw invalid(`${fp} is ${f.width}x${f.height}, ${bp} ${b.width}x${b.height}`);
      return masksOf(f.width, f.height, f.mask, b.mask);
    },
  };
}

/** CVAT "Segmentation mask 1.1": labelmap.txt (`name:r,g,b:parts:actions`) and SegmentationClass/<stem>.png. */
function cvatMask(name: string, files: AnnotationFiles, root: string, decode: DecodeImage): PixelTruth {
  const colours = new Map<string, Role>();
  for (const line of text(files.read(`${root}labelmap.txt`)).split(/\r?\n/)) {
    if (!line.trim() || line.startsWith('#')) continue;
    const [label, rgb] = line.split(':');
    const role = roleOf(label);
    if (role && rgb)
      colours.set(
        rgb
          .split(',')
          .map((v) => Number(v.trim()))
          .join(','),
        role,
      );
  }
  if (![...colours.values()].includes('fruit')) {
    throw invalid(`${name}: ${root}labelmap.txt has no label named fruit (or mango)`);
  }
  const masks = pngsIn(files, `${root}SegmentationClass/`);
  const entryOf = (filename: string) => masks.get(stem(filename)) ?? null;
  return {
    format: 'cvat-mask',
    entries: () => [...masks.values()],
    entryOf,
    async masks(filename) {
      const path = entryOf(filename);
      if (!path) return null;
      const img = await decode(files.read(path), basename(path));
      const painted = paintedTruth(img.width, img.height);
      for (let i = 0; i < img.width * img.height; i++) {
        const role = colours.get(`${img.data[i * 4]},${img.data[i * 4 + 1]},${img.data[i * 4 + 2]}`);
        if (role) painted.mask(role)[i] = 1;
      }
      return painted.truth();
    },
  };
}

interface LabelStudioResult {
  type: string;
  original_width?: number;
  original_height?: number;
  value: {
    points?: [number, number][];
    polygonlabels?: string[];
    brushlabels?: string[];
    format?: string;
    rle?: number[];
  };
}
interface LabelStudioTask {
  data?: Record<string, unknown>;
  annotations?: { result?: LabelStudioResult[]; was_cancelled?: boolean }[];
}

/** The file name of a Label Studio task's image; uploads carry an 8-hex-digit prefix ("1a2b3c4d-photo.jpg"). */
function taskImageNames(task: LabelStudioTask): string[] {
  const value = Object.values(task.data ?? {}).find((v) => typeof v === 'string') as string | undefined;
  if (!value) return [];
  let decoded = value.split('?')[0];
  try {
    decoded = decodeURIComponent(decoded);
  } catch {
    // a name with a literal '%' stays as it is
  }
  const name = basename(decoded);
  const unprefixed = name.replace(/^[0-9a-f]{8}-/, '');
  return unprefixed === name ? [name] : [name, unprefixed];
}

function labelStudio(file: string, tasks: LabelStudioTask[]): PixelTruth {
  const byName = new Map<string, { task: LabelStudioTask; entry: string }>();
  const entries: string[] = [];
  for (const task of tasks) {
    const names = taskImageNames(task);
    if (!names.length || !task.annotations?.some((a) => !a.was_cancelled && a.result?.length)) continue;
    const entry = names[names.length - 1];
    entries.push(entry);
    for (const n of names) byName.set(n, { task, entry });
  }
  return {
    format: 'label-studio',
    entries: () => entries,
    entryOf: (filename) => byName.get(basename(filename))?.entry ?? null,
    async masks(filename) {
      const task = byName.get(basename(filename))?.task;
      const annotation = task?.annotations?.find((a) => !a.was_cancelled);
      if (!annotation?.result?.length) return null;
      const sized = annotation.result.find((r) => r.original_width && r.original_height);
      if (!sized) throw invalid(`${file}: the annotation of ${filename} gives no original_width/original_height`);
      const width = sized.original_width!;
      const height = sized.original_height!;
      const painted = paintedTruth(width, height);
      for (const r of annotation.result) {
        const role = roleOf((r.value.polygonlabels ?? r.value.brushlabels)?.[0]);
        if (!role) continue;
        if (r.type === 'polygonlabels' && r.value.points) {
          // Label Studio keeps points in percent of the image's width and height.
          const points = r.value.points.map(([x, y]) => [(x / 100) * width, (y / 100) * height] as [number, number]);
          fillPolygon(painted.mask(role), width, height, points);
        } else if (r.type === 'brushlabels' && r.value.format === 'rle' && r.value.rle) {
          painted.add(role, decodeLabelStudioRle(r.value.rle, width, height));
        }
      }
      return painted.truth();
    },
  };
}

/** The truth of an annotation file (parsed JSON, or a folder's or zip's files), its format recognised from its content. */
export function openTruthInput(input: AnnotationInput, decode: DecodeImage): PixelTruth {
  if (input.kind === 'files') {
    const cvat = rootOf(input.files, 'labelmap.txt');
    if (cvat !== null && input.files.names.some((n) => n.startsWith(`${cvat}SegmentationClass/`)))
      return cvatMask(input.name, input.files, cvat, decode);
    const png = rootOf(input.files, 'fruit_masks/');
    if (png !== null && input.files.names.some((n) => n.startsWith(`${png}bruise_masks/`)))
      return pngFolders(input.files, png, decode);
    throw invalid(
      `${input.name}: not a truth folder (fruit_masks/ + bruise_masks/, or CVAT "Segmentation mask 1.1": labelmap.txt + SegmentationClass/)`,
    );
  }
  const { data } = input;
  if (isCocoFile(data)) return cocoTruth(input.name, data);
  if (Array.isArray(data) && data.every((t) => t && typeof t === 'object' && ('annotations' in t || 'data' in t))) {
    return labelStudio(input.name, data as LabelStudioTask[]);
  }
  throw invalid(
    `${input.name}: JSON that is neither a COCO file (images, annotations, categories) nor a Label Studio export`,
  );
}
