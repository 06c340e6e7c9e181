/**
 * The truth of one photo as every truth format answers it (eval/truth.ts, eval/coco.ts): a fruit
 * mask and a bruise mask, the category names that mean fruit and bruise, and 0/255 mask images.
 */
import { MangoError } from '@mango/core';
import { decodeImage } from '@mango/core/node';

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

/** A 0/255 mask image (PNG) as a 0/1 mask (its red channel >= 128). */
export async function maskFromImage(bytes: Uint8Array, name?: string) {
  const img = await decodeImage(bytes, name);
  const m = new Uint8Array(img.width * img.height);
  for (let i = 0; i < m.length; i++) m[i] = img.data[i * 4] >= 128 ? 1 : 0;
  return { width: img.width, height: img.height, mask: m };
}
