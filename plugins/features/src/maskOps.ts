/** Small mask helpers the feature algorithms share (core's boundingBox re-exported for one import). */
export { boundingBox } from '@mango/core';

/** Binary erosion with the 4-neighbour cross, outside the image counting as 0 (border_value=0). */
export function erodeCross(mask: Uint8Array, width: number, height: number): Uint8Array {
  const out = new Uint8Array(mask.length);
  for (let y = 0; y < height; y++)
    for (let x = 0; x < width; x++) {
      const i = y * width + x;
      out[i] =
        mask[i] &&
        x > 0 &&
        mask[i - 1] &&
        x < width - 1 &&
        mask[i + 1] &&
        y > 0 &&
        mask[i - width] &&
        y < height - 1 &&
        mask[i + width]
          ? 1
          : 0;
    }
  return out;
}
