/**
 * Feature Analysis results on the client: value formatting, the table's columns and the
 * feature_analysis_results.csv export (full precision).
 */
import { DOWNLOAD_CSV } from './download.ts';
import {
  featureColumns as coreFeatureColumns,
  featureTableCsv,
  type FeatureColumn,
} from '@mango/plugin-features/tables';
import { type FeatureResultItem } from '@mango/plugin-features/results';

export const FEATURE_CSV_NAME = 'feature_analysis_results.csv';

/** 4 decimals, or 5 significant digits when |v| < 0.0001 (product-spec.md section 9). */
export function formatFeatureValue(value: number | null | undefined): string {
  if (typeof value !== 'number') return '-';
  if (!Number.isFinite(value)) return String(value);
  if (value !== 0 && Math.abs(value) < 0.0001) return value.toPrecision(5);
  return value.toFixed(4);
}

export type { FeatureColumn };

/** The table's columns: the selected features in the order given (plugins/features/src/tables.ts featureColumns). */
export const featureColumns = (
  selectedFeatures: readonly string[],
  results: readonly FeatureResultItem[],
  known: Partial<Record<string, readonly string[]>> = {},
): FeatureColumn[] => coreFeatureColumns(results, selectedFeatures, known);

export function featureValue(item: FeatureResultItem, column: FeatureColumn): number | undefined {
  return item.features?.[column.feature]?.[column.valueName];
}

/** feature_analysis_results.csv: Image, then the value names; values at full precision (core's one writer). */
export const featureCsv = (columns: readonly FeatureColumn[], results: readonly FeatureResultItem[]): string =>
  featureTableCsv(results, { columns, layout: DOWNLOAD_CSV });

/** 'A, B, C, D, E...' : the selected names, cut with '...' past five. */
export function summarizeNames(names: readonly string[], max = 5): string {
  return names.length > max ? `${names.slice(0, max).join(', ')}...` : names.join(', ');
}
