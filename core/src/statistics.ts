/** Descriptive statistics shared by the results, the segmentation and the evaluations. Pure, browser-safe. */

/**
 * The q-quantile (q in 0..1) of `values`, in any order, linear between the closest ranks (R's type
 * 7, numpy's default): the median is quantile(values, 0.5). No values have no quantile: null (never
 * NaN, which JSON cannot carry and arithmetic passes on silently), so every caller says what an
 * empty set means to it.
 */
export function quantile(values: ArrayLike<number>, q: number): number | null {
  if (values.length === 0) return null;
  const sorted = Array.from(values).sort((a, b) => a - b);
  const h = (sorted.length - 1) * q;
  const lo = Math.floor(h);
  const hi = Math.min(sorted.length - 1, lo + 1);
  return sorted[lo] + (h - lo) * (sorted[hi] - sorted[lo]);
}
