/**
 * Generates synthetic mango photos, deterministically (same seed, same bytes): an elliptical fruit
 * with a yellow-green gradient and shading, lenticel dots, one or two darker brown bruise blobs, a
 * plain background of one of a few colours and a soft shadow. The painted bruise and fruit masks
 * are counted, so truth.csv says how much of each fruit is bruised.
 *
 *   node --import tsx examples/sample-photos/generate.ts [--count 6] [--out examples/sample-photos/out]
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';
import { createImage, type RasterImage } from '@mango/core';
import { toCsv } from '@mango/core/csv';
import { seededRandom } from '@mango/core/testing';
import { encodeImage } from '@mango/core/node';

export const DEFAULT_OUT = resolve(import.meta.dirname, 'out');

type Rgb = [number, number, number];

const BACKGROUNDS: Rgb[] = [
  [236, 236, 232], // white table
  [196, 214, 230], // pale blue cloth
  [226, 211, 186], // beige paper
  [72, 78, 88], // dark slate
];

export interface SamplePhoto {
  name: string;
  image: RasterImage;
  fruitPixels: number;
  bruisePixels: number;
  bruisePercent: number;
}

const clamp01 = (v: number) => (v < 0 ? 0 : v > 1 ? 1 : v);
const smooth = (edge0: number, edge1: number, x: number) => {
  const t = clamp01((x - edge0) / (edge1 - edge0));
  return t * t * (3 - 2 * t);
};
const mix = (a: number, b: number, t: number) => a + (b - a) * t;

interface Blob {
  cx: number;
  cy: number;
  r: number;
  /** radius wobble: harmonics of the outline */
  wobble: { k: number; amp: number; phase: number }[];
  depth: number;
}

/** One photo; `index` picks the seed, so photo n is always the same. */
export function generateSamplePhoto(index: number, width = 640, height = 480): SamplePhoto {
  const rand = seededRandom(0x6d616e67 + index * 7919);
  const range = (a: number, b: number) => a + (b - a) * rand();
  const bg = BACKGROUNDS[index % BACKGROUNDS.length];

  // Fruit: a rotated ellipse a bit off centre, shadow below and to the right.
  const cx = width * range(0.42, 0.58);
  const cy = height * range(0.44, 0.56);
  const rx = width * range(0.26, 0.33);
  const ry = height * range(0.27, 0.34);
  const angle = range(-0.5, 0.5);
  const cos = Math.cos(angle);
  const sin = Math.sin(angle);
  const greenEnd: Rgb = [range(110, 140), range(150, 170), range(40, 60)];
  const yellowEnd: Rgb = [range(225, 245), range(190, 210), range(50, 80)];

  const blobs: Blob[] = [];
  const blobCount = 1 + (index % 2);
  for (let b = 0; b < blobCount; b++) {
    const t = range(0, Math.PI * 2);
    const d = range(0.1, 0.5);
    blobs.push({
      cx: d * Math.cos(t),
      cy: d * Math.sin(t),
      r: range(0.16, 0.28),
      wobble: [2, 3, 5].map((k) => ({ k, amp: range(0.03, 0.12), phase: range(0, Math.PI * 2) })),
      depth: range(0.75, 0.95),
    });
  }

  const dots = Array.from({ length: 160 }, () => {
    const t = range(0, Math.PI * 2);
    const d = Math.sqrt(rand()) * 0.92;
    return { u: d * Math.cos(t), v: d * Math.sin(t), r: range(1, 2.2), light: rand() < 0.7 };
  });

  // Stamp the dots once into a brightness factor map rather than testing every dot at every pixel.
  const lenticel = new Float32Array(width * height).fill(1);
  for (const d of dots) {
    const px = cx + d.u * rx * cos - d.v * ry * sin;
    const py = cy + d.u * rx * sin + d.v * ry * cos;
    for (let y = Math.floor(py - d.r); y <= Math.ceil(py + d.r); y++) {
      for (let x = Math.floor(px - d.r); x <= Math.ceil(px + d.r); x++) {
        if (x < 0 || y < 0 || x >= width || y >= height) continue;
        const ddx = x + 0.5 - px;
        const ddy = y + 0.5 - py;
        if (ddx * ddx + ddy * ddy < d.r * d.r) lenticel[y * width + x] = d.light ? 1.18 : 0.8;
      }
    }
  }

  const image = createImage(width, height);
  const data = image.data;
  let fruitPixels = 0;
  let bruisePixels = 0;
  const edge = 1.5 / Math.min(rx, ry); // about one and a half pixels of anti-aliasing

  for (let y = 0; y < height; y++) {
    for (let x = 0; x < width; x++) {
      // Background: a gentle vertical light falloff and the fruit's soft shadow.
      const light = 1.04 - 0.1 * (y / height);
      let r = bg[0] * light;
      let g = bg[1] * light;
      let b = bg[2] * light;
      const sx = (x - cx - rx * 0.12) / (rx * 1.04);
      const sy = (y - cy - ry * 0.16) / (ry * 1.0);
      const sd = Math.sqrt(sx * sx + sy * sy);
      const shadow = 0.45 * (1 - smooth(0.8, 1.25, sd));
      r *= 1 - shadow;
      g *= 1 - shadow;
      b *= 1 - shadow;

      // Fruit coordinates: u, v in [-1, 1] inside the ellipse.
      const dx = x + 0.5 - cx;
      const dy = y + 0.5 - cy;
      const u = (dx * cos + dy * sin) / rx;
      const v = (-dx * sin + dy * cos) / ry;
      const rr = Math.sqrt(u * u + v * v);
      const coverage = 1 - smooth(1 - edge, 1 + edge, rr);
      if (coverage > 0) {
        // Yellow-green gradient along the long axis, shading from a light at the top left.
        const t = clamp01(0.5 + 0.6 * u + 0.15 * v);
        let fr = mix(greenEnd[0], yellowEnd[0], t);
        let fg = mix(greenEnd[1], yellowEnd[1], t);
        let fb = mix(greenEnd[2], yellowEnd[2], t);
        const nz = Math.sqrt(Math.max(0, 1 - rr * rr));
        const shade = 0.62 + 0.38 * clamp01(nz * 0.8 + (-u - v) * 0.25);
        const highlight = 0.35 * Math.pow(clamp01(1 - Math.hypot(u + 0.35, v + 0.4) / 0.35), 2);
        fr = fr * shade + 255 * highlight;
        fg = fg * shade + 255 * highlight;
        fb = fb * shade + 255 * highlight;

        // Lenticels: small dots, mostly lighter than the peel.
        const k = lenticel[y * width + x];
        fr *= k;
        fg *= k;
        fb *= k;

        // Bruises: brown, darker in the middle, feathered at the irregular outline.
        let bruise = 0;
        let relative = 0; // the strongest bruise here as a share of its own peak darkening
        for (const bl of blobs) {
          const bu = u - bl.cx;
          const bv = v - bl.cy;
          const a = Math.atan2(bv, bu);
          let radius = bl.r;
          for (const w of bl.wobble) radius *= 1 + w.amp * Math.sin(w.k * a + w.phase);
          const dist = Math.hypot(bu, bv) / radius;
          const weight = 1 - smooth(0.7, 1.15, dist);
          bruise = Math.max(bruise, bl.depth * weight);
          relative = Math.max(relative, weight);
        }
        if (bruise > 0) {
          fr = mix(fr, 92 * shade, bruise);
          fg = mix(fg, 58 * shade, bruise);
          fb = mix(fb, 30 * shade, bruise);
        }
        if (coverage >= 0.5) {
          fruitPixels++;
          // the rule of the shared ground truth: at least half of the bruise's peak darkening
          if (relative >= 0.5) bruisePixels++;
        }
        r = mix(r, fr, coverage);
        g = mix(g, fg, coverage);
        b = mix(b, fb, coverage);
      }

      // A little sensor noise, so the photo is not flat.
      const noise = (rand() - 0.5) * 6;
      const i = (y * width + x) * 4;
      data[i] = r + noise;
      data[i + 1] = g + noise;
      data[i + 2] = b + noise;
      data[i + 3] = 255;
    }
  }
  const name = `mango-${String(index + 1).padStart(2, '0')}.png`;
  return {
    name,
    image,
    fruitPixels,
    bruisePixels,
    bruisePercent: fruitPixels ? (100 * bruisePixels) / fruitPixels : 0,
  };
}

/** Writes `count` photos and truth.csv (painted fruit and bruise pixels) into `dir`. */
export async function writeSamplePhotos(dir = DEFAULT_OUT, count = 6): Promise<SamplePhoto[]> {
  mkdirSync(dir, { recursive: true });
  const photos: SamplePhoto[] = [];
  for (let i = 0; i < count; i++) {
    const photo = generateSamplePhoto(i);
    writeFileSync(join(dir, photo.name), await encodeImage(photo.image, 'png'));
    photos.push(photo);
  }
  const rows = photos.map((p) => [p.name, p.fruitPixels, p.bruisePixels, p.bruisePercent.toFixed(4)]);
  writeFileSync(join(dir, 'truth.csv'), toCsv(['filename', 'fruit_pixels', 'bruise_pixels', 'bruise_percent'], rows));
  return photos;
}

async function main() {
  const { values } = parseArgs({
    options: { count: { type: 'string', default: '6' }, out: { type: 'string', default: DEFAULT_OUT } },
  });
  const count = Number(values.count);
  if (!Number.isInteger(count) || count < 1 || count > 500) throw new Error('--count must be an integer 1..500');
  const photos = await writeSamplePhotos(resolve(values.out), count);
  for (const p of photos) console.log(`${p.name}  painted bruise ${p.bruisePercent.toFixed(2)}% of the fruit`);
  console.log(`${photos.length} photos and truth.csv in ${resolve(values.out)}`);
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  main().catch((e: unknown) => {
    console.error(e instanceof Error ? e.message : e);
    process.exit(1);
  });
}
