/**
 * skimage.feature.local_binary_pattern(G8, P=8, R=1, method='uniform') and its normalised
 * 10-bin histogram over the mask. Neighbour i sits at (r - sin(2 pi i / 8), c + cos(2 pi i / 8)),
 * rounded to 5 decimals; diagonal neighbours are bilinearly interpolated with skimage's exact
 * arithmetic (outside the image counts as 0) because the ">= centre" test is sensitive to the last
 * bit. skimage counts 0/1 changes without the wrap-around pair; <= 2 changes gives the number of
 * ones, otherwise 9.
 */
import { rint } from './gray.ts';

const P = 8;

function round5(x: number): number {
  return rint(x * 1e5) / 1e5;
}

const RP = Array.from({ length: P }, (_, i) => round5(-Math.sin((2 * Math.PI * i) / P)));
const CP = Array.from({ length: P }, (_, i) => round5(Math.cos((2 * Math.PI * i) / P)));

/** Uniform LBP codes (0..9) for every pixel. */
export function lbpUniform(g8: Uint8Array, width: number, height: number): Uint8Array {
  const out = new Uint8Array(width * height);
  const at = (r: number, c: number) => (r < 0 || r >= height || c < 0 || c >= width ? 0 : g8[r * width + c]);
  const bits = new Uint8Array(P);
  for (let r = 0; r < height; r++) {
    for (let c = 0; c < width; c++) {
      const centre = g8[r * width + c];
      for (let i = 0; i < P; i++) {
        const rr = r + RP[i];
        const cc = c + CP[i];
        const minr = Math.floor(rr);
        const minc = Math.floor(cc);
        const maxr = Math.ceil(rr);
        const maxc = Math.ceil(cc);
        const dr = rr - minr;
        const dc = cc - minc;
        const top = (1 - dc) * at(minr, minc) + dc * at(minr, maxc);
        const bottom = (1 - dc) * at(maxr, minc) + dc * at(maxr, maxc);
        const value = (1 - dr) * top + dr * bottom;
        bits[i] = value - centre >= 0 ? 1 : 0;
      }
      let changes = 0;
      let ones = 0;
      for (let i = 0; i < P - 1; i++) changes += bits[i] !== bits[i + 1] ? 1 : 0;
      for (let i = 0; i < P; i++) ones += bits[i];
      out[r * width + c] = changes <= 2 ? ones : P + 1;
    }
  }
  return out;
}

export function lbpHistogram(g8: Uint8Array, mask: Uint8Array, width: number, height: number, count: number) {
  const codes = lbpUniform(g8, width, height);
  const hist = new Float64Array(10);
  for (let i = 0; i < codes.length; i++) if (mask[i]) hist[codes[i]]++;
  const out: Record<string, number> = {};
  for (let k = 0; k < 10; k++) out[`lbp_${k}`] = hist[k] / count;
  return out;
}
