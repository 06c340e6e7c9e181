/**
 * Plane projective geometry for the colour card: a homography fitted by least squares (normalised
 * DLT with h33 = 1), applied forwards and backwards, and its local scale.
 */

/** Solves A x = b (n x n, row-major) by Gaussian elimination with partial pivoting; null when singular. */
export function solveLinear(a: number[][], b: number[]): number[] | null {
  const n = b.length;
  const m = a.map((row, i) => [...row, b[i]]);
  for (let c = 0; c < n; c++) {
    let p = c;
    for (let r = c + 1; r < n; r++) if (Math.abs(m[r][c]) > Math.abs(m[p][c])) p = r;
    if (Math.abs(m[p][c]) < 1e-12) return null;
    [m[c], m[p]] = [m[p], m[c]];
    for (let r = c + 1; r < n; r++) {
      const f = m[r][c] / m[c][c];
      if (f === 0) continue;
      for (let k = c; k <= n; k++) m[r][k] -= f * m[c][k];
    }
  }
  const x = new Array<number>(n).fill(0);
  for (let r = n - 1; r >= 0; r--) {
    let s = m[r][n];
    for (let k = r + 1; k < n; k++) s -= m[r][k] * x[k];
    x[r] = s / m[r][r];
  }
  return x;
}

/**
 * One Levenberg-Marquardt step: solves (JᵀJ + lambda diag(JᵀJ) + ridge I) d = -Jᵀr for d, from the
 * normal matrix `jtj` and the gradient `jtr`; null when singular.
 */
export function dampedStep(jtj: number[][], jtr: number[], lambda: number, ridge: number): number[] | null {
  const damped = jtj.map((row, i) => row.map((v, j) => (i === j ? v * (1 + lambda) + ridge : v)));
  return solveLinear(
    damped,
    jtr.map((v) => -v),
  );
}

/** A 3x3 matrix, row-major, mapping (u, v, 1) to homogeneous image coordinates. */
export type Homography = number[];

export interface Point {
  x: number;
  y: number;
}

export function project(h: Homography, u: number, v: number): Point {
  const w = h[6] * u + h[7] * v + h[8];
  return { x: (h[0] * u + h[1] * v + h[2]) / w, y: (h[3] * u + h[4] * v + h[5]) / w };
}

export function invert3(m: number[]): number[] | null {
  const [a, b, c, d, e, f, g, h, i] = m;
  const A = e * i - f * h;
  const B = -(d * i - f * g);
  const C = d * h - e * g;
  const det = a * A + b * B + c * C;
  if (Math.abs(det) < 1e-15) return null;
  return [
    A / det,
    -(b * i - c * h) / det,
    (b * f - c * e) / det,
    B / det,
    (a * i - c * g) / det,
    -(a * f - c * d) / det,
    C / det,
    -(a * h - b * g) / det,
    (a * e - b * d) / det,
  ];
}

/** Similarity that moves the points' centroid to 0 and their mean distance to sqrt(2) (Hartley). */
function normaliser(pts: Point[]): number[] {
  let cx = 0;
  let cy = 0;
  for (const p of pts) {
    cx += p.x;
    cy += p.y;
  }
  cx /= pts.length;
  cy /= pts.length;
  let d = 0;
  for (const p of pts) d += Math.hypot(p.x - cx, p.y - cy);
  const s = d > 0 ? (Math.SQRT2 * pts.length) / d : 1;
  return [s, 0, -s * cx, 0, s, -s * cy, 0, 0, 1];
}

const mul3 = (a: number[], b: number[]) => {
  const r = new Array<number>(9).fill(0);
  for (let i = 0; i < 3; i++)
    for (let j = 0; j < 3; j++) for (let k = 0; k < 3; k++) r[i * 3 + j] += a[i * 3 + k] * b[k * 3 + j];
  return r;
};

/**
 * The homography that maps each `from` point onto its `to` point in the least-squares sense (at
 * least 4 pairs, not collinear): the normalised DLT with h33 = 1, solved by the normal equations.
 * With fewer than 6 pairs an affine map is fitted instead (steadier from few points).
 */
export function fitHomography(from: Point[], to: Point[]): Homography | null {
  const n = from.length;
  if (n < 3 || to.length !== n) return null;
  const tf = normaliser(from);
  const tt = normaliser(to);
  const f = from.map((p) => ({ x: tf[0] * p.x + tf[2], y: tf[4] * p.y + tf[5] }));
  const t = to.map((p) => ({ x: tt[0] * p.x + tt[2], y: tt[4] * p.y + tt[5] }));
  const affine = n < 6;
  const k = affine ? 6 : 8;
  const ata = Array.from({ length: k }, () => new Array<number>(k).fill(0));
  const atb = new Array<number>(k).fill(0);
  const add = (row: number[], rhs: number) => {
    for (let i = 0; i < k; i++) {
      atb[i] += row[i] * rhs;
      for (let j = 0; j < k; j++) ata[i][j] += row[i] * row[j];
    }
  };
  for (let i = 0; i < n; i++) {
    const { x: u, y: v } = f[i];
    const { x, y } = t[i];
    if (affine) {
      add([u, v, 1, 0, 0, 0], x);
      add([0, 0, 0, u, v, 1], y);
    } else {
      add([u, v, 1, 0, 0, 0, -u * x, -v * x], x);
      add([0, 0, 0, u, v, 1, -u * y, -v * y], y);
    }
  }
  const sol = solveLinear(ata, atb);
  if (!sol) return null;
  const hn = affine ? [...sol, 0, 0, 1] : [...sol, 1];
  const ttInv = invert3(tt);
  if (!ttInv) return null;
  const h = mul3(ttInv, mul3(hn, tf));
  const s = h[8];
  return Math.abs(s) < 1e-15 ? null : h.map((v) => v / s);
}

/** Image pixels per unit of (u, v) at (u, v): the square root of the Jacobian's determinant. */
export function localScale(h: Homography, u: number, v: number): number {
  const e = 1e-3;
  const p = project(h, u, v);
  const pu = project(h, u + e, v);
  const pv = project(h, u, v + e);
  const det = (pu.x - p.x) * (pv.y - p.y) - (pu.y - p.y) * (pv.x - p.x);
  return Math.sqrt(Math.abs(det)) / e;
}
