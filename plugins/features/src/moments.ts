/**
 * Flusser-Suk affine moment invariants I1..I4 of the object, from central moments with x = column,
 * y = row (the reference's central_moments_xy), summed in numpy's order.
 */
import { npMean, npSum } from './numeric.ts';

export function affineInvariants(object: Uint8Array, width: number, height: number) {
  let n = 0;
  for (let i = 0; i < object.length; i++) n += object[i];
  const xs = new Float64Array(n);
  const ys = new Float64Array(n);
  for (let y = 0, k = 0; y < height; y++)
    for (let x = 0; x < width; x++)
      if (object[y * width + x]) {
        xs[k] = x;
        ys[k++] = y;
      }
  const mx = npMean(xs);
  const my = npMean(ys);
  const dx = xs.map((v) => v - mx);
  const dy = ys.map((v) => v - my);
  const terms = new Float64Array(n);
  const mu = (p: number, q: number) => {
    for (let k = 0; k < n; k++) terms[k] = dx[k] ** p * dy[k] ** q;
    return npSum(terms);
  };
  const m00 = mu(0, 0);
  const u20 = mu(2, 0);
  const u02 = mu(0, 2);
  const u11 = mu(1, 1);
  const u30 = mu(3, 0);
  const u03 = mu(0, 3);
  const u21 = mu(2, 1);
  const u12 = mu(1, 2);
  const i1 = (u20 * u02 - u11 ** 2) / m00 ** 4;
  const i2 =
    (u30 ** 2 * u03 ** 2 -
      6 * u30 * u21 * u12 * u03 +
      4 * u30 * u12 ** 3 +
      4 * u21 ** 3 * u03 -
      3 * u21 ** 2 * u12 ** 2) /
    m00 ** 10;
  const i3 = (u20 * (u21 * u03 - u12 ** 2) - u11 * (u30 * u03 - u21 * u12) + u02 * (u30 * u12 - u21 ** 2)) / m00 ** 7;
  const i4 =
    (u20 ** 3 * u03 ** 2 -
      6 * u20 ** 2 * u11 * u12 * u03 -
      6 * u20 ** 2 * u02 * u21 * u03 +
      9 * u20 ** 2 * u02 * u12 ** 2 +
      12 * u20 * u11 ** 2 * u21 * u03 +
      6 * u20 * u11 * u02 * u30 * u03 -
      18 * u20 * u11 * u02 * u21 * u12 -
      8 * u11 ** 3 * u30 * u03 -
      6 * u20 * u02 ** 2 * u30 * u12 +
      9 * u20 * u02 ** 2 * u21 ** 2 +
      12 * u11 ** 2 * u02 * u30 * u12 -
      6 * u11 * u02 ** 2 * u30 * u21 +
      u02 ** 3 * u30 ** 2) /
    m00 ** 11;
  return { ami_1: i1, ami_2: i2, ami_3: i3, ami_4: i4 };
}
