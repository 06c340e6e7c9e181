/** Helpers for plugin tests: tiny images drawn as text, and fixtures read from disk. */
import type { RasterImage } from '../image.ts';

export type Rgba = [number, number, number, number];

/**
 * Builds an image from rows of characters, one character a pixel, each mapped by `palette`.
 * Example: imageFromText(['..#', '.##'], { '.': [0,0,0,0], '#': [255,0,0,255] }).
 */
export function imageFromText(rows: string[], palette: Record<string, Rgba>): RasterImage {
  const height = rows.length;
  const width = rows[0]?.length ?? 0;
  if (height === 0 || width === 0) throw new RangeError('empty picture');
  const data = new Uint8ClampedArray(width * height * 4);
  rows.forEach((row, y) => {
    if (row.length !== width) throw new RangeError(`row ${y} has ${row.length} characters, expected ${width}`);
    for (let x = 0; x < width; x++) {
      const c = palette[row[x]];
      if (!c) throw new RangeError(`no colour for '${row[x]}' at ${x},${y}`);
      data.set(c, (y * width + x) * 4);
    }
  });
  return { width, height, data };
}

/** A binary mask from rows of characters: '#' (or any of `on`) is 1. */
export function maskFromText(rows: string[], on = '#'): { width: number; height: number; mask: Uint8Array } {
  const height = rows.length;
  const width = rows[0].length;
  const mask = new Uint8Array(width * height);
  rows.forEach((row, y) => {
    for (let x = 0; x < width; x++) mask[y * width + x] = on.includes(row[x]) ? 1 : 0;
  });
  return { width, height, mask };
}

/** Deterministic pseudo-random numbers (mulberry32) for reproducible synthetic images. */
export function seededRandom(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}
