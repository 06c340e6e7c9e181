/**
 * Classical bruise detection: inside each fruit, bruised tissue is peel that is clearly darker than
 * that fruit's own healthy peel around it and has lost chroma (olive / brown rather than the
 * green-yellow-red of sound peel). See README.md for the method and the choice of every default.
 *
 * Per fruit (classical/): crop.ts cuts the fruit out in CIELAB; peel-background.ts estimates its
 * healthy peel; evidence.ts turns the darkening into lesions, which natural-peel.ts filters
 * (shading, unripe green, pigment); dark-spots.ts adds the spots too small for that scale.
 */
import type { RasterImage } from '@mango/core';
import { labelBoxes } from '@mango/core';
import { cropFruit } from './classical/crop.ts';
import { darkSpots } from './classical/dark-spots.ts';
import { bruiseEvidence, DEFAULT_CLASSICAL, lesionsFromEvidence, type ClassicalParams } from './classical/evidence.ts';
import { peelBackground } from './classical/peel-background.ts';

export { DEFAULT_CLASSICAL, type ClassicalParams } from './classical/evidence.ts';
export type { FruitCrop } from './classical/crop.ts';

/** Fruits with fewer pixels than this are skipped: too small to hold a peel background and a lesion. */
const MIN_FRUIT_PIXELS = 16;

/**
 * A larger fruit is processed on blocks of f x f working pixels (the smallest integer f that brings
 * it to at most this many): every spatial constant is a fraction of the fruit's diameter, so the
 * rules see the same fruit, and the cost of every pass stays bounded when the fruit fills the
 * frame (a close-up covering a 640 x 480 working copy, 245 000 px, runs on 61 000). 100 000 px
 * (a diameter of about 360 px) is above the fruit the rules were tuned on (the composites' fruit,
 * about 250 px across at the working size, is processed pixel for pixel); see README "Speed".
 */
export const MAX_WORKING_FRUIT_PIXELS = 100_000;

/** The block size a fruit of `area` working pixels is processed at (1 up to MAX_WORKING_FRUIT_PIXELS). */
export const fruitBlockFactor = (area: number) => Math.max(1, Math.ceil(Math.sqrt(area / MAX_WORKING_FRUIT_PIXELS)));

/**
 * The bruise mask of an image (same size as `image`) given its fruit labels (0 = background,
 * 1..count = fruit). Each fruit is processed in its bounding box with its own peel statistics.
 */
export function classicalBruiseMask(
  image: RasterImage,
  fruitLabels: Int32Array,
  fruitCount: number,
  params: ClassicalParams = DEFAULT_CLASSICAL,
): Uint8Array {
  const { width: W, height: H } = image;
  const out = new Uint8Array(W * H);
  const boxes = labelBoxes(fruitLabels, W, H, fruitCount);
  for (let k = 1; k <= fruitCount; k++) {
    const bx = boxes[k];
    if (!bx || bx.area < MIN_FRUIT_PIXELS) continue;
    const crop = cropFruit(image, fruitLabels, k, bx, fruitBlockFactor(bx.area));
    const { width: w, height: h } = crop;
    const bg = peelBackground(crop);
    const lesions = lesionsFromEvidence(crop, bg, bruiseEvidence(crop, bg), params);
    const spots = darkSpots(crop, bg.dist, params.darkening);
    for (let i = 0; i < w * h; i++) lesions[i] |= spots[i];
    // Back to the working copy: each crop pixel marks the fruit's pixels of its block.
    const f = crop.factor;
    for (let Y = bx.y0; Y <= bx.y1; Y++) {
      const row = Math.floor((Y - bx.y0) / f) * w;
      for (let x = 0; x < w; x++) {
        if (!lesions[row + x]) continue;
        const X0 = bx.x0 + x * f;
        for (let X = X0, i = Y * W + X0, X1 = Math.min(bx.x1, X0 + f - 1); X <= X1; X++, i++)
          if (fruitLabels[i] === k) out[i] = 1;
      }
    }
  }
  return out;
}
