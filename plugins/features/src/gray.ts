/**
 * Grayscale exactly as the reference computes it: skimage.color.rgb2gray(rgb / 255.0) (float64),
 * then img_as_ubyte, which is rint(gray * 255) (round half to even). rgb2gray is `rgb @ [0.2125,
 * 0.7154, 0.0721]`. With Debian's python3-skimage, numpy runs that through the reference BLAS
 * (libblas3): the dot product in plain IEEE double, left to right,
 *   gray = ((r / 255) * 0.2125 + (g / 255) * 0.7154) + (b / 255) * 0.0721,
 * for every image shape. G8 flips at exact .5 ties, so the last bit of gray matters. A check over
 * all 2^24 colours gave 0 differences in gray and in G8 (src/gray.test.ts runs it against the live
 * reference).
 *
 * The last bit depends on the BLAS that numpy loads. OpenBLAS (pulled in by python3-torch) uses
 * fused multiply-adds on x86-64 CPUs that have them, in an order that depends on the image shape
 * (1-px-wide images differ). Its G8 differs from the plain sum at about 150 of the 16.7 M
 * colours. The reference tests therefore point numpy at the reference BLAS (skimageReference.ts).
 */
import type { RasterImage } from '@mango/core';

const C_R = 0.2125;
const C_G = 0.7154;
const C_B = 0.0721;

/** (v / 255) * weight for every 8-bit v, rounded exactly as numpy rounds each product. */
function termTable(weight: number): Float64Array {
  const t = new Float64Array(256);
  for (let v = 0; v < 256; v++) t[v] = (v / 255) * weight;
  return t;
}
const R_TERM = termTable(C_R);
const G_TERM = termTable(C_G);
const B_TERM = termTable(C_B);

/** skimage rgb2gray of 8-bit components (each divided by 255 first). */
export function grayOf(r8: number, g8: number, b8: number): number {
  return R_TERM[r8] + G_TERM[g8] + B_TERM[b8];
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
  for (let i = 0, j = 0; i < n; i++, j += 4) {
    // the same additions, in the same order, as grayOf
    const v = R_TERM[d[j]] + G_TERM[d[j + 1]] + B_TERM[d[j + 2]];
    gray[i] = v;
    g8[i] = rint(v * 255);
  }
  return { gray, g8 };
}
