import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { describedResultsFile, histogramBins, RESULTS_SCHEMA, ResultsFile, summaryStats } from './results.ts';

describe('summary statistics and histogram', () => {
  it('gives n, mean, median, p90 (linear between ranks) and the share over the threshold', () => {
    const s = summaryStats([4, 1, 3, 2, 10], 3);
    expect(s).toMatchObject({ n: 5, mean: 4, median: 3, threshold: 3, share_over: 0.4 });
    expect(s.p90).toBeCloseTo(7.6, 12);
    expect(summaryStats([], 5)).toEqual({ n: 0, mean: null, median: null, p90: null, threshold: 5, share_over: null });
  });

  it('bins bruise % from 0 in round widths, at most 12 bins, the maximum in the last bin', () => {
    const bins = histogramBins([0, 0.4, 3.2, 7.9, 13]);
    expect(bins.map((b) => [b.from, b.to, b.count])).toEqual([
      [0, 2, 2],
      [2, 4, 1],
      [4, 6, 0],
      [6, 8, 1],
      [8, 10, 0],
      [10, 12, 0],
      [12, 14, 1],
    ]);
    // 12 one-wide bins are enough for a maximum of 12, which falls in the last one.
    expect(histogramBins([12]).map((b) => b.count)).toEqual([...Array(11).fill(0), 1]);
    expect(histogramBins([]).map((b) => b.count)).toEqual([0]);
    expect(histogramBins([55, 100]).length).toBeLessThanOrEqual(12);
  });
});

describe('the results file knows a result by the schema its plugin declares', () => {
  const photo = (result: Record<string, unknown>) => ({
    filename: 'a.jpg',
    sha256: 'ab',
    width: 4,
    height: 3,
    result,
    overlay_thumbnail: null,
  });
  const file = (result: Record<string, unknown>) => ({
    schema: RESULTS_SCHEMA,
    provenance: {
      app: 'mango-bruise-tracker',
      app_version: '1',
      source: 'cli',
      run_id: null,
      operation: 'count',
      method: null,
      method_used: null,
      plugin_version: null,
      model_id: null,
      model_sha256: null,
      options: {},
      created_at: '2026-01-01T00:00:00Z',
      inputs: [{ filename: 'a.jpg', sha256: 'ab' }],
    },
    photos: [photo(result)],
  });

  it('keeps every field of any JSON object as a result, and refuses a result that is not an object', () => {
    const result = { count: 3, label: 'x', nested: { a: [1, 2] } };
    expect(ResultsFile.parse(file(result)).photos[0].result).toEqual(result);
    expect(ResultsFile.safeParse(file([1, 2] as never)).success).toBe(false);
    expect(ResultsFile.safeParse(file('3' as never)).success).toBe(false);
  });

  it('describes a result as one of the declared schemas, in their order, or any object', () => {
    const Count = z.object({ count: z.number().int() });
    const Label = z.object({ label: z.string() });
    const described = describedResultsFile([Count, Label]);
    const json = z.toJSONSchema(described) as unknown as {
      properties: { photos: { items: { properties: { result: { anyOf: { properties?: object }[] } } } } };
    };
    const anyOf = json.properties.photos.items.properties.result.anyOf;
    expect(anyOf).toHaveLength(3);
    expect(Object.keys(anyOf[0].properties ?? {})).toEqual(['count']);
    expect(Object.keys(anyOf[1].properties ?? {})).toEqual(['label']);
    expect(anyOf[2]).toMatchObject({ type: 'object', additionalProperties: {} });
    // The photo keeps its other fields, in their order, and parses as the declared schema when it fits.
    expect(Object.keys(json.properties.photos.items.properties)).toEqual(
      Object.keys(ResultsFile.shape.photos.element.shape),
    );
    expect(described.parse(file({ count: 2, extra: true })).photos[0].result).toEqual({ count: 2 });
    expect(described.parse(file({ other: 'y' })).photos[0].result).toEqual({ other: 'y' });
  });
});
