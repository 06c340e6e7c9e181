/**
 * The largest singular values of a dense matrix by Golub-Kahan-Lanczos bidiagonalisation with full
 * reorthogonalisation. The singular values of the small bidiagonal B_k are the positive
 * eigenvalues of the 2k x 2k symmetric tridiagonal with zero diagonal and off-diagonals
 * a1, b1, a2, b2, ... (no squaring, so small values keep their relative accuracy); those come
 * from the implicit QL algorithm. The top values converge in a few dozen steps on photographs;
 * the iteration stops when the wanted values have not moved by 1e-12 of the largest over 3 steps, or
 * when the Krylov space is the whole row space (then the values are exact).
 */
import { seededRandom } from '@mango/core';

/** Stop when the wanted values moved less than SETTLED * sv_1 over LOOKBACK steps (errors then ~1e-13). */
const LOOKBACK = 3;
const SETTLED = 1e-12;

/** Eigenvalues of a symmetric tridiagonal matrix (diagonal d, off-diagonal e[0..n-2]); tqli. */
export function tridiagonalEigenvalues(diag: ArrayLike<number>, off: ArrayLike<number>): Float64Array {
  const n = diag.length;
  const d = Float64Array.from(diag);
  const e = new Float64Array(n);
  for (let i = 0; i < n - 1; i++) e[i] = off[i];
  for (let l = 0; l < n; l++) {
    let iter = 0;
    let m: number;
    do {
      for (m = l; m < n - 1; m++) {
        const dd = Math.abs(d[m]) + Math.abs(d[m + 1]);
        if (Math.abs(e[m]) <= Number.EPSILON * dd) break;
      }
      if (m !== l) {
        if (iter++ === 60) throw new Error('tridiagonal eigenvalues did not converge');
        let g = (d[l + 1] - d[l]) / (2 * e[l]);
        let r = Math.hypot(g, 1);
        g = d[m] - d[l] + e[l] / (g + (g >= 0 ? Math.abs(r) : -Math.abs(r)));
        let s = 1;
        let c = 1;
        let p = 0;
        let i: number;
        for (i = m - 1; i >= l; i--) {
          const f = s * e[i];
          const b = c * e[i];
          r = Math.hypot(f, g);
          e[i + 1] = r;
          if (r === 0) {
            d[i + 1] -= p;
            e[m] = 0;
            break;
          }
          s = f / r;
          c = g / r;
          g = d[i + 1] - p;
          r = (d[i] - g) * s + 2 * c * b;
          p = s * r;
          d[i + 1] = g + p;
          g = c * r - b;
        }
        if (r === 0 && i >= l) continue;
        d[l] -= p;
        e[l] = g;
        e[m] = 0;
      }
    } while (m !== l);
  }
  return d;
}

function bidiagonalSingularValues(alpha: number[], beta: number[]): number[] {
  const k = alpha.length;
  const off: number[] = [];
  for (let i = 0; i < k; i++) {
    off.push(alpha[i]);
    if (i < k - 1) off.push(beta[i]);
  }
  const ev = tridiagonalEigenvalues(new Float64Array(2 * k), off);
  return Array.from(ev)
    .sort((x, y) => y - x)
    .slice(0, k)
    .map((v) => Math.max(v, 0));
}

/**
 * The `count` largest singular values of the rows x cols matrix `a` (row-major), in decreasing
 * order, padded with zeros when the rank is smaller.
 */
export function topSingularValues(a: Float64Array, rows: number, cols: number, count: number): number[] {
  // Work with cols <= rows: then after `cols` steps the bidiagonal holds every singular value exactly.
  if (rows < cols) {
    const t = new Float64Array(a.length);
    for (let r = 0; r < rows; r++) for (let c = 0; c < cols; c++) t[c * rows + r] = a[r * cols + c];
    return topSingularValues(t, cols, rows, count);
  }
  const maxSteps = Math.min(rows, cols);
  const rand = seededRandom(12345);
  const U: Float64Array[] = [];
  const V: Float64Array[] = [];
  const alpha: number[] = [];
  const beta: number[] = [];
  let anorm = 0;
  for (let i = 0; i < a.length; i++) anorm += a[i] * a[i];
  anorm = Math.sqrt(anorm);
  if (anorm === 0) return new Array<number>(count).fill(0);

  const norm = (x: Float64Array) => {
    let s = 0;
    for (let i = 0; i < x.length; i++) s += x[i] * x[i];
    return Math.sqrt(s);
  };
  const orthogonalise = (x: Float64Array, basis: Float64Array[]) => {
    for (let pass = 0; pass < 2; pass++)
      for (const q of basis) {
        let dot = 0;
        for (let i = 0; i < x.length; i++) dot += x[i] * q[i];
        for (let i = 0; i < x.length; i++) x[i] -= dot * q[i];
      }
  };
  const mulA = (v: Float64Array) => {
    const u = new Float64Array(rows);
    // Four partial sums per row: the additions no longer wait on each other.
    const c4 = cols - (cols % 4);
    for (let r = 0; r < rows; r++) {
      let s0 = 0;
      let s1 = 0;
      let s2 = 0;
      let s3 = 0;
      const off = r * cols;
      let c = 0;
      for (; c < c4; c += 4) {
        s0 += a[off + c] * v[c];
        s1 += a[off + c + 1] * v[c + 1];
        s2 += a[off + c + 2] * v[c + 2];
        s3 += a[off + c + 3] * v[c + 3];
      }
      for (; c < cols; c++) s0 += a[off + c] * v[c];
      u[r] = s0 + s1 + (s2 + s3);
    }
    return u;
  };
  const mulAt = (u: Float64Array) => {
    const v = new Float64Array(cols);
    for (let r = 0; r < rows; r++) {
      const ur = u[r];
      if (ur === 0) continue;
      const off = r * cols;
      for (let c = 0; c < cols; c++) v[c] += a[off + c] * ur;
    }
    return v;
  };
  const randomUnit = (len: number, basis: Float64Array[]) => {
    for (let attempt = 0; attempt < 5; attempt++) {
      const x = new Float64Array(len);
      for (let i = 0; i < len; i++) x[i] = rand() - 0.5;
      orthogonalise(x, basis);
      const nx = norm(x);
      if (nx > 1e-8) {
        for (let i = 0; i < len; i++) x[i] /= nx;
        return x;
      }
    }
    return null;
  };

  const tiny = anorm * 1e-14;
  let v = randomUnit(cols, [])!;
  V.push(v);
  let u = mulA(v);
  let al = norm(u);
  if (al > tiny) for (let i = 0; i < rows; i++) u[i] /= al;
  else {
    al = 0;
    u = randomUnit(rows, []) ?? u;
  }
  U.push(u);
  alpha.push(al);
  let history: number[][] = [];
  while (alpha.length < maxSteps) {
    // v_{j+1} = A^T u_j - alpha_j v_j, orthogonalised against all v
    const w = mulAt(u);
    for (let i = 0; i < cols; i++) w[i] -= al * v[i];
    orthogonalise(w, V);
    let be = norm(w);
    if (be > tiny) for (let i = 0; i < cols; i++) w[i] /= be;
    else {
      // invariant subspace: restart with a fresh direction (B becomes block diagonal)
      be = 0;
      const fresh = randomUnit(cols, V);
      if (!fresh) break;
      w.set(fresh);
    }
    v = w;
    V.push(v);
    beta.push(be);
    const z = mulA(v);
    for (let i = 0; i < rows; i++) z[i] -= be * u[i];
    orthogonalise(z, U);
    al = norm(z);
    if (al > tiny) for (let i = 0; i < rows; i++) z[i] /= al;
    else {
      al = 0;
      const fresh = randomUnit(rows, U);
      if (fresh) z.set(fresh);
    }
    u = z;
    U.push(u);
    alpha.push(al);
    if (alpha.length >= count + 2) {
      const sv = bidiagonalSingularValues(alpha, beta).slice(0, count);
      history.push(sv);
      if (history.length > LOOKBACK) {
        const old = history[history.length - 1 - LOOKBACK];
        if (sv.every((s, i) => Math.abs(s - old[i]) <= SETTLED * sv[0])) break;
        history = history.slice(-LOOKBACK);
      }
    }
  }
  const sv = bidiagonalSingularValues(alpha, beta);
  const out = new Array<number>(count).fill(0);
  for (let i = 0; i < Math.min(count, sv.length); i++) out[i] = sv[i];
  return out;
}
