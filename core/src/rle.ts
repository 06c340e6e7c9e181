/**
 * COCO run-length encoding of 0/1 masks (row-major, width x height): column-major runs starting
 * with background, and the compressed string form of pycocotools' maskApi.c (rleToString /
 * rleFrString). No maintained npm package decodes it, so it is written out here from the reference
 * implementation. Core keeps it because the server's stored truth (issue 28) and the plugins'
 * annotation formats both use it. Browser-safe.
 */
import { MangoError } from './errors.ts';

/** COCO RLE: `counts` alternate 0-runs and 1-runs over the mask read column by column. */
export interface CocoRle {
  size: [height: number, width: number];
  counts: string | number[];
}

/** Column-major run lengths of a row-major mask, the first run counting zeros (maybe 0). */
export function maskToCounts(mask: ArrayLike<number>, width: number, height: number): number[] {
  const counts: number[] = [];
  let current = 0;
  let run = 0;
  for (let x = 0; x < width; x++)
    for (let y = 0; y < height; y++) {
      const v = mask[y * width + x] ? 1 : 0;
      if (v !== current) {
        counts.push(run);
        run = 0;
        current = v;
      }
      run++;
    }
  counts.push(run);
  return counts;
}

/** pycocotools' rleToString: LEB128-like 5-bit groups, each count after the second as a difference. */
export function countsToString(counts: readonly number[]): string {
  let s = '';
  for (let i = 0; i < counts.length; i++) {
    let x = counts[i];
    if (i > 2) x -= counts[i - 2];
    let more = true;
    while (more) {
      let c = x & 0x1f;
      x >>= 5;
      more = c & 0x10 ? x !== -1 : x !== 0;
      if (more) c |= 0x20;
      s += String.fromCharCode(c + 48);
    }
  }
  return s;
}

/** pycocotools' rleFrString. */
export function stringToCounts(s: string): number[] {
  const counts: number[] = [];
  let p = 0;
  while (p < s.length) {
    let x = 0;
    let k = 0;
    let more = true;
    while (more) {
      if (p >= s.length) throw new MangoError('INVALID_INPUT', 'truncated COCO RLE string');
      const c = s.charCodeAt(p) - 48;
      x |= (c & 0x1f) << (5 * k);
      more = (c & 0x20) !== 0;
      p++;
      k++;
      if (!more && c & 0x10) x |= -1 << (5 * k);
    }
    if (counts.length > 2) x += counts[counts.length - 2];
    counts.push(x);
  }
  return counts;
}

export function encodeCocoRle(mask: ArrayLike<number>, width: number, height: number): CocoRle {
  return { size: [height, width], counts: countsToString(maskToCounts(mask, width, height)) };
}

/** A COCO RLE (compressed string or plain counts) as a row-major 0/1 mask of its size. */
export function decodeCocoRle(rle: CocoRle): { width: number; height: number; mask: Uint8Array } {
  const [height, width] = rle.size;
  const counts = typeof rle.counts === 'string' ? stringToCounts(rle.counts) : rle.counts;
  const mask = new Uint8Array(width * height);
  let k = 0;
  let v = 0;
  for (const run of counts) {
    if (k + run > width * height) throw new MangoError('INVALID_INPUT', 'COCO RLE longer than its size');
    if (v) for (let j = k; j < k + run; j++) mask[(j % height) * width + Math.floor(j / height)] = 1;
    k += run;
    v ^= 1;
  }
  if (k !== width * height) throw new MangoError('INVALID_INPUT', `COCO RLE covers ${k} of ${width * height} pixels`);
  return { width, height, mask };
}
