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
    const crop = cropFruit(image, fruitLabels, k, bx);
    const { width: w, height: h } = crop;
    const bg = peelBackground(crop);
    const lesions = lesionsFromEvidence(crop, bg, bruiseEvidence(crop, bg), params);
    const spots = darkSpots(crop, bg.dist, params.darkening);
    for (let i = 0; i < w * h; i++) lesions[i] |= spots[i];
    for (let y = 0; y < h; y++) {
      const dst = (y + bx.y0) * W + bx.x0;
      for (let x = 0; x < w; x++) if (lesions[y * w + x]) out[dst + x] = 1;
    }
  }
  return out;
}
