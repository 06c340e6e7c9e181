/**
 * Pixel truth for `mango eval bruise --truth PATH` (Node only), in the formats labs annotate with,
 * recognised from their content: a COCO file (polygons, RLE), a CVAT "Segmentation mask 1.1" export
 * (folder), a Label Studio JSON export (polygons, brush masks) and this repository's PNG folders
 * (fruit_masks/, bruise_masks/). Categories named `fruit` (or `mango`) and `bruise` are read; the fruit
 * truth is fruit or bruise (a bruise lies on its fruit). `cocoFromMasks` writes the other way.
 */
import { existsSync, readFileSync, statSync } from 'node:fs';
import { basename, extname, join } from 'node:path';
import { MangoError, boundingBox, countSet, labelComponents } from '@mango/core';
import { decodeImage } from '@mango/core/node';
import { decodeCocoRle, decodeLabelStudioRle, encodeCocoRle, fillPolygon, flatToPoints, type CocoRle } from './rle.ts';

export type TruthFormat = 'png-folders' | 'coco' | 'cvat-mask' | 'label-studio';

export interface TruthMasks {
  width: number;
  height: number;
  fruit: Uint8Array;
  bruise: Uint8Array;
}

export interface PixelTruth {
  format: TruthFormat;
  /** the truth of a photo (matched by file name), or null when the truth has none for it */
  masks(filename: string): Promise<TruthMasks | null>;
}

type Role = 'fruit' | 'bruise';
const roleOf = (name: string | undefined): Role | null => {
  const n = (name ?? '').trim().toLowerCase();
  return n === 'fruit' || n === 'mango' ? 'fruit' : n === 'bruise' ? 'bruise' : null;
};

const stem = (name: string) => basename(name, extname(name));
const invalid = (message: string) => new MangoError('INVALID_INPUT', message);

/** Fruit truth includes the bruises (as the PNG truth and the plugin's masks do). */
function masksOf(width: number, height: number, fruit: Uint8Array, bruise: Uint8Array): TruthMasks {
  for (let i = 0; i < fruit.length; i++) if (bruise[i]) fruit[i] = 1;
  return { width, height, fruit, bruise };
}

/** A 0/255 mask image (PNG) as a 0/1 mask (its red channel >= 128). */
export async function maskFromImage(bytes: Uint8Array, name?: string) {
  const img = await decodeImage(bytes, name);
  const m = new Uint8Array(img.width * img.height);
  for (let i = 0; i < m.length; i++) m[i] = img.data[i * 4] >= 128 ? 1 : 0;
  return { width: img.width, height: img.height, mask: m };
}

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
      const n = img.width * img.height;
      const fruit = new Uint8Array(n);
      const bruise = new Uint8Array(n);
      for (let i = 0; i < n; i++) {
        const role = colours.get(`${img.data[i * 4]},${img.data[i * 4 + 1]},${img.data[i * 4 + 2]}`);
        if (role === 'fruit') fruit[i] = 1;
        else if (role === 'bruise') bruise[i] = 1;
      }
      return masksOf(img.width, img.height, fruit, bruise);
    },
  };
}

interface CocoFile {
  images: { id: number | string; file_name: string; width: number; height: number }[];
  annotations: {
    image_id: number | string;
    category_id: number | string;
    segmentation?: number[][] | CocoRle;
  }[];
  categories: { id: number | string; name: string }[];
}

function coco(file: string, data: CocoFile): PixelTruth {
  const roles = new Map(data.categories.map((c) => [String(c.id), roleOf(c.name)]));
  if (![...roles.values()].includes('fruit')) throw invalid(`${file}: no COCO category named fruit (or mango)`);
  const byName = new Map(data.images.map((im) => [basename(im.file_name), im]));
  return {
    format: 'coco',
    async masks(filename) {
      const im = byName.get(basename(filename));
      if (!im) return null;
      const { width, height } = im;
      const fruit = new Uint8Array(width * height);
      const bruise = new Uint8Array(width * height);
      for (const a of data.annotations) {
        if (String(a.image_id) !== String(im.id)) continue;
        const role = roles.get(String(a.category_id));
        if (!role || !a.segmentation) continue;
        const target = role === 'fruit' ? fruit : bruise;
        if (Array.isArray(a.segmentation)) {
          for (const poly of a.segmentation) fillPolygon(target, width, height, flatToPoints(poly));
        } else {
          const rle = decodeCocoRle(a.segmentation);
          if (rle.width !== width || rle.height !== height) {
            throw invalid(
              `${file}: an RLE of ${im.file_name} is ${rle.width}x${rle.height}, the image ${width}x${height}`,
            );
          }
          for (let i = 0; i < rle.mask.length; i++) if (rle.mask[i]) target[i] = 1;
        }
      }
      return masksOf(width, height, fruit, bruise);
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
      const fruit = new Uint8Array(width * height);
      const bruise = new Uint8Array(width * height);
      for (const r of annotation.result) {
        const role = roleOf((r.value.polygonlabels ?? r.value.brushlabels)?.[0]);
        if (!role) continue;
        const target = role === 'fruit' ? fruit : bruise;
        if (r.type === 'polygonlabels' && r.value.points) {
          // Label Studio keeps points in percent of the image's width and height.
          const points = r.value.points.map(([x, y]) => [(x / 100) * width, (y / 100) * height] as [number, number]);
          fillPolygon(target, width, height, points);
        } else if (r.type === 'brushlabels' && r.value.format === 'rle' && r.value.rle) {
          const m = decodeLabelStudioRle(r.value.rle, width, height);
          for (let i = 0; i < m.length; i++) if (m[i]) target[i] = 1;
        }
      }
      return masksOf(width, height, fruit, bruise);
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
  const o = data as Partial<CocoFile>;
  if (o && Array.isArray(o.images) && Array.isArray(o.annotations) && Array.isArray(o.categories)) {
    return coco(path, o as CocoFile);
  }
  if (Array.isArray(data) && data.every((t) => t && typeof t === 'object' && ('annotations' in t || 'data' in t))) {
    return labelStudio(path, data as LabelStudioTask[]);
  }
  throw invalid(
    `${path}: JSON that is neither a COCO file (images, annotations, categories) nor a Label Studio export`,
  );
}

/** One photo's predicted regions for `cocoFromMasks`: each fruit's mask and its bruised part. */
export interface PhotoRegions {
  file_name: string;
  width: number;
  height: number;
  /** per fruit: its mask (1 = fruit, bruise included) and its bruise mask */
  fruits: { fruit: Uint8Array; bruise: Uint8Array }[];
}

const COCO_CATEGORIES = [
  { id: 1, name: 'fruit', supercategory: 'mango' },
  { id: 2, name: 'bruise', supercategory: 'mango' },
];

/** One photo of a COCO file: its image entry and its annotations (numbered by `cocoFile`). */
export interface CocoPhoto {
  image: { file_name: string; width: number; height: number };
  annotations: Record<string, unknown>[];
}

/** A photo's predicted regions as COCO RLE annotations (iscrowd 1: a mask), fruit then its bruise. */
export function cocoPhoto(p: PhotoRegions): CocoPhoto {
  const annotations: Record<string, unknown>[] = [];
  p.fruits.forEach((f, n) => {
    for (const [category, mask] of [
      [1, f.fruit],
      [2, f.bruise],
    ] as const) {
      const box = boundingBox(mask, p.width, p.height);
      if (!box) continue;
      annotations.push({
        category_id: category,
        segmentation: encodeCocoRle(mask, p.width, p.height),
        area: countSet(mask),
        bbox: [box.x, box.y, box.width, box.height],
        iscrowd: 1,
        attributes: { fruit: n + 1 },
      });
    }
  });
  return { image: { file_name: p.file_name, width: p.width, height: p.height }, annotations };
}

/** The COCO file of several photos (categories `fruit` and `bruise`). */
export function cocoFile(photos: readonly CocoPhoto[], info: Record<string, unknown> = {}) {
  let id = 0;
  return {
    info,
    images: photos.map((p, k) => ({ id: k + 1, ...p.image })),
    annotations: photos.flatMap((p, k) => p.annotations.map((a) => ({ id: ++id, image_id: k + 1, ...a }))),
    categories: COCO_CATEGORIES,
  };
}

/** Splits a photo's fruit mask into fruits (8-connected) with the bruise mask's part on each. */
export function regionsOfMasks(
  file_name: string,
  width: number,
  height: number,
  fruit: Uint8Array,
  bruise: Uint8Array,
): PhotoRegions {
  const { labels, count } = labelComponents(fruit, width, height, 8);
  const fruits = Array.from({ length: count }, () => ({
    fruit: new Uint8Array(width * height),
    bruise: new Uint8Array(width * height),
  }));
  for (let i = 0; i < labels.length; i++) {
    const l = labels[i];
    if (!l) continue;
    fruits[l - 1].fruit[i] = 1;
    if (bruise[i]) fruits[l - 1].bruise[i] = 1;
  }
  return { file_name, width, height, fruits };
}
