/** core/src/plots.ts drawing bruise results by the plugin's declaration (BRUISE_PLOTS). */
import { describe, expect, it } from 'vitest';
import {
  groupChart,
  groupStats,
  NO_GROUP,
  plotData,
  runCharts,
  scatterChart,
  timeChart,
  timeSeries,
  type PlotSource,
} from '@mango/core/plots';
import { chartSvg } from '@mango/core/plots-render';
import { BRUISE_PLOTS } from './plots.ts';

/** A scored photo as a stored run keeps it: its bruise % and fruit (with cm² when `scaled`). */
function photo(
  name: string,
  percent: number,
  meta: Record<string, string | null> | undefined,
  scaled = false,
): PlotSource {
  const pixels = 10_000 + Math.round(percent * 37);
  const bruise = Math.round((pixels * percent) / 100);
  return {
    filename: name,
    meta,
    result: {
      filename: name,
      total_mango_pixels: pixels,
      bruise_percent: percent,
      fruits: [
        {
          pixels,
          bruise_pixels: bruise,
          bruise_percent: percent,
          ...(scaled ? { area_cm2: pixels / 400, bruise_area_cm2: bruise / 400 } : {}),
        },
      ],
    },
  };
}

const trial: PlotSource[] = [
  photo('a1.jpg', 2, { treatment: 'hot', day: '0', fruit_id: 'f1' }),
  photo('a2.jpg', 6, { treatment: 'hot', day: '3', fruit_id: 'f1' }),
  photo('b1.jpg', 1, { treatment: 'cold', day: '0', fruit_id: 'f2' }),
  photo('b2.jpg', 4, { treatment: 'cold', day: '3', fruit_id: 'f2' }),
  photo('b3.jpg', 7, { treatment: 'cold', day: '10', fruit_id: 'f2' }),
  photo('c1.jpg', 3, { treatment: null, day: '3', fruit_id: 'f3' }),
  { filename: 'bad.jpg', result: { filename: 'bad.jpg', error: 'not an image' }, meta: { treatment: 'hot' } },
];

describe('plotData and groupStats', () => {
  it('reads the scored photos, their metadata columns and the time column; failed photos are left out', () => {
    const data = plotData(trial, BRUISE_PLOTS);
    expect(data.photos.map((p) => p.image)).toEqual(['a1.jpg', 'a2.jpg', 'b1.jpg', 'b2.jpg', 'b3.jpg', 'c1.jpg']);
    expect(data.columns).toEqual(['treatment', 'day', 'fruit_id']);
    expect(data.time).toBe('day');
    expect(data.unit).toBe('px');
    expect(data.fruits[1]).toMatchObject({ image: 'a2.jpg', fruit: 1, x: 10_222, y: 613 });
  });

  it('groups by a column, a missing value in "(none)", with n, mean and the t interval', () => {
    const stats = groupStats(plotData(trial, BRUISE_PLOTS).photos, 'treatment');
    expect(stats.map((s) => [s.group, s.n, s.mean])).toEqual([
      ['cold', 3, 4],
      ['hot', 2, 4],
      [NO_GROUP, 1, 3],
    ]);
    // cold: 1, 4, 7: sd 3, half-width t(0.975, 2) * 3 / sqrt(3)
    expect(stats[0].ci_high! - 4).toBeCloseTo((4.302653 * 3) / Math.sqrt(3), 5);
    expect(stats[2].ci_low).toBeNull();
  });

  it('clips each 95 % interval of bruise % to 0..100 (groups, time points and the chart): 0, 0, 0.2 and 99.8, 100, 100', () => {
    // scipy.stats.t.interval: (-0.2202, 0.3535) and (99.6465, 100.2202)
    const edge = [
      photo('n1.jpg', 0, { trt: 'low', day: '1' }),
      photo('n2.jpg', 0, { trt: 'low', day: '1' }),
      photo('n3.jpg', 0.2, { trt: 'low', day: '1' }),
      photo('h1.jpg', 99.8, { trt: 'high', day: '2' }),
      photo('h2.jpg', 100, { trt: 'high', day: '2' }),
      photo('h3.jpg', 100, { trt: 'high', day: '2' }),
    ];
    const data = plotData(edge, BRUISE_PLOTS);
    const [high, low] = groupStats(data.photos, 'trt', BRUISE_PLOTS.bounds);
    expect([low.group, low.ci_low, low.ci_clipped]).toEqual(['low', 0, true]);
    expect(low.ci_high).toBeCloseTo(0.3535101819832975, 6);
    expect([high.group, high.ci_high, high.ci_clipped]).toEqual(['high', 100, true]);
    expect(high.ci_low).toBeCloseTo(99.6464898180167, 6);
    const points = timeSeries(data, 'trt').points;
    expect(points.map((p) => [p.series, p.ci_low === 0 || p.ci_high === 100])).toEqual([
      ['high', true],
      ['low', true],
    ]);
    const chart = groupChart(data, 'trt');
    const means = (chart.spec as { layer: { data: { values: { ci_low: number; ci_high: number }[] } }[] }).layer[3].data
      .values;
    expect(Math.min(...means.map((m) => m.ci_low))).toBe(0);
    expect(Math.max(...means.map((m) => m.ci_high))).toBe(100);
    expect(chart.description).toContain('95 % interval 0.00 to 0.35 %');
  });

  it("reads a stored item's metadata from its result when the item has none of its own", () => {
    const stored = trial.slice(0, 2).map(({ meta, result, filename }) => ({ filename, result: { ...result, meta } }));
    expect(plotData(stored, BRUISE_PLOTS).photos.map((p) => p.meta.treatment)).toEqual(['hot', 'hot']);
    const odd = [{ filename: 'x.jpg', result: { ...trial[0].result, meta: { day: 3 } } }];
    expect(plotData(odd, BRUISE_PLOTS).columns).toEqual([]);
  });

  it('uses cm² only when every fruit has a scale', () => {
    const scaled = plotData([photo('s1.jpg', 5, {}, true), photo('s2.jpg', 1, {}, true)], BRUISE_PLOTS);
    expect(scaled.unit).toBe('cm²');
    expect(scaled.fruits[0].x).toBeCloseTo(10_185 / 400, 9);
    expect(plotData([photo('s1.jpg', 5, {}, true), photo('s2.jpg', 1, {})], BRUISE_PLOTS).unit).toBe('px');
  });
});

describe('timeSeries', () => {
  it('follows each fruit_id over numeric days, in day order', () => {
    const { by, points } = timeSeries(plotData(trial, BRUISE_PLOTS), 'treatment');
    expect(by).toBe('fruit_id');
    expect(points.map((p) => [p.series, p.time, p.mean])).toEqual([
      ['f1', '0', 2],
      ['f1', '3', 6],
      ['f2', '0', 1],
      ['f2', '3', 4],
      ['f2', '10', 7],
      ['f3', '3', 3],
    ]);
  });

  it('without fruit_id, draws the mean of each group per day', () => {
    const noIds = trial.map((s) => ({
      ...s,
      meta: { treatment: s.meta?.treatment ?? null, day: s.meta?.day ?? null },
    }));
    const { by, points } = timeSeries(plotData(noIds, BRUISE_PLOTS), 'treatment');
    expect(by).toBe('group');
    const day3 = points.filter((p) => p.time === '3').map((p) => [p.series, p.n, p.mean]);
    expect(day3).toEqual([
      ['cold', 1, 4],
      ['hot', 1, 6],
      [NO_GROUP, 1, 3],
    ]);
  });

  it('has no time chart without a day or date column', () => {
    expect(timeChart(plotData([photo('x.jpg', 1, { treatment: 'a' })], BRUISE_PLOTS), 'treatment')).toBeNull();
  });
});

describe('charts drawn to SVG without a DOM', () => {
  it('the box plot carries its title, axis titles, each group with its n, and the description', async () => {
    const data = plotData(trial, BRUISE_PLOTS);
    const chart = groupChart(data, 'treatment');
    expect(chart.description).toContain('cold: n = 3, mean 4.00 %');
    const svg = await chartSvg(chart);
    expect(svg).toContain('Bruise % by treatment');
    expect(svg).toContain('bruise % of the fruit area');
    for (const label of ['cold (n = 3)', 'hot (n = 2)', '(none) (n = 1)']) expect(svg).toContain(label);
    expect(svg).toMatch(/^<svg role="img" aria-labelledby="groups-title" aria-describedby="groups-desc"/);
    expect(svg).toContain('<desc id="groups-desc">Box plot of bruise % of 6 photos in 3 groups by treatment.');
    // the interval of a 2-photo group reaches below 0: the axis still starts at 0
    expect(svg).toContain('linear scale with values from 0 to');
    expect(svg).not.toMatch(/<script|href="http/);
  });

  it('the scatter says its unit on both axes; every chart of a run renders', async () => {
    const scaled = plotData(
      [photo('s1.jpg', 5, { day: '1' }, true), photo('s2.jpg', 1, { day: '2' }, true)],
      BRUISE_PLOTS,
    );
    const svg = await chartSvg(scatterChart(scaled, null));
    expect(svg).toContain('fruit area (cm²)');
    expect(svg).toContain('lesion area (cm²)');
    expect(await chartSvg(scatterChart(plotData(trial, BRUISE_PLOTS), null))).toContain('fruit area (pixels)');
    const charts = runCharts(plotData(trial, BRUISE_PLOTS), 'treatment');
    expect(charts.map((c) => c.id)).toEqual(['groups', 'time', 'scatter']);
    for (const c of charts) expect(await chartSvg(c)).toContain(`<title id="${c.id}-title">${c.title}</title>`);
  });
});
