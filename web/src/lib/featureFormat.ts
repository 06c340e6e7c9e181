/**
 * Feature Analysis results on the client: value formatting, the table's columns and the
 * feature_analysis_results.csv export (full precision).
 */
import type { FeatureResultItem } from '@mango/core';
import { toCsv } from '@mango/core/csv';
import { DOWNLOAD_CSV } from './download.ts';

export const FEATURE_CSV_NAME = 'feature_analysis_results.csv';

/** 4 decimals, or 5 significant digits when |v| < 0.0001 (product-spec.md section 9). */
export function formatFeatureValue(value: number | null | undefined): string {
  if (typeof value !== 'number') return '-';
  if (!Number.isFinite(value)) return String(value);
  if (value !== 0 && Math.abs(value) < 0.0001) return value.toPrecision(5);
  return value.toFixed(4);
}

export interface FeatureColumn {
  feature: string;
  valueName: string;
}

/**
 * The columns after Image: each selected feature (in the order given) with its value names, in
 * the order the results give them; `known` supplies names for a feature no image returned.
 */
export function featureColumns(
  selectedFeatures: readonly string[],
  results: readonly FeatureResultItem[],
  known: Partial<Record<string, readonly string[]>> = {},
): FeatureColumn[] {
  const columns: FeatureColumn[] = [];
  for (const feature of selectedFeatures) {
    const names: string[] = [];
    for (const item of results) {
      for (const name of Object.keys(item.features?.[feature] ?? {})) if (!names.includes(name)) names.push(name);
    }
    if (names.length === 0) names.push(...(known[feature] ?? []));
    for (const valueName of names) columns.push({ feature, valueName });
  }
  return columns;
}

export function featureValue(item: FeatureResultItem, column: FeatureColumn): number | undefined {
  return item.features?.[column.feature]?.[column.valueName];
}

/** feature_analysis_results.csv: Image, then the value names; values at full precision. */
export function featureCsv(columns: readonly FeatureColumn[], results: readonly FeatureResultItem[]): string {
  return toCsv(
    ['Image', ...columns.map((c) => c.valueName)],
    results.map((item) => [item.image_name, ...columns.map((c) => featureValue(item, c))]),
    DOWNLOAD_CSV,
  );
}

/** 'A, B, C, D, E...' : the selected names, cut with '...' past five. */
export function summarizeNames(names: readonly string[], max = 5): string {
  return names.length > max ? `${names.slice(0, max).join(', ')}...` : names.join(', ');
}
