/** Descriptive statistics shared by the results, the segmentation and the evaluations. Pure, browser-safe. */
import quickselect from 'quickselect';

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

/**
 * The k-th smallest (0-based) of `values`: the value a full ascending sort puts at index k, found by
 * selection (Floyd-Rivest, the `quickselect` package) in linear expected time on a copy. For values
 * without NaN (a sort puts NaN last, selection cannot place it) and 0 <= k < length.
 */
export function kthSmallest(values: ArrayLike<number>, k: number): number {
  const copy = Float64Array.from(values);
  quickselect(copy as unknown as number[], k);
  return copy[k];
}

/**
 * The median of `values` (the middle one of a sorted copy, or the mean of the two middle ones) by
 * selection instead of a sort: the same value (for values without NaN). No values: NaN.
 */
export function medianOf(values: ArrayLike<number>): number {
  const n = values.length;
  if (n === 0) return NaN;
  const copy = Float64Array.from(values);
  const m = n >> 1;
  quickselect(copy as unknown as number[], m);
  if (n % 2) return copy[m];
  // the largest of those selection left below the middle one
  let below = copy[0];
  for (let i = 1; i < m; i++) if (copy[i] > below) below = copy[i];
  return (below + copy[m]) / 2;
}

/** The arithmetic mean of the finite values, or null when there are none. */
export function mean(values: ArrayLike<number>): number | null {
  let sum = 0;
  let n = 0;
  for (const v of Array.from(values)) {
    if (!Number.isFinite(v)) continue;
    sum += v;
    n++;
  }
  return n ? sum / n : null;
}

/** The sample standard deviation (n - 1 in the denominator) of the finite values; null below 2 values. */
export function sampleSd(values: ArrayLike<number>): number | null {
  const finite = Array.from(values).filter(Number.isFinite);
  const m = mean(finite);
  if (m === null || finite.length < 2) return null;
  return Math.sqrt(finite.reduce((a, v) => a + (v - m) ** 2, 0) / (finite.length - 1));
}

/** Student's t 0.975 quantiles for 1..30 degrees of freedom (to 6 decimals, as R's qt and scipy give them). */
const T975 = [
  12.706205, 4.302653, 3.182446, 2.776445, 2.570582, 2.446912, 2.364624, 2.306004, 2.262157, 2.228139, 2.200985,
  2.178813, 2.160369, 2.144787, 2.13145, 2.119905, 2.109816, 2.100922, 2.093024, 2.085963, 2.079614, 2.073873, 2.068658,
  2.063899, 2.059539, 2.055529, 2.051831, 2.048407, 2.04523, 2.042272,
];

/**
 * The 0.975 quantile of Student's t with `df` degrees of freedom (the half-width factor of a
 * two-sided 95 % interval): the table above up to 30, beyond it the Cornish-Fisher expansion
 * around the normal quantile (error below 1e-6 from 31 on).
 */
export function tQuantile975(df: number): number {
  if (!Number.isInteger(df) || df < 1)
    throw new RangeError(`degrees of freedom must be a whole number >= 1, got ${df}`);
  if (df <= T975.length) return T975[df - 1];
  const z = 1.959963984540054;
  const g1 = (z ** 3 + z) / 4;
  const g2 = (5 * z ** 5 + 16 * z ** 3 + 3 * z) / 96;
  const g3 = (3 * z ** 7 + 19 * z ** 5 + 17 * z ** 3 - 15 * z) / 384;
  const g4 = (79 * z ** 9 + 776 * z ** 7 + 1482 * z ** 5 - 1920 * z ** 3 - 945 * z) / 92160;
  return z + g1 / df + g2 / df ** 2 + g3 / df ** 3 + g4 / df ** 4;
}

/** The range a figure cannot leave (a percentage: [0, 100]); its interval is clipped to it. */
export type Bounds = readonly [low: number, high: number];

/**
 * The two-sided 95 % confidence interval of the mean of `values` (finite ones; null below 2):
 * Student's t with n - 1 degrees of freedom, mean ± t(0.975, n - 1) · sd / √n, then clipped to
 * `bounds` when the figure has a range (bruise % is in [0, 100]; a group such as 0, 0, 0.2 gives a t
 * interval of -0.22 to 0.35, shown as 0 to 0.35). Clipping removes only values the mean cannot take,
 * so the interval still covers the true mean whenever the t interval does (the same coverage); it is
 * no longer symmetric about the mean. `clipped` says whether a bound cut it. The one definition the run
 * page, the compare page and both HTML reports show (issue 27).
 */
export function meanInterval(
  values: ArrayLike<number>,
  bounds: Bounds | null = null,
): { low: number; high: number; clipped: boolean } | null {
  const finite = Array.from(values).filter(Number.isFinite);
  const m = mean(finite);
  const sd = sampleSd(finite);
  if (m === null || sd === null) return null;
  const half = (tQuantile975(finite.length - 1) * sd) / Math.sqrt(finite.length);
  const [low, high] = [m - half, m + half];
  if (!bounds) return { low, high, clipped: false };
  if (!(bounds[0] <= bounds[1])) throw new RangeError(`bounds must be [low, high] with low <= high, got ${bounds}`);
  const clip = (v: number) => Math.min(bounds[1], Math.max(bounds[0], v));
  return { low: clip(low), high: clip(high), clipped: clip(low) !== low || clip(high) !== high };
}

/** A group of values described: count, mean with its 95 % interval (`meanInterval`), and the box plot's five numbers. */
export interface GroupSummary {
  n: number;
  mean: number | null;
  sd: number | null;
  /** the mean's two-sided 95 % confidence interval (`meanInterval`: Student's t, clipped to the figure's bounds); null below 2 values */
  ci_low: number | null;
  ci_high: number | null;
  /** whether the figure's bounds cut the t interval (false without bounds or an interval) */
  ci_clipped: boolean;
  min: number | null;
  q1: number | null;
  median: number | null;
  q3: number | null;
  max: number | null;
}

/** The summary of the finite values (NaN and infinities are left out); the interval clipped to `bounds` when given. */
export function describeGroup(values: ArrayLike<number>, bounds: Bounds | null = null): GroupSummary {
  const finite = Array.from(values).filter(Number.isFinite);
  const ci = meanInterval(finite, bounds);
  return {
    n: finite.length,
    mean: mean(finite),
    sd: sampleSd(finite),
    ci_low: ci?.low ?? null,
    ci_high: ci?.high ?? null,
    ci_clipped: ci?.clipped ?? false,
    min: quantile(finite, 0),
    q1: quantile(finite, 0.25),
    median: quantile(finite, 0.5),
    q3: quantile(finite, 0.75),
    max: quantile(finite, 1),
  };
}
