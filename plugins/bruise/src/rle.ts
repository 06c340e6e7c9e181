/**
 * Mask encodings of the annotation tools, as pure functions over 0/1 masks (row-major, width x
 * height): COCO run-length encoding (in core/src/rle.ts), polygon filling (pixel centres inside, even-odd, with the
 * point-in-polygon package) and Label Studio's brush RLE (label-studio-converter's brush.py). No
 * maintained npm package decodes COCO or Label Studio RLE, so the formats are written out here from
 * their reference implementations; the tests hold them to hand-made files and a round trip.
 */
import pointInPolygon from 'point-in-polygon';

// COCO RLE lives in core (the server's stored truth uses it too); re-exported for the annotation readers.
export { countsToString, decodeCocoRle, encodeCocoRle, maskToCounts, stringToCounts, type CocoRle } from '@mango/core';

/** Sets (to 1) the pixels of `mask` whose centres lie inside the polygon [[x, y], ...] (pixel units). */
export function fillPolygon(mask: Uint8Array, width: number, height: number, points: [number, number][]) {
  if (points.length < 3) return;
  let x0 = Infinity;
  let y0 = Infinity;
  let x1 = -Infinity;
  let y1 = -Infinity;
  for (const [x, y] of points) {
    x0 = Math.min(x0, x);
    y0 = Math.min(y0, y);
    x1 = Math.max(x1, x);
    y1 = Math.max(y1, y);
  }
  const xs = Math.max(0, Math.floor(x0));
  const xe = Math.min(width - 1, Math.ceil(x1));
  for (let y = Math.max(0, Math.floor(y0)); y <= Math.min(height - 1, Math.ceil(y1)); y++)
    for (let x = xs; x <= xe; x++) {
      if (pointInPolygon([x + 0.5, y + 0.5], points)) mask[y * width + x] = 1;
    }
}

/** COCO's flat polygon [x1, y1, x2, y2, ...] as points. */
export const flatToPoints = (flat: readonly number[]): [number, number][] =>
  Array.from({ length: Math.floor(flat.length / 2) }, (_, i) => [flat[2 * i], flat[2 * i + 1]]);

/**
 * Label Studio's brush RLE (label-studio-converter brush.py `decode_rle`): a bit stream of a 32-bit
 * value count, a word size, four run-length field sizes, then runs (repeated or literal words) of
 * the RGBA image; the mask is the alpha channel > 0.
 */
export function decodeLabelStudioRle(rle: readonly number[], width: number, height: number): Uint8Array {
  let bit = 0;
  const read = (n: number) => {
    let v = 0;
    for (let i = 0; i < n; i++, bit++) {
      const byte = rle[bit >> 3];
      if (byte === undefined) throw new Error('truncated Label Studio brush RLE');
      v = v * 2 + ((byte >> (7 - (bit & 7))) & 1);
    }
    return v;
  };
  const num = read(32);
  if (num !== width * height * 4) throw new Error(`brush RLE holds ${num} values, not ${width}x${height}x4`);
  const wordSize = read(5) + 1;
  const sizes = [0, 1, 2, 3].map(() => read(4) + 1);
  const mask = new Uint8Array(width * height);
  const put = (i: number, v: number) => {
    if ((i & 3) === 3 && v > 0) mask[i >> 2] = 1;
  };
  for (let i = 0; i < num;) {
    const repeated = read(1);
    const end = Math.min(num, i + 1 + read(sizes[read(2)]));
    if (repeated) {
      const v = read(wordSize);
      for (; i < end; i++) put(i, v);
    } else for (; i < end; i++) put(i, read(wordSize));
  }
  return mask;
}

/**
 * A brush RLE of a mask (alpha 255 where set, RGB 0): 8-bit words, run fields of 16 bits, every run
 * repeated. Label Studio decodes it with the function above's reference; used by the tests to make
 * hand-made exports.
 */
export function encodeLabelStudioRle(mask: ArrayLike<number>): number[] {
  const bits: number[] = [];
  const write = (v: number, n: number) => {
    for (let i = n - 1; i >= 0; i--) bits.push(Math.floor(v / 2 ** i) % 2);
  };
  const values = mask.length * 4;
  write(values, 32);
  write(7, 5); // 8-bit words
  for (let k = 0; k < 4; k++) write(15, 4); // 16-bit run fields
  const value = (i: number) => ((i & 3) === 3 && mask[i >> 2] ? 255 : 0);
  for (let i = 0; i < values;) {
    let j = i + 1;
    while (j < values && j - i < 65536 && value(j) === value(i)) j++;
    write(1, 1);
    write(0, 2);
    write(j - i - 1, 16);
    write(value(i), 8);
    i = j;
  }
  const bytes: number[] = [];
  for (let i = 0; i < bits.length; i += 8) {
    let b = 0;
    for (let k = 0; k < 8; k++) b = b * 2 + (bits[i + k] ?? 0);
    bytes.push(b);
  }
  return bytes;
}
