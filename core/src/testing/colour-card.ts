/**
 * Test photos with a ColorChecker: the card drawn from its reference values (converted to sRGB)
 * through a homography (size, angle, perspective), with blur, a glare spot, a shadow across part of it
 * and noise; and light casts (colour temperature, exposure) applied to a whole photo in linear light.
 */
import { blackbodyWhite, labD50ToLinearRgb, linearToSrgb, srgbToLinear } from '../color.ts';

/** The blackbody white lives with the colour conversions (the colour-cast check reads casts on its locus). */
export { blackbodyWhite };
import type { RasterImage } from '../image.ts';
import { invert3, project, type Homography } from '../colour-card/geometry.ts';
import { CARD_COLUMNS, CARD_LAB_D50, CARD_ROWS, CHIP_FRACTION, type ColourCardKind } from '../colour-card/reference.ts';
import { CARD_MARGIN, cardOutline } from '../colour-card/detect.ts';
import { seededRandom } from '../random.ts';

export interface CardPose {
  /** centre of the patch grid, pixels */
  x: number;
  y: number;
  /** patch pitch at the centre, pixels */
  pitchPx: number;
  /** rotation, degrees (180: upside down) */
  angleDeg: number;
  /** perspective (keystone) per pitch along the card's columns and rows, e.g. 0.04 */
  tiltX?: number;
  tiltY?: number;
}

/** The homography card (column, row) -> pixels of a pose; its local scale at the centre is pitchPx. */
export function poseHomography(p: CardPose): Homography {
  const a = (p.angleDeg * Math.PI) / 180;
  const c = Math.cos(a) * p.pitchPx;
  const s = Math.sin(a) * p.pitchPx;
  const cu = (CARD_COLUMNS - 1) / 2;
  const cv = (CARD_ROWS - 1) / 2;
  const px = p.tiltX ?? 0;
  const py = p.tiltY ?? 0;
  // (u, v) centred, then perspective [1 0 0; 0 1 0; px py 1], then rotation and scale, then translation.
  const M = [c, -s, p.x, s, c, p.y, 0, 0, 1];
  const P = [1, 0, -cu, 0, 1, -cv, px, py, 1 - px * cu - py * cv];
  const r = new Array<number>(9).fill(0);
  for (let i = 0; i < 3; i++)
    for (let j = 0; j < 3; j++) for (let k = 0; k < 3; k++) r[i * 3 + j] += M[i * 3 + k] * P[k * 3 + j];
  return r.map((v) => v / r[8]);
}

export interface CardRendering {
  kind?: ColourCardKind;
  /** Gaussian-like blur radius (two box passes), pixels */
  blur?: number;
  /** a glare spot: centre in card coordinates, radius in pitches, strength 0..1 added to linear light */
  glare?: { u: number; v: number; radius: number; strength: number };
  /** a shadow over the card beyond a line: points with u + slope * v > at get `depth` less light */
  shadow?: { at: number; slope: number; depth: number };
  /** standard deviation of Gaussian noise added to the whole photo, 8-bit units */
  noise?: number;
  seed?: number;
}

/**
 * A card as a hand-held photo shows it (slight blur, sensor noise and a glare spot), posed on a
 * photo: the scene the plugin's and the CLI's card tests both score.
 */
export const renderPhotographedCard = (photo: RasterImage, pose: CardPose): RasterImage =>
  renderColourCard(photo, poseHomography(pose), {
    blur: 1,
    noise: 2,
    glare: { u: 3.2, v: 2.1, radius: 0.3, strength: 0.4 },
  });

/** A copy of `photo` with a ColorChecker drawn at `h` (card coordinates -> pixels). */
export function renderColourCard(photo: RasterImage, h: Homography, o: CardRendering = {}): RasterImage {
  const kind = o.kind ?? 'classic';
  const inv = invert3(h)!;
  const chip = CHIP_FRACTION[kind] / 2;
  const colours = CARD_LAB_D50[kind].map(([L, a, b]) =>
    (labD50ToLinearRgb(L, a, b, [0, 0, 0]) as number[]).map((v) => Math.min(1, Math.max(0, v))),
  );
  const frame = [0.012, 0.012, 0.013];
  const { width: w, height: hh } = photo;
  const data = new Uint8ClampedArray(photo.data);
  const outline = cardOutline(h, 0.6);
  const x0 = Math.max(0, Math.floor(Math.min(...outline.map((p) => p.x))));
  const x1 = Math.min(w - 1, Math.ceil(Math.max(...outline.map((p) => p.x))));
  const y0 = Math.max(0, Math.floor(Math.min(...outline.map((p) => p.y))));
  const y1 = Math.min(hh - 1, Math.ceil(Math.max(...outline.map((p) => p.y))));
  const bw = x1 - x0 + 1;
  const bh = y1 - y0 + 1;
  const lin = [0, 1, 2].map(() => new Float32Array(bw * bh));
  const sub = 3;
  for (let y = y0; y <= y1; y++) {
    for (let x = x0; x <= x1; x++) {
      const o4 = (y * w + x) * 4;
      const acc = [0, 0, 0];
      for (let sy = 0; sy < sub; sy++) {
        for (let sx = 0; sx < sub; sx++) {
          const q = project(inv, x + (sx + 0.5) / sub, y + (sy + 0.5) / sub);
          const u = q.x;
          const v = q.y;
          let col: number[] | null = null;
          const inCard =
            u >= -CARD_MARGIN.columns &&
            u <= CARD_COLUMNS - 1 + CARD_MARGIN.columns &&
            v >= -CARD_MARGIN.rows &&
            v <= CARD_ROWS - 1 + CARD_MARGIN.rows;
          if (inCard) {
            const c = Math.round(u);
            const r = Math.round(v);
            const onChip =
              c >= 0 &&
              c < CARD_COLUMNS &&
              r >= 0 &&
              r < CARD_ROWS &&
              Math.abs(u - c) <= chip &&
              Math.abs(v - r) <= chip;
            col = onChip ? colours[r * CARD_COLUMNS + c] : frame;
            let light = 1;
            if (o.shadow && u + o.shadow.slope * v > o.shadow.at) light -= o.shadow.depth;
            col = col.map((k) => k * light);
            if (o.glare) {
              const d2 = ((u - o.glare.u) ** 2 + (v - o.glare.v) ** 2) / (o.glare.radius * o.glare.radius);
              const g = o.glare.strength * Math.exp(-d2 * 2);
              col = col.map((k) => k + g);
            }
          }
          for (let c = 0; c < 3; c++) acc[c] += col ? col[c] : srgbToLinear(photo.data[o4 + c] / 255);
        }
      }
      for (let c = 0; c < 3; c++) lin[c][(y - y0) * bw + (x - x0)] = acc[c] / (sub * sub);
    }
  }
  if (o.blur && o.blur > 0) for (const p of lin) boxBlur2(p, bw, bh, Math.round(o.blur));
  for (let y = y0; y <= y1; y++)
    for (let x = x0; x <= x1; x++)
      for (let c = 0; c < 3; c++)
        data[(y * w + x) * 4 + c] = Math.round(
          255 * linearToSrgb(Math.min(1, Math.max(0, lin[c][(y - y0) * bw + (x - x0)]))),
        );
  const out: RasterImage = { width: w, height: hh, data };
  return o.noise ? addNoise(out, o.noise, o.seed ?? 1) : out;
}

/** Two passes of a box blur of radius r (close to a Gaussian of sigma ~ 0.8 r), in place. */
function boxBlur2(p: Float32Array, w: number, h: number, r: number) {
  const tmp = new Float32Array(p.length);
  for (let pass = 0; pass < 2; pass++) {
    for (let y = 0; y < h; y++)
      for (let x = 0; x < w; x++) {
        let s = 0;
        let n = 0;
        for (let k = Math.max(0, x - r); k <= Math.min(w - 1, x + r); k++, n++) s += p[y * w + k];
        tmp[y * w + x] = s / n;
      }
    for (let y = 0; y < h; y++)
      for (let x = 0; x < w; x++) {
        let s = 0;
        let n = 0;
        for (let k = Math.max(0, y - r); k <= Math.min(h - 1, y + r); k++, n++) s += tmp[k * w + x];
        p[y * w + x] = s / n;
      }
  }
}

/** Gaussian noise of standard deviation `sd` (8-bit units) on R, G, B. */
export function addNoise(image: RasterImage, sd: number, seed = 1): RasterImage {
  const rand = seededRandom(seed);
  const data = new Uint8ClampedArray(image.data);
  for (let i = 0; i < data.length; i += 4) {
    for (let c = 0; c < 3; c++) {
      const g = Math.sqrt(-2 * Math.log(1 - rand())) * Math.cos(2 * Math.PI * rand());
      data[i + c] = Math.round(data[i + c] + sd * g);
    }
  }
  return { ...image, data };
}

/**
 * The photo as a camera balanced for daylight (6504 K) would record it under a blackbody light of
 * `kelvin`, at `ev` stops of exposure: per-channel gains in linear light, clipped at white.
 */
export function applyLightCast(image: RasterImage, kelvin: number, ev = 0): RasterImage {
  const ref = blackbodyWhite(6504);
  const cast = blackbodyWhite(kelvin);
  const gains = cast.map((v, c) => (v / ref[c]) * 2 ** ev);
  const table = gains.map((g) => {
    const t = new Uint8Array(256);
    for (let i = 0; i < 256; i++) t[i] = Math.round(255 * linearToSrgb(Math.min(1, srgbToLinear(i / 255) * g)));
    return t;
  });
  const data = new Uint8ClampedArray(image.data);
  for (let i = 0; i < data.length; i += 4) for (let c = 0; c < 3; c++) data[i + c] = table[c][data[i + c]];
  return { ...image, data };
}
