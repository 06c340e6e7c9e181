/**
 * Grayscale exactly as the reference computes it. skimage.color.rgb2gray is `rgb @ [0.2125, 0.7154,
 * 0.0721]`, which numpy hands to OpenBLAS's dgemv; on x86-64 with FMA that kernel evaluates
 * fma(b, 0.0721, fma(r, 0.2125, g * 0.7154)). G8 = rint(gray * 255) flips at exact .5 ties, so the
 * last bit matters: we emulate the fused multiply-add (verified over all 2^24 colours against numpy).
 */
import type { RasterImage } from '@mango/core';

const SPLIT = 134217729; // 2^27 + 1 (Veltkamp splitting)

/** Correctly rounded a * b + c for the finite inputs used here (error-free transforms, round-to-odd). */
export function fma(a: number, b: number, c: number): number {
  // p + e = a * b exactly (Dekker)
  const p = a * b;
  let t = SPLIT * a;
  const ah = t - (t - a);
  const al = a - ah;
  t = SPLIT * b;
  const bh = t - (t - b);
  const bl = b - bh;
  const e = ah * bh - p + ah * bl + al * bh + al * bl;
  // s + u = p + c exactly (Knuth two-sum)
  const s = p + c;
  const bv = s - p;
  const u = p - (s - bv) + (c - bv);
  // v + w = u + e exactly; round v to odd when w != 0 so the final rounding is correct
  const v = u + e;
  const bv2 = v - u;
  const w = u - (v - bv2) + (e - bv2);
  return s + roundToOdd(v, w);
}

const f64 = new Float64Array(1);
const u32 = new Uint32Array(f64.buffer); // little-endian: [low word, high word]

function roundToOdd(v: number, w: number): number {
  if (w === 0 || v === 0) return v === 0 ? w : v;
  f64[0] = v;
  const lo = u32[0];
  if ((lo & 1) === 1) return v;
  // v is even: step one ulp towards w (the direction of the discarded part) so the result is odd
  if (w > 0 === v > 0) u32[0] = lo + 1;
  else if (lo === 0) {
    u32[0] = 0xffffffff;
    u32[1] = u32[1] - 1;
  } else u32[0] = lo - 1;
  return f64[0];
}

const C_R = 0.2125;
const C_G = 0.7154;
const C_B = 0.0721;

/** skimage rgb2gray of 8-bit components (each divided by 255 first). */
export function grayOf(r8: number, g8: number, b8: number): number {
  return fma(b8 / 255, C_B, fma(r8 / 255, C_R, (g8 / 255) * C_G));
}

/** numpy.rint: round half to even. */
export function rint(x: number): number {
  const r = Math.round(x);
  return r - x === 0.5 && r % 2 !== 0 ? r - 1 : r;
}

export interface GrayPlanes {
  /** gray in [0, 1], float64 */
  gray: Float64Array;
  /** G8 = rint(gray * 255) */
  g8: Uint8Array;
}

/** gray and G8 for every pixel. */
export function grayPlanes(image: RasterImage): GrayPlanes {
  const n = image.width * image.height;
  const d = image.data;
  const gray = new Float64Array(n);
  const g8 = new Uint8Array(n);
  // the inner product g/255 * 0.7154 depends on one component only: tabulate it
  const gTerm = new Float64Array(256);
  for (let v = 0; v < 256; v++) gTerm[v] = (v / 255) * C_G;
  for (let i = 0, j = 0; i < n; i++, j += 4) {
    const v = fma(d[j + 2] / 255, C_B, fma(d[j] / 255, C_R, gTerm[d[j + 1]]));
    gray[i] = v;
    g8[i] = rint(v * 255);
  }
  return { gray, g8 };
}
