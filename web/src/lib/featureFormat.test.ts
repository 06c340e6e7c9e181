import { describe, expect, it } from 'vitest';
import Papa from 'papaparse';
import { featureColumns, featureCsv, featureValue, formatFeatureValue, summarizeNames } from './featureFormat.ts';
import { type FeatureResultItem } from '@mango/plugin-features/results';

const results: FeatureResultItem[] = [
  {
    image_name: 'a.png',
    features: {
      rgb: { mean_R: 200.123456789, mean_G: 100, mean_B: 0.00001234567 },
      area: { area: 5000, solidity: 0.987654321 },
    },
  },
  { image_name: 'b.png', error: 'no foreground pixels' },
];

describe('feature values', () => {
  it('shows 4 decimals, or 5 significant digits below 0.0001', () => {
    expect(formatFeatureValue(200.123456789)).toBe('200.1235');
    expect(formatFeatureValue(0.00001234567)).toBe('0.000012346');
    expect(formatFeatureValue(-0.00005)).toBe('-0.000050000');
    expect(formatFeatureValue(0.0001)).toBe('0.0001');
    expect(formatFeatureValue(0)).toBe('0.0000');
    expect(formatFeatureValue(1e-12)).toBe('1.0000e-12');
    expect(formatFeatureValue(undefined)).toBe('-');
  });

  it('orders columns by the selected features, then by the value names the results give', () => {
    const cols = featureColumns(['area', 'rgb', 'lbp'], results, { lbp: ['lbp_0', 'lbp_1'] });
    expect(cols.map((c) => c.valueName)).toEqual(['area', 'solidity', 'mean_R', 'mean_G', 'mean_B', 'lbp_0', 'lbp_1']);
    expect(featureValue(results[0], cols[1])).toBe(0.987654321);
    expect(featureValue(results[1], cols[1])).toBeUndefined();
  });

  it('writes the CSV with Image then the value names at full precision; a failed photo with its error', () => {
    const cols = featureColumns(['rgb', 'area'], results);
    const parsed = Papa.parse<string[]>(featureCsv(cols, results), { skipEmptyLines: true });
    expect(parsed.data[0]).toEqual(['Image', 'mean_R', 'mean_G', 'mean_B', 'area', 'solidity', 'error']);
    expect(parsed.data[1]).toEqual(['a.png', '200.123456789', '100', '0.00001234567', '5000', '0.987654321', '']);
    expect(parsed.data[2]).toEqual(['b.png', '', '', '', '', '', 'no foreground pixels']);
    // Every photo scored: no error column (the spec's layout exactly).
    const scored = Papa.parse<string[]>(featureCsv(cols, results.slice(0, 1)), { skipEmptyLines: true });
    expect(scored.data[0]).toEqual(['Image', 'mean_R', 'mean_G', 'mean_B', 'area', 'solidity']);
  });

  it("summarises selected names with '...' past five", () => {
    expect(summarizeNames(['A', 'B'])).toBe('A, B');
    expect(summarizeNames(['A', 'B', 'C', 'D', 'E'])).toBe('A, B, C, D, E');
    expect(summarizeNames(['A', 'B', 'C', 'D', 'E', 'F'])).toBe('A, B, C, D, E...');
  });
});
