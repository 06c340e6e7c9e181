/** Small mask helpers the feature algorithms share (core's boundingBox re-exported for one import). */
export { boundingBox } from '@mango/core';

/** Binary erosion with the 4-neighbour cross, outside the image counting as 0 (border_value=0). */
export function erodeCross(mask: Uint8Array, width: number, height: number): Uint8Array {
  const out = new Uint8Array(mask.length);
  for (let y = 1; y < height - 1; y++) {
    const row = y * width;
    for (let i = row + 1, end = row + width - 1; i < end; i++)
      if (mask[i] && mask[i - 1] && mask[i + 1] && mask[i - width] && mask[i + width]) out[i] = 1;
  }
  return out;
}
