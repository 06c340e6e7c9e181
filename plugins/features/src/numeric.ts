/**
 * numpy's summation order, reproduced: np.sum / np.mean of float64 use pairwise summation (blocks of
 * up to 128 with 8 accumulators). Matching it bit for bit matters where the reference divides by a
 * value that is zero in exact arithmetic (e.g. skewness of a constant region, where numpy's std is
 * either 0 or a rounding residue). A reduction runs over buffers of 8192 elements, added in order
 * (checked against numpy 1.24 on constant and random vectors).
 */
export function pairwiseSum(a: ArrayLike<number>, start: number, n: number): number {
  if (n < 8) {
    let res = -0.0;
    for (let i = 0; i < n; i++) res += a[start + i];
    return res;
  }
  if (n <= 128) {
    let r0 = a[start],
      r1 = a[start + 1],
      r2 = a[start + 2],
      r3 = a[start + 3],
      r4 = a[start + 4],
      r5 = a[start + 5],
      r6 = a[start + 6],
      r7 = a[start + 7];
    let i = 8;
    const end = n - (n % 8);
    for (; i < end; i += 8) {
      const p = start + i;
      r0 += a[p];
      r1 += a[p + 1];
      r2 += a[p + 2];
      r3 += a[p + 3];
      r4 += a[p + 4];
      r5 += a[p + 5];
      r6 += a[p + 6];
      r7 += a[p + 7];
    }
    let res = r0 + r1 + (r2 + r3) + (r4 + r5 + (r6 + r7));
    for (; i < n; i++) res += a[start + i];
    return res;
  }
  let n2 = Math.floor(n / 2);
  n2 -= n2 % 8;
  return pairwiseSum(a, start, n2) + pairwiseSum(a, start + n2, n - n2);
}

/** np.sum of a contiguous float64 vector. */
export function npSum(a: ArrayLike<number>): number {
  let total = 0;
  for (let s = 0; s < a.length; s += 8192) total += pairwiseSum(a, s, Math.min(8192, a.length - s));
  return total;
}

/** np.mean of a contiguous float64 vector. */
export function npMean(a: ArrayLike<number>): number {
  return npSum(a) / a.length;
}

/** np.std (ddof 0) of a contiguous float64 vector, given its np.mean. */
export function npStd(a: Float64Array, mean: number, scratch = new Float64Array(a.length)): number {
  for (let i = 0; i < a.length; i++) {
    const d = a[i] - mean;
    scratch[i] = d * d;
  }
  return Math.sqrt(npSum(scratch) / a.length);
}
