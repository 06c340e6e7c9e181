/** The tolerances of shared/spec/features.md, used by the reference tests and the benchmark. */
export function tolerance(featureId: string, valueName: string): { relative: number; absolute: number } {
  if (valueName === 'convex_area' || valueName === 'solidity') return { relative: 0.005, absolute: 1e-9 };
  if (featureId === 'gabor') return { relative: 1e-4, absolute: 1e-9 };
  return { relative: 1e-6, absolute: 1e-9 };
}

/**
 * The values computed from G8 and the mask alone (counts of integers): exact up to the order of
 * the sums, so to 1e-9 relative (1e-12 absolute); every other value keeps the spec's tolerance.
 * One G8 pixel that differs from scikit-image's moves GLCM or LBP values by about 1e-8 to 1e-4.
 */
export function exactTolerance(featureId: string, valueName: string): { relative: number; absolute: number } {
  if (featureId === 'glcm' || featureId === 'lbp' || featureId === 'factual' || valueName === 'gray_entropy')
    return { relative: 1e-9, absolute: 1e-12 };
  return tolerance(featureId, valueName);
}

export interface Mismatch {
  featureId: string;
  valueName: string;
  expected: number;
  actual: number | undefined;
}

/** Every value of `expected` compared with `actual`; missing and extra values count as mismatches. */
export function compareFeatures(
  expected: Record<string, Record<string, number>>,
  actual: Record<string, Record<string, number> | undefined>,
  toleranceOf: typeof tolerance = tolerance,
): { mismatches: Mismatch[]; compared: number; worst: Record<string, number> } {
  const mismatches: Mismatch[] = [];
  const worst: Record<string, number> = {};
  let compared = 0;
  for (const [featureId, values] of Object.entries(expected)) {
    const got = actual[featureId] ?? {};
    for (const [valueName, e] of Object.entries(values)) {
      const a = got[valueName];
      compared++;
      const { relative, absolute } = toleranceOf(featureId, valueName);
      const err = a === undefined ? Infinity : Math.abs(a - e);
      const rel = Math.abs(e) > absolute ? err / Math.abs(e) : err <= absolute ? 0 : Infinity;
      worst[featureId] = Math.max(worst[featureId] ?? 0, rel);
      if (!(err <= Math.max(absolute, relative * Math.abs(e))))
        mismatches.push({ featureId, valueName, expected: e, actual: a });
    }
    for (const valueName of Object.keys(got))
      if (!(valueName in values)) mismatches.push({ featureId, valueName, expected: NaN, actual: got[valueName] });
  }
  for (const featureId of Object.keys(actual))
    if (!(featureId in expected)) mismatches.push({ featureId, valueName: '*', expected: NaN, actual: undefined });
  return { mismatches, compared, worst };
}
