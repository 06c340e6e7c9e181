/**
 * Photo variants for the invariance evaluation (`plugins/bruise/bench/invariance.ts`): the same photo
 * as another camera, light or hand would have taken it. Each is a pure function of the RasterImage,
 * with its parameters stated, so a report says exactly what was varied:
 * - `rot90`, `flip-h`: a quarter turn (counter-clockwise) and a mirror image;
 * - `warm`, `cool`: a white-balance cast, the light of WARM_K / COOL_K kelvin rendered as if it were
 *   6500 K (channel gains of the black-body colour of that temperature relative to 6500 K, applied in
 *   linear light, green kept);
 * - `ev+0.5`, `ev-0.5`: exposure x 2^+-0.5 in linear light, clipped;
 * - `half`: half the resolution (area average);
 * - `noise`: Gaussian sensor noise of NOISE_SIGMA (of 255) per channel, from a fixed seed;
 * JPEG quality 40 is made by the caller's encoder (the bench uses sharp), as a camera would write it.
 */
import type { RasterImage } from '@mango/core';
import { downscaleArea } from '@mango/core';

export const WARM_K = 3500;
export const COOL_K = 9000;
export const NOISE_SIGMA = 6;

/** sRGB of a black body at `kelvin` (Tanner Helland's fit of the Planckian locus), 0..255 per channel. */
export function blackBodyRgb(kelvin: number): [number, number, number] {
  const t = kelvin / 100;
  const clamp = (v: number) => Math.min(255, Math.max(0, v));
  const r = t <= 66 ? 255 : clamp(329.698727446 * (t - 60) ** -0.1332047592);
  const g =
    t <= 66 ? clamp(99.4708025861 * Math.log(t) - 161.1195681661) : clamp(288.1221695283 * (t - 60) ** -0.0755148492);
  const b = t >= 66 ? 255 : t <= 19 ? 0 : clamp(138.5177312231 * Math.log(t - 10) - 305.0447927307);
  return [r, g, b];
}

const toLinear = (v: number) => {
  const c = v / 255;
  return c <= 0.04045 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4;
};
const toSrgb8 = (l: number) => {
  const c = Math.min(1, Math.max(0, l));
  return Math.round(255 * (c <= 0.0031308 ? 12.92 * c : 1.055 * c ** (1 / 2.4) - 0.055));
};

function mapLinear(image: RasterImage, gains: [number, number, number]): RasterImage {
  const lut = Array.from({ length: 3 }, (_, c) => {
    const t = new Uint8ClampedArray(256);
    for (let v = 0; v < 256; v++) t[v] = toSrgb8(toLinear(v) * gains[c]);
    return t;
  });
  const out = new Uint8ClampedArray(image.data.length);
  for (let i = 0; i < out.length; i += 4) {
    out[i] = lut[0][image.data[i]];
    out[i + 1] = lut[1][image.data[i + 1]];
    out[i + 2] = lut[2][image.data[i + 2]];
    out[i + 3] = image.data[i + 3];
  }
  return { width: image.width, height: image.height, data: out };
}

/** The cast of light at `kelvin` on a camera balanced for 6500 K (linear-light gains, green = 1). */
export function whiteBalanceCast(image: RasterImage, kelvin: number): RasterImage {
  const a = blackBodyRgb(kelvin).map(toLinear);
  const d = blackBodyRgb(6500).map(toLinear);
  const g = [a[0] / d[0], a[1] / d[1], a[2] / d[2]];
  return mapLinear(image, [g[0] / g[1], 1, g[2] / g[1]]);
}

export const exposure = (image: RasterImage, ev: number) => mapLinear(image, [2 ** ev, 2 ** ev, 2 ** ev]);

export function rotate90(image: RasterImage): RasterImage {
  const { width: w, height: h, data } = image;
  const out = new Uint8ClampedArray(data.length);
  // counter-clockwise: new (x, y) = old (w - 1 - y, x); the new picture is h wide and w high
  for (let y = 0; y < w; y++) {
    for (let x = 0; x < h; x++) {
      const s = (x * w + (w - 1 - y)) * 4;
      const o = (y * h + x) * 4;
      out[o] = data[s];
      out[o + 1] = data[s + 1];
      out[o + 2] = data[s + 2];
      out[o + 3] = data[s + 3];
    }
  }
  return { width: h, height: w, data: out };
}

export function flipHorizontal(image: RasterImage): RasterImage {
  const { width: w, height: h, data } = image;
  const out = new Uint8ClampedArray(data.length);
  for (let y = 0; y < h; y++) {
    for (let x = 0; x < w; x++) {
      const s = (y * w + (w - 1 - x)) * 4;
      const o = (y * w + x) * 4;
      for (let c = 0; c < 4; c++) out[o + c] = data[s + c];
    }
  }
  return { width: w, height: h, data: out };
}

export const halfResolution = (image: RasterImage) =>
  downscaleArea(image, Math.max(1, Math.round(image.width / 2)), Math.max(1, Math.round(image.height / 2)));

/** Gaussian noise of `sigma` (of 255) per channel; a fixed seed, so a report can be repeated. */
export function sensorNoise(image: RasterImage, sigma = NOISE_SIGMA, seed = 1): RasterImage {
  let s = seed >>> 0 || 1;
  const uniform = () => {
    s ^= s << 13;
    s >>>= 0;
    s ^= s >>> 17;
    s ^= s << 5;
    s >>>= 0;
    return (s + 0.5) / 4294967296;
  };
  const out = new Uint8ClampedArray(image.data.length);
  for (let i = 0; i < out.length; i += 4) {
    for (let c = 0; c < 3; c++) {
      const n = Math.sqrt(-2 * Math.log(uniform())) * Math.cos(2 * Math.PI * uniform());
      out[i + c] = Math.round(image.data[i + c] + sigma * n);
    }
    out[i + 3] = image.data[i + 3];
  }
  return { width: image.width, height: image.height, data: out };
}

export const INVARIANCE_VARIANTS = {
  rot90: { describe: 'a quarter turn, counter-clockwise', make: rotate90 },
  'flip-h': { describe: 'mirror image', make: flipHorizontal },
  warm: {
    describe: `white-balance cast: ${WARM_K} K light on a 6500 K balance`,
    make: (i: RasterImage) => whiteBalanceCast(i, WARM_K),
  },
  cool: {
    describe: `white-balance cast: ${COOL_K} K light on a 6500 K balance`,
    make: (i: RasterImage) => whiteBalanceCast(i, COOL_K),
  },
  'ev+0.5': { describe: 'exposure +0.5 EV (linear light x 1.41, clipped)', make: (i: RasterImage) => exposure(i, 0.5) },
  'ev-0.5': { describe: 'exposure -0.5 EV (linear light x 0.71)', make: (i: RasterImage) => exposure(i, -0.5) },
  half: { describe: 'half resolution (area average)', make: halfResolution },
  noise: { describe: `Gaussian sensor noise, sigma ${NOISE_SIGMA} of 255`, make: (i: RasterImage) => sensorNoise(i) },
} as const;
