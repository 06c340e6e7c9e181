/**
 * The truth of one photo as every truth format answers it (eval/truth-formats.ts, eval/coco.ts): a
 * fruit mask and a bruise mask, the category names that mean fruit and bruise, and 0/255 mask images.
 * Browser-safe (the run declaration's annotation import reads through it): images are decoded by the
 * caller's decoder.
 */
import { MangoError, type RasterImage } from '@mango/core';

export type TruthFormat = 'png-folders' | 'coco' | 'cvat-mask' | 'label-studio';

export interface TruthMasks {
  width: number;
  height: number;
  fruit: Uint8Array;
  bruise: Uint8Array;
}

export interface PixelTruth {
  format: TruthFormat;
  /** the photos the truth annotates, as it names them (a file name, or the mask file's path) */
  entries(): string[];
  /** the entry that holds the truth of the photo `filename` (matched by file name), or null */
  entryOf(filename: string): string | null;
  /** the truth of a photo (matched by file name), or null when the truth has none for it */
  masks(filename: string): Promise<TruthMasks | null>;
}

/** The last part of a `/` or `\\` separated path (node:path's basename, browser-safe). */
export const baseName = (path: string) => path.slice(Math.max(path.lastIndexOf('/'), path.lastIndexOf('\\')) + 1);

/** A file name without its extension. */
export const stemOf = (path: string) => {
  const name = baseName(path);
  const dot = name.lastIndexOf('.');
  return dot > 0 ? name.slice(0, dot) : name;
};

export type Role = 'fruit' | 'bruise';

/** What a category (label) of an annotation tool stands for: `fruit` (or `mango`), `bruise`, or nothing read. */
export const roleOf = (name: string | undefined): Role | null => {
  const n = (name ?? '').trim().toLowerCase();
  return n === 'fruit' || n === 'mango' ? 'fruit' : n === 'bruise' ? 'bruise' : null;
};

export const invalidTruth = (message: string) => new MangoError('INVALID_INPUT', message);

/** Fruit truth includes the bruises (as the PNG truth and the plugin's masks do). */
export function masksOf(width: number, height: number, fruit: Uint8Array, bruise: Uint8Array): TruthMasks {
  for (let i = 0; i < fruit.length; i++) if (bruise[i]) fruit[i] = 1;
  return { width, height, fruit, bruise };
}

/** Empty fruit and bruise masks of a photo that a truth format paints role by role. */
export function paintedTruth(width: number, height: number) {
  const masks: Record<Role, Uint8Array> = {
    fruit: new Uint8Array(width * height),
    bruise: new Uint8Array(width * height),
  };
  return {
    /** the mask of `role`, to paint into */
    mask: (role: Role) => masks[role],
    /** sets the pixels of `role` that are set in `m` (a mask of the same size) */
    add(role: Role, m: ArrayLike<number>) {
      const target = masks[role];
      for (let i = 0; i < m.length; i++) if (m[i]) target[i] = 1;
    },
    /** the truth painted (fruit includes the bruises) */
    truth: () => masksOf(width, height, masks.fruit, masks.bruise),
  };
}

/** A decoded 0/255 mask image (PNG) as a 0/1 mask (its red channel >= 128). */
export function maskOfImage(img: Pick<RasterImage, 'width' | 'height' | 'data'>) {
  const m = new Uint8Array(img.width * img.height);
  for (let i = 0; i < m.length; i++) m[i] = img.data[i * 4] >= 128 ? 1 : 0;
  return { width: img.width, height: img.height, mask: m };
}
