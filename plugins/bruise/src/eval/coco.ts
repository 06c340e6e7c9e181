/**
 * COCO files, read and written in this one module: a COCO file as pixel truth for `mango eval bruise
 * --truth` (polygons and RLE masks), and the COCO file of predicted regions that `mango bruise
 * --export-coco` writes (RLE masks: each fruit and its bruise as two annotations). The run-length
 * codec is rle.ts. Browser-safe: mask images are decoded by the caller's decoder.
 */
import { boundingBox, countSet, labelComponents, type DecodeImage } from '@mango/core';
import { decodeCocoRle, encodeCocoRle, fillPolygon, flatToPoints, type CocoRle } from '../rle.ts';
import {
  baseName as basename,
  invalidTruth as invalid,
  maskOfImage,
  paintedTruth,
  roleOf,
  type PixelTruth,
} from './truth-masks.ts';

/** The parts of a COCO file the truth reads. */
interface CocoFile {
  images: { id: number | string; file_name: string; width: number; height: number }[];
  annotations: {
    image_id: number | string;
    category_id: number | string;
    segmentation?: number[][] | CocoRle;
  }[];
  categories: { id: number | string; name: string }[];
}

/** A parsed JSON file that has the three arrays of a COCO file. */
export function isCocoFile(data: unknown): data is CocoFile {
  const o = data as Partial<CocoFile> | null;
  return Boolean(o && Array.isArray(o.images) && Array.isArray(o.annotations) && Array.isArray(o.categories));
}

/** A COCO file as pixel truth: polygons and RLE masks of the fruit (or mango) and bruise categories. */
export function cocoTruth(file: string, data: CocoFile): PixelTruth {
  const roles = new Map(data.categories.map((c) => [String(c.id), roleOf(c.name)]));
  if (![...roles.values()].includes('fruit')) throw invalid(`${file}: no COCO category named fruit (or mango)`);
  const byName = new Map(data.images.map((im) => [basename(im.file_name), im]));
  return {
    format: 'coco',
    entries: () => [...byName.keys()],
    entryOf: (filename) => (byName.has(basename(filename)) ? basename(filename) : null),
    async masks(filename) {
      const im = byName.get(basename(filename));
      if (!im) return null;
      const { width, height } = im;
      const painted = paintedTruth(width, height);
      for (const a of data.annotations) {
        if (String(a.image_id) !== String(im.id)) continue;
        const role = roles.get(String(a.category_id));
        if (!role || !a.segmentation) continue;
        if (Array.isArray(a.segmentation)) {
          for (const poly of a.segmentation) fillPolygon(painted.mask(role), width, height, flatToPoints(poly));
        } else {
          const rle = decodeCocoRle(a.segmentation);
          if (rle.width !== width || rle.height !== height) {
            throw invalid(
              `${file}: an RLE of ${im.file_name} is ${rle.width}x${rle.height}, the image ${width}x${height}`,
            );
          }
          painted.add(role, rle.mask);
        }
      }
      return painted.truth();
    },
  };
}

/** One photo's predicted regions for `cocoPhoto`: each fruit's mask and its bruised part. */
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

/** The COCO file of photos' truth masks (each split into its fruits): what a stored run's annotations export. */
export const cocoFileOfMasks = (
  photos: readonly {
    filename: string;
    masks: { width: number; height: number; fruit: Uint8Array; bruise: Uint8Array };
  }[],
  info: Record<string, unknown> = {},
) =>
  cocoFile(
    photos.map(({ filename, masks: m }) => cocoPhoto(regionsOfMasks(filename, m.width, m.height, m.fruit, m.bruise))),
    info,
  );

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

/** A photo's COCO entry from the plugin's fruit and bruise mask images (0/255 PNGs), split into fruits. */
export async function cocoPhotoOfMaskImages(
  file_name: string,
  fruitPng: Uint8Array,
  bruisePng: Uint8Array,
  decode: DecodeImage,
): Promise<CocoPhoto> {
  const fruit = maskOfImage(await decode(fruitPng));
  const bruise = maskOfImage(await decode(bruisePng));
  return cocoPhoto(regionsOfMasks(file_name, fruit.width, fruit.height, fruit.mask, bruise.mask));
}
