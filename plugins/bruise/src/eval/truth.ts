/**
 * Pixel truth for `mango eval bruise --truth PATH` (Node only), in the formats labs annotate with,
 * recognised from their content: a COCO file (polygons, RLE), a CVAT "Segmentation mask 1.1" export
 * (folder), a Label Studio JSON export (polygons, brush masks) and this repository's PNG folders
 * (fruit_masks/, bruise_masks/). Categories named `fruit` (or `mango`) and `bruise` are read; the fruit
 * truth is fruit or bruise (a bruise lies on its fruit). COCO files are read and written in eval/coco.ts.
 */
import { existsSync, readFileSync, statSync } from 'node:fs';
import { basename, extname, join } from 'node:path';
import { decodeImage } from '@mango/core/node';
import { decodeLabelStudioRle, fillPolygon } from '../rle.ts';
import { cocoTruth, isCocoFile } from './coco.ts';
import {
  invalidTruth as invalid,
  maskFromImage,
  masksOf,
  paintedTruth,
  roleOf,
  type PixelTruth,
  type Role,
} from './truth-masks.ts';

const stem = (name: string) => basename(name, extname(name));

const readBinaryPng = (path: string) => maskFromImage(readFileSync(path), basename(path));

function pngFolders(dir: string): PixelTruth {
  return {
    format: 'png-folders',
    async masks(filename) {
      const fp = join(dir, 'fruit_masks', `${stem(filename)}.png`);
      const bp = join(dir, 'bruise_masks', `${stem(filename)}.png`);
      if (!existsSync(fp) || !existsSync(bp)) return null;
      const f = await readBinaryPng(fp);
      const b = await readBinaryPng(bp);
      return masksOf(f.width, f.height, f.mask, b.mask);
    },
  };
}

/** CVAT "Segmentation mask 1.1": labelmap.txt (`name:r,g,b:parts:actions`) and SegmentationClass/<stem>.png. */
function cvatMask(dir: string): PixelTruth {
  const colours = new Map<string, Role>();
  for (const line of readFileSync(join(dir, 'labelmap.txt'), 'utf8').split(/\r?\n/)) {
    if (!line.trim() || line.startsWith('#')) continue;
    const [name, rgb] = line.split(':');
    const role = roleOf(name);
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
    throw invalid(`${join(dir, 'labelmap.txt')}: no label named fruit (or mango)`);
  }
  const classDir = join(dir, 'SegmentationClass');
  return {
    format: 'cvat-mask',
    async masks(filename) {
      const path = join(classDir, `${stem(filename)}.png`);
      if (!existsSync(path)) return null;
      const img = await decodeImage(readFileSync(path), basename(path));
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
  const name = basename(decodeURIComponent(value.split('?')[0]));
  const unprefixed = name.replace(/^[0-9a-f]{8}-/, '');
  return unprefixed === name ? [name] : [name, unprefixed];
}

function labelStudio(file: string, tasks: LabelStudioTask[]): PixelTruth {
  const byName = new Map<string, LabelStudioTask>();
  for (const t of tasks) for (const n of taskImageNames(t)) byName.set(n, t);
  return {
    format: 'label-studio',
    async masks(filename) {
      const task = byName.get(basename(filename));
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

/** The truth at `path`, its format recognised from its content. */
export function openTruth(path: string): PixelTruth {
  if (!existsSync(path)) throw invalid(`truth not found: ${path}`);
  if (statSync(path).isDirectory()) {
    if (existsSync(join(path, 'labelmap.txt')) && existsSync(join(path, 'SegmentationClass'))) return cvatMask(path);
    if (existsSync(join(path, 'fruit_masks')) && existsSync(join(path, 'bruise_masks'))) return pngFolders(path);
    throw invalid(
      `${path}: not a truth folder (fruit_masks/ + bruise_masks/, or CVAT "Segmentation mask 1.1": labelmap.txt + SegmentationClass/)`,
    );
  }
  let data: unknown;
  try {
    data = JSON.parse(readFileSync(path, 'utf8'));
  } catch {
    throw invalid(`${path}: not a JSON file (COCO or Label Studio export) nor a truth folder`);
  }
  if (isCocoFile(data)) return cocoTruth(path, data);
  if (Array.isArray(data) && data.every((t) => t && typeof t === 'object' && ('annotations' in t || 'data' in t))) {
    return labelStudio(path, data as LabelStudioTask[]);
  }
  throw invalid(
    `${path}: JSON that is neither a COCO file (images, annotations, categories) nor a Label Studio export`,
  );
}
