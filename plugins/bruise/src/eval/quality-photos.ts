/**
 * Photos made to trip each photo-quality check (plugins/bruise/src/quality.ts) from a real photo,
 * Node only (sharp): the tests and the quality bench share them. Each returns JPEG bytes.
 */
import sharp, { type Sharp } from 'sharp';
import { boundingBox } from '@mango/core';
import { decodeImage } from '@mango/core/node';
import { bruiseMasks } from '../analyse.ts';
import type { QualityFlagId } from '../quality.ts';

const jpeg = async (s: Sharp, quality = 92) => new Uint8Array(await s.jpeg({ quality }).toBuffer());

/** The made photo for each flag: what was done to the real photo, and how. */
export const TRIP_PHOTOS: Record<QualityFlagId, { what: string; make: (photo: Uint8Array) => Promise<Uint8Array> }> = {
  blur: {
    what: 'Gaussian blur, sigma 2 % of the long side',
    make: async (p) => {
      const { width = 0, height = 0 } = await sharp(p).metadata();
      return jpeg(sharp(p).blur(Math.max(0.3, 0.02 * Math.max(width, height))));
    },
  },
  overexposed: { what: 'x2.5 brighter (+1.3 EV)', make: (p) => jpeg(sharp(p).linear(2.5, 0)) },
  underexposed: {
    what: 'x0.15 (-2.7 EV) with the blacks crushed (-15 levels)',
    make: (p) => jpeg(sharp(p).linear(0.15, -15)),
  },
  'cut-by-edge': {
    what: 'cropped through the middle of the fruit (the frame ends at its centre line)',
    make: async (p) => {
      // The fruit as the classical method finds it: the frame's right edge goes through its centre.
      const masks = await bruiseMasks(await decodeImage(p), { method: 'classical' });
      const box = boundingBox(masks.fruit, masks.width, masks.height);
      if (!box) throw new Error('no fruit in the photo to crop through');
      const right = Math.round(box.x + box.width / 2);
      return jpeg(sharp(p).rotate().extract({ left: 0, top: 0, width: right, height: masks.height }));
    },
  },
  'fruit-too-small': {
    what: 'downscaled to a long side of 56 px',
    make: (p) => jpeg(sharp(p).resize(56, 56, { fit: 'inside' })),
  },
  'jpeg-compression': { what: 'saved at JPEG quality 10', make: (p) => jpeg(sharp(p), 10) },
  'colour-cast': {
    what: 'a tungsten-like cast: green x0.82, blue x0.6',
    make: (p) =>
      jpeg(
        sharp(p).recomb([
          [1, 0, 0],
          [0, 0.82, 0],
          [0, 0, 0.6],
        ]),
      ),
  },
};
