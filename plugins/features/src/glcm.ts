/**
 * Masked grey-level co-occurrence matrix properties (skimage graycomatrix + graycoprops): distance 1,
 * angles 0, 45, 90, 135 degrees (row/column offsets (0,1), (1,1), (1,0), (1,-1)), 256 levels of G8,
 * symmetric, only pairs with both pixels in the mask, each matrix normalised, each property averaged
 * over the four angles. An angle without any pair gives an all-zero matrix (correlation 1).
 */
const OFFSETS: ReadonlyArray<[number, number]> = [
  [0, 1],
  [1, 1],
  [1, 0],
  [1, -1],
];

export interface GlcmProperties {
  glcm_contrast: number;
  glcm_dissimilarity: number;
  glcm_homogeneity: number;
  glcm_energy: number;
  glcm_correlation: number;
  glcm_ASM: number;
}

/** Counts of (i, j) pairs for one offset, symmetric (P + P^T), 256 x 256 row-major. */
export function cooccurrence(g8: Uint8Array, mask: Uint8Array, width: number, height: number, dr: number, dc: number) {
  const P = new Float64Array(256 * 256);
  const c0 = Math.max(0, -dc);
  const c1 = Math.min(width, width - dc);
  for (let r = 0; r < height - dr; r++) {
    const row = r * width;
    const row2 = (r + dr) * width + dc;
    for (let c = c0; c < c1; c++) {
      const a = row + c;
      const b = row2 + c;
      if (mask[a] && mask[b]) {
        const i = g8[a];
        const j = g8[b];
        P[i * 256 + j]++;
        P[j * 256 + i]++;
      }
    }
  }
  return P;
}

function properties(P: Float64Array) {
  let total = 0;
  for (let k = 0; k < P.length; k++) total += P[k];
  if (total === 0) total = 1;
  let contrast = 0;
  let dissimilarity = 0;
  let homogeneity = 0;
  let asm = 0;
  let meanI = 0;
  let meanJ = 0;
  for (let i = 0; i < 256; i++)
    for (let j = 0; j < 256; j++) {
      const p = P[i * 256 + j] / total;
      if (p === 0) continue;
      const d = i - j;
      contrast += p * d * d;
      dissimilarity += p * Math.abs(d);
      homogeneity += p / (1 + d * d);
      asm += p * p;
      meanI += p * i;
      meanJ += p * j;
    }
  let varI = 0;
  let varJ = 0;
  let cov = 0;
  for (let i = 0; i < 256; i++)
    for (let j = 0; j < 256; j++) {
      const p = P[i * 256 + j] / total;
      if (p === 0) continue;
      const di = i - meanI;
      const dj = j - meanJ;
      varI += p * di * di;
      varJ += p * dj * dj;
      cov += p * di * dj;
    }
  const stdI = Math.sqrt(varI);
  const stdJ = Math.sqrt(varJ);
  const correlation = stdI < 1e-15 || stdJ < 1e-15 ? 1 : cov / (stdI * stdJ);
  return { contrast, dissimilarity, homogeneity, energy: Math.sqrt(asm), correlation, asm };
}

export function glcmProperties(g8: Uint8Array, mask: Uint8Array, width: number, height: number): GlcmProperties {
  const sums = { contrast: 0, dissimilarity: 0, homogeneity: 0, energy: 0, correlation: 0, asm: 0 };
  for (const [dr, dc] of OFFSETS) {
    const p = properties(cooccurrence(g8, mask, width, height, dr, dc));
    for (const key of Object.keys(sums) as (keyof typeof sums)[]) sums[key] += p[key];
  }
  const n = OFFSETS.length;
  return {
    glcm_contrast: sums.contrast / n,
    glcm_dissimilarity: sums.dissimilarity / n,
    glcm_homogeneity: sums.homogeneity / n,
    glcm_energy: sums.energy / n,
    glcm_correlation: sums.correlation / n,
    glcm_ASM: sums.asm / n,
  };
}
