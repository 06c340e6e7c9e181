/** Helpers for plugin tests: tiny images drawn as text, and fixtures read from disk. */
import type { RasterImage } from '../image.ts';
import { seededRandom } from '../random.ts';

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

export { seededRandom } from '../random.ts';

export type Rgb = [number, number, number];

/** An axis-aligned ellipse: centre and semi-axes in pixels. */
export interface Ellipse {
  cx: number;
  cy: number;
  rx: number;
  ry: number;
}

/** One fruit of a synthetic scene: an ellipse of peel colour, shaded. */
export interface SceneFruit extends Ellipse {
  peel: Rgb;
  /** brightness factor at the normalised offsets u = (x - cx) / rx, v = (y - cy) / ry of pixel (x, y) */
  shade: (u: number, v: number, x: number, y: number) => number;
}

export interface FruitSceneSpec {
  width: number;
  height: number;
  background: Rgb;
  /** later fruits are drawn over earlier ones */
  fruits: SceneFruit[];
  /** seed of the noise (seededRandom) */
  seed: number;
  /** uniform noise of this peak-to-peak amplitude added to every pixel (6 unless given) */
  noise?: number;
  /** one noise value for the three channels of a pixel (default), or one per channel */
  noisePer?: 'pixel' | 'channel';
  /** brightness factor of the background at (x, y), e.g. a cast shadow; 1 unless given */
  backgroundShade?: (x: number, y: number) => number;
  /** last word on a fruit pixel's colour (lesions, blush, highlights): gets the shaded peel, returns the colour */
  paint?: (rgb: number[], x: number, y: number, fruit: SceneFruit) => number[];
  /** alpha of the background (fruit is opaque); 255 unless given */
  backgroundAlpha?: number;
}

/**
 * A synthetic fruit photo for tests: shaded elliptic fruits on a plain background with seeded noise.
 * Returns the image, the fruit labels (1..fruits.length, the last fruit drawn wins), the union
 * mask of the fruits and each label's pixel count (areas[0] = background).
 */
export function fruitScene(spec: FruitSceneSpec) {
  const { width, height, background, fruits } = spec;
  const amplitude = spec.noise ?? 6;
  const perChannel = spec.noisePer === 'channel';
  const backgroundAlpha = spec.backgroundAlpha ?? 255;
  const rnd = seededRandom(spec.seed);
  const data = new Uint8ClampedArray(width * height * 4);
  const labels = new Int32Array(width * height);
  const mask = new Uint8Array(width * height);
  const areas = new Array<number>(fruits.length + 1).fill(0);
  for (let y = 0; y < height; y++)
    for (let x = 0; x < width; x++) {
      const i = y * width + x;
      let rgb: number[] | null = null;
      for (let f = 0; f < fruits.length; f++) {
        const e = fruits[f];
        const u = (x - e.cx) / e.rx;
        const v = (y - e.cy) / e.ry;
        if (u * u + v * v > 1) continue;
        labels[i] = f + 1;
        const k = e.shade(u, v, x, y);
        rgb = [e.peel[0] * k, e.peel[1] * k, e.peel[2] * k];
        if (spec.paint) rgb = spec.paint(rgb, x, y, e);
      }
      areas[labels[i]]++;
      let alpha = 255;
      if (rgb) mask[i] = 1;
      else {
        const k = spec.backgroundShade ? spec.backgroundShade(x, y) : 1;
        rgb = [background[0] * k, background[1] * k, background[2] * k];
        alpha = backgroundAlpha;
      }
      if (perChannel) for (let c = 0; c < 3; c++) data[i * 4 + c] = rgb[c] + (rnd() - 0.5) * amplitude;
      else {
        const n = (rnd() - 0.5) * amplitude;
        for (let c = 0; c < 3; c++) data[i * 4 + c] = rgb[c] + n;
      }
      data[i * 4 + 3] = alpha;
    }
  const image: RasterImage = { width, height, data };
  return { image, labels, mask, areas };
}

/**
 * Two shaded mangoes side by side on a grey table (480x240), the left one with a dark brown bruise
 * of radius 26 px at (100, 110), the right one clean: a photo with one row per fruit to tell apart.
 */
export function bruisedPairScene(seed = 3) {
  const shade = (u: number, v: number) => 1 - 0.15 * (u * u + v * v);
  return fruitScene({
    width: 480,
    height: 240,
    background: [200, 200, 205],
    seed,
    fruits: [
      { cx: 120, cy: 120, rx: 90, ry: 70, peel: [235, 170, 40], shade },
      { cx: 350, cy: 120, rx: 85, ry: 68, peel: [225, 180, 50], shade },
    ],
    paint: (rgb, x, y) => ((x - 100) ** 2 + (y - 110) ** 2 < 26 ** 2 ? [95, 60, 25] : rgb),
  });
}

/**
 * Paints a coin-like disc of diameter `d` px centred at (cx, cy): a brass face with a darker raised
 * rim, an embossed ring and noise, its edge anti-aliased by 4x4 supersampling (as a camera blurs
 * it). Returns the disc's exact area in pixels (pi d^2 / 4).
 */
export function pasteCoin(image: RasterImage, cx: number, cy: number, d: number, seed = 5) {
  const rnd = seededRandom(seed);
  const r = d / 2;
  const { width, data } = image;
  for (let y = Math.floor(cy - r - 2); y <= Math.ceil(cy + r + 2); y++)
    for (let x = Math.floor(cx - r - 2); x <= Math.ceil(cx + r + 2); x++) {
      let cover = 0;
      for (let sy = 0; sy < 4; sy++)
        for (let sx = 0; sx < 4; sx++) {
          if (Math.hypot(x + (sx + 0.5) / 4 - 0.5 - cx, y + (sy + 0.5) / 4 - 0.5 - cy) <= r) cover++;
        }
      if (!cover) continue;
      const a = cover / 16;
      const rho = Math.hypot(x - cx, y - cy) / r;
      const k = rho > 0.9 ? 0.8 : rho > 0.55 && rho < 0.6 ? 0.7 : 1 - 0.1 * rho;
      const coin = [190 * k, 160 * k, 90 * k].map((v) => v + (rnd() - 0.5) * 8);
      const i = (y * width + x) * 4;
      for (let c = 0; c < 3; c++) data[i + c] = a * coin[c] + (1 - a) * data[i + c];
    }
  return (Math.PI * d * d) / 4;
}

/**
 * Two mangoes (ellipses of known pixel area: `areas[1]`, `areas[2]`) and a coin-like 25 mm disc at
 * (1450, 760) of the 40 px/cm layout, drawn at `pxPerCm` on a grey table; no bruise.
 */
export function sceneWithDisc(pxPerCm: number, seed: number) {
  const s = pxPerCm / 40; // the layout was drawn at 40 px/cm (1600 x 900)
  const shade = (u: number, v: number) => 1 - 0.15 * (u * u + v * v);
  const scene = fruitScene({
    width: Math.round(1600 * s),
    height: Math.round(900 * s),
    background: [200, 200, 205],
    seed,
    fruits: [
      { cx: 450 * s, cy: 450 * s, rx: 330 * s, ry: 230 * s, peel: [235, 170, 40], shade },
      { cx: 1100 * s, cy: 430 * s, rx: 300 * s, ry: 210 * s, peel: [160, 180, 60], shade },
    ],
  });
  pasteCoin(scene.image, 1450 * s, 760 * s, 2.5 * pxPerCm, seed);
  return scene;
}

export { pngHeader } from './png-header.ts';

/**
 * One mango (320 x 240) with a dark round lesion of radius `r` px (0: none): its bruise % grows with
 * r, so a set of them gives photos with known, different figures (the plots' tests, issue 27).
 */
export function lesionScene(r: number, seed = 1) {
  return fruitScene({
    width: 320,
    height: 240,
    background: [200, 200, 205],
    seed,
    fruits: [{ cx: 160, cy: 120, rx: 110, ry: 85, peel: [235, 170, 40], shade: (u, v) => 1 - 0.15 * (u * u + v * v) }],
    paint: (rgb, x, y) => ((x - 140) ** 2 + (y - 110) ** 2 < r * r ? [95, 60, 25] : rgb),
  });
}

export * from './colour-card.ts';

/**
 * A lab's own grade rules (not a preset) for tests, on bruise % (no scale needed): Premium up to 2 %,
 * Standard up to 8 %, over that the reject grade Juice.
 */
export const LAB_GRADE_RULES = {
  schema: 'mango-bruise-tracker/grades/1',
  id: 'lab-strict',
  name: 'Lab strict',
  measure: 'bruise_percent',
  grades: [
    { id: 'Premium', accepted: true, max: 2 },
    { id: 'Standard', accepted: true, max: 8 },
  ],
  reject: 'Juice',
} as const;
