/**
 * Flusser-Suk affine moment invariants I1..I4 of the object, from central moments with x = column,
 * y = row (the reference's central_moments_xy).
 */
import { maskCentroid } from '@mango/core';

export function affineInvariants(object: Uint8Array, width: number, height: number) {
  // centroid from exact integer sums (as numpy's mean of integer-valued floats)
  const { x: mx, y: my } = maskCentroid(object, width, height);
  // mu[p][q] = sum dx^p dy^q, accumulated row by row (short partial sums keep the rounding small)
  const mu = [
    [0, 0, 0, 0],
    [0, 0, 0, 0],
    [0, 0, 0, 0],
    [0, 0, 0, 0],
  ];
  for (let y = 0; y < height; y++) {
    let s0 = 0;
    let s1 = 0;
    let s2 = 0;
    let s3 = 0;
    const row = y * width;
    for (let x = 0; x < width; x++)
      if (object[row + x]) {
        const d = x - mx;
        const d2 = d * d;
        s0 += 1;
        s1 += d;
        s2 += d2;
        s3 += d2 * d;
      }
    if (s0 === 0) continue;
    const dy = y - my;
    const dy2 = dy * dy;
    const dy3 = dy2 * dy;
    mu[0][0] += s0;
    mu[1][0] += s1;
    mu[2][0] += s2;
    mu[3][0] += s3;
    mu[0][1] += s0 * dy;
    mu[1][1] += s1 * dy;
    mu[2][1] += s2 * dy;
    mu[0][2] += s0 * dy2;
    mu[1][2] += s1 * dy2;
    mu[0][3] += s0 * dy3;
  }
  const m00 = mu[0][0];
  const u20 = mu[2][0];
  const u02 = mu[0][2];
  const u11 = mu[1][1];
  const u30 = mu[3][0];
  const u03 = mu[0][3];
  const u21 = mu[2][1];
  const u12 = mu[1][2];
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
