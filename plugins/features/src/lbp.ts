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

/**
 * Interpolation weights of neighbour i along one axis for every coordinate: the floor offset and
 * the fraction, computed exactly as skimage does (coordinate + offset, then floor), since the
 * fraction's last bits depend on the coordinate.
 */
function axisWeights(offset: number, size: number) {
  const lo = new Int32Array(size);
  const hi = new Int32Array(size);
  const frac = new Float64Array(size);
  for (let k = 0; k < size; k++) {
    const v = k + offset;
    lo[k] = Math.floor(v);
    hi[k] = Math.ceil(v);
    frac[k] = v - lo[k];
  }
  return { lo, hi, frac };
}

/** skimage's 'uniform' code of each 8-bit pattern (bit i = neighbour i): changes counted without the wrap-around pair. */
const UNIFORM_CODE = (() => {
  const lut = new Uint8Array(256);
  for (let v = 0; v < 256; v++) {
    let changes = 0;
    let ones = 0;
    for (let i = 0; i < P; i++) {
      const bit = (v >> i) & 1;
      ones += bit;
      if (i < P - 1 && bit !== ((v >> (i + 1)) & 1)) changes++;
    }
    lut[v] = changes <= 2 ? ones : P + 1;
  }
  return lut;
})();

/** Uniform LBP codes (0..9) for every pixel. */
export function lbpUniform(g8: Uint8Array, width: number, height: number): Uint8Array {
  const out = new Uint8Array(width * height);
  // zero border of one pixel (skimage's constant mode, cval 0): every neighbour is within +-1
  const pw = width + 2;
  const pad = new Float64Array(pw * (height + 2));
  for (let r = 0; r < height; r++) for (let c = 0; c < width; c++) pad[(r + 1) * pw + c + 1] = g8[r * width + c];
  // Axis neighbours (i = 0, 2, 4, 6) have zero fractions, so skimage's interpolation returns the
  // pixel itself; the diagonals (i = 1, 3, 5, 7) use per-row and per-column weights.
  const axis = [
    [0, 0, 1],
    [2, -1, 0],
    [4, 0, -1],
    [6, 1, 0],
  ];
  const diagonals = [1, 3, 5, 7].map((i) => ({ i, rows: axisWeights(RP[i], height), cols: axisWeights(CP[i], width) }));
  const code = new Uint8Array(width);
  for (let r = 0; r < height; r++) {
    const prow = (r + 1) * pw + 1;
    code.fill(0);
    for (const [i, dr, dc] of axis) {
      const shift = prow + dr * pw + dc;
      for (let c = 0; c < width; c++) if (pad[shift + c] - pad[prow + c] >= 0) code[c] |= 1 << i;
    }
    for (const { i, rows, cols } of diagonals) {
      const fr = rows.frac[r];
      const gr = 1 - fr;
      // floor/ceil of c +- 0.70711 are c + ol and c + ol + 1 for every column; only the fraction varies
      const ol = cols.lo[0];
      const t = (rows.lo[r] + 1) * pw + 1 + ol;
      const b = (rows.hi[r] + 1) * pw + 1 + ol;
      const frac = cols.frac;
      const bit = 1 << i;
      for (let c = 0; c < width; c++) {
        const dc = frac[c];
        const ec = 1 - dc;
        const top = ec * pad[t + c] + dc * pad[t + c + 1];
        const bottom = ec * pad[b + c] + dc * pad[b + c + 1];
        if (gr * top + fr * bottom - pad[prow + c] >= 0) code[c] |= bit;
      }
    }
    const row = r * width;
    for (let c = 0; c < width; c++) out[row + c] = UNIFORM_CODE[code[c]];
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
