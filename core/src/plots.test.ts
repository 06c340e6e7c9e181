/**
 * core/src/plots.ts knows no plugin (issue 24): it plots whatever result fields a declaration names,
 * with the declaration's words. Here a made-up kind of result (leaves with spots) that no plugin has;
 * the bruise plugin's own plots are tested beside its declaration (plugins/bruise/src/plots.test.ts).
 */
import { describe, expect, it } from 'vitest';
import {
  fitWidth,
  groupChart,
  plotData,
  runCharts,
  scatterChart,
  seriesCsv,
  stackRuns,
  timeChart,
  timeSeries,
  type PlotFields,
  type PlotSource,
} from './plots.ts';
import { chartSvg } from './plots-render.ts';
import { seriesReportHtml } from './series-report.ts';
import { parse } from 'csv-parse/browser/esm/sync';

const SPOTS: PlotFields = {
  value: 'spot_share',
  requires: ['leaf_count'],
  objects: 'leaves',
  x: { name: 'leaf_size', px: 'leaf_px', cm2: 'leaf_cm2', title: { px: 'leaf (px)', cm2: 'leaf (cm²)' } },
  y: { name: 'spot_size', px: 'spot_px', cm2: 'spot_cm2', title: { px: 'spots (px)', cm2: 'spots (cm²)' } },
  text: {
    byColumn: 'Spot share by {{column}}',
    allPhotos: 'Spot share of the photos',
    axis: 'spot share',
    boxDescription: 'Spot share of {{n}} photos in {{groups}} groups by {{column}}.',
    groupOne: '{{group}}: {{n}} photo, {{mean}}.',
    groupInterval: '{{group}}: {{n}} photos, {{mean}} ({{low}}-{{high}}).',
    value: 'Share',
    mean: 'Mean share',
    timePerObject: 'Share over {{time}} per leaf',
    timePerGroup: 'Mean share over {{time}} per group',
    timeDescription: 'Share against {{time}}: {{lines}} lines ({{by}}), {{points}} points.',
    scatter: 'Spots against leaf',
    scatterDescription: '{{n}} leaves: {{y}} against {{x}}.',
    object: 'Leaf',
  },
};

/** A photo's spot share and its leaves (areas in cm² too when `scaled`). */
const photo = (name: string, share: number, meta: Record<string, string>, leaves: [number, number][], scaled = false) =>
  ({
    filename: name,
    meta,
    result: {
      spot_share: share,
      leaf_count: leaves.length,
      leaves: leaves.map(([leaf, spot]) => ({
        leaf_px: leaf,
        spot_px: spot,
        ...(scaled ? { leaf_cm2: leaf / 100, spot_cm2: spot / 100 } : {}),
      })),
    },
  }) satisfies PlotSource;

const sources: PlotSource[] = [
  photo('a.jpg', 2, { site: 'north', day: '1' }, [[900, 18]]),
  photo('b.jpg', 8, { site: 'north', day: '2' }, [
    [1000, 80],
    [500, 40],
  ]),
  photo('c.jpg', 5, { site: 'south', day: '1' }, [[700, 35]]),
  // the same value without the required key: another kind of result, not plotted
  { filename: 'other.jpg', result: { spot_share: 50, leaves: [{ leaf_px: 1, spot_px: 1 }] } },
  { filename: 'failed.jpg', result: { error: 'not an image' } },
];

describe('plots by a declaration', () => {
  it('reads the declared value and object areas; results without the required keys are left out', () => {
    const data = plotData(sources, SPOTS);
    expect(data.photos.map((p) => [p.image, p.value])).toEqual([
      ['a.jpg', 2],
      ['b.jpg', 8],
      ['c.jpg', 5],
    ]);
    expect(data.fruits.map((f) => [f.image, f.fruit, f.x, f.y])).toEqual([
      ['a.jpg', 1, 900, 18],
      ['b.jpg', 1, 1000, 80],
      ['b.jpg', 2, 500, 40],
      ['c.jpg', 1, 700, 35],
    ]);
    expect(data.unit).toBe('px');
    expect(data.time).toBe('day');
    const scaled = plotData([photo('s.jpg', 1, {}, [[250, 50]], true)], SPOTS);
    expect([scaled.unit, scaled.fruits[0].x, scaled.fruits[0].y]).toEqual(['cm²', 2.5, 0.5]);
    // per group per day: north's day 2 is b.jpg alone
    const { points } = timeSeries(data, 'site');
    expect(points.map((p) => [p.series, p.time, p.mean])).toEqual([
      ['north', '1', 2],
      ['north', '2', 8],
      ['south', '1', 5],
    ]);
  });

  it("the charts' data fields and words are the declaration's; none of another plugin's", async () => {
    const data = plotData(sources, SPOTS);
    const groups = groupChart(data, 'site');
    const layers = (groups.spec as { layer: { encoding: { y: { field: string } } }[] }).layer;
    expect(layers[0].encoding.y.field).toBe('spot_share');
    expect(groups.title).toBe('Spot share by site');
    expect(groups.description).toBe(
      'Spot share of 3 photos in 2 groups by site. north: 2 photos, 5.00 (-33.12-43.12). south: 1 photo, 5.00.',
    );
    const scatter = scatterChart(data, null);
    const encoding = (scatter.spec as { encoding: { x: { field: string }; y: { field: string } } }).encoding;
    expect([encoding.x.field, encoding.y.field]).toEqual(['leaf_size', 'spot_size']);
    expect(scatter.description).toBe('4 leaves: spots (px) against leaf (px).');
    for (const chart of runCharts(data, 'site')) {
      const svg = await chartSvg(chart);
      expect(svg).toContain(`<title id="${chart.id}-title">${chart.title}</title>`);
      expect(svg).not.toMatch(/bruise|lesion|fruit area/i);
    }
  });
});

describe('one series over runs (a fruit_id followed from run to run)', () => {
  // a shelf-life trial: day 0 uploaded as one run, day 3 as another; a fruit missing on day 3
  const day0 = {
    id: 'run-day0',
    created_at: '2026-11-20T08:00:00.000Z',
    items: [
      photo('L1_d0.jpg', 2, { leaf_id: 'L1', fruit_id: 'L1', day: '0' }, [[900, 18]]),
      photo('L2_d0.jpg', 4, { fruit_id: 'L2', day: '0', run: 'typed by hand' }, [[800, 32]]),
      photo('L3_d0.jpg', 1, { fruit_id: 'L3', day: '0' }, [[700, 7]]),
      { filename: 'failed.jpg', result: { error: 'not an image' } },
    ],
  };
  const day3 = {
    id: 'run-day3',
    created_at: '2026-11-23T08:00:00.000Z',
    items: [
      photo('L2_d3.jpg', 10, { fruit_id: 'L2', day: '3' }, [[800, 80]]),
      photo('L1_d3.jpg', 6, { fruit_id: 'L1', day: '3' }, [[900, 54]]),
    ],
  };

  it("stacks the runs' rows with their run and draws one line per fruit_id over the day", async () => {
    const data = stackRuns([day0, day3], SPOTS);
    expect(data.photos.map((p) => [p.meta.run, p.image, p.value])).toEqual([
      ['run-day0', 'L1_d0.jpg', 2],
      ['run-day0', 'L2_d0.jpg', 4],
      ['run-day0', 'L3_d0.jpg', 1],
      ['run-day3', 'L2_d3.jpg', 10],
      ['run-day3', 'L1_d3.jpg', 6],
    ]);
    // the run's own column wins over a metadata column of the same name
    expect(data.photos[1].meta).toEqual({ run: 'run-day0', run_date: day0.created_at, fruit_id: 'L2', day: '0' });
    expect(data.columns).toEqual(['run', 'run_date', 'leaf_id', 'fruit_id', 'day']);
    expect(data.time).toBe('day');
    expect(data.fruits.map((f) => [f.meta.run, f.image, f.y])).toEqual([
      ['run-day0', 'L1_d0.jpg', 18],
      ['run-day0', 'L2_d0.jpg', 32],
      ['run-day0', 'L3_d0.jpg', 7],
      ['run-day3', 'L2_d3.jpg', 80],
      ['run-day3', 'L1_d3.jpg', 54],
    ]);
    const { by, points } = timeSeries(data, null);
    expect(by).toBe('fruit_id');
    expect(points.map((p) => [p.series, p.order, p.mean])).toEqual([
      ['L1', 0, 2],
      ['L1', 3, 6],
      ['L2', 0, 4],
      ['L2', 3, 10],
      ['L3', 0, 1],
    ]);
    const chart = timeChart(data, null)!;
    expect(chart.description).toBe('Share against day: 3 lines (fruit_id), 5 points.');
    const svg = await chartSvg(chart);
    expect(svg).toContain('Share over day per leaf');
  });

  it('writes the stacked rows as CSV: run, run date, image, the declared figure, the metadata', () => {
    const data = stackRuns([day0, day3], SPOTS);
    const csv = seriesCsv(data);
    expect(csv.split('\n')[0]).toBe('run,run_date,image,spot_share,leaf_id,fruit_id,day');
    const rows = parse(csv, { columns: true }) as Record<string, string>[];
    expect(rows).toHaveLength(5);
    expect(rows[0]).toEqual({
      run: 'run-day0',
      run_date: '2026-11-20T08:00:00.000Z',
      image: 'L1_d0.jpg',
      spot_share: '2',
      leaf_id: 'L1',
      fruit_id: 'L1',
      day: '0',
    });
    expect(rows[4]).toMatchObject({ run: 'run-day3', image: 'L1_d3.jpg', spot_share: '6', leaf_id: '', day: '3' });
  });

  it("takes the run's date where a row has no day", () => {
    const undated = (run: typeof day0) => ({
      ...run,
      items: run.items.map((s) => ('meta' in s ? { ...s, meta: { fruit_id: s.meta.fruit_id } } : s)),
    });
    // no row has a day: the run dates are the time (a date axis)
    const byDate = stackRuns([undated(day0), undated(day3)], SPOTS);
    expect(byDate.time).toBe('run_date');
    expect(timeSeries(byDate, null).points.map((p) => [p.series, p.time, p.mean])).toEqual([
      ['L1', day0.created_at, 2],
      ['L1', day3.created_at, 6],
      ['L2', day0.created_at, 4],
      ['L2', day3.created_at, 10],
      ['L3', day0.created_at, 1],
    ]);
    // some rows have one: a `time` column, each row's day or else its run's date
    const mixed = stackRuns([day0, undated(day3)], SPOTS);
    expect(mixed.time).toBe('time');
    expect(mixed.photos.map((p) => p.meta.time)).toEqual(['0', '0', '0', day3.created_at, day3.created_at]);
    expect(mixed.fruits.map((f) => f.meta.time)).toEqual(['0', '0', '0', day3.created_at, day3.created_at]);
    expect(seriesCsv(mixed).split('\n')[0]).toBe('run,run_date,image,spot_share,leaf_id,fruit_id,day,time');
  });

  it('the series report: its chart drawn, a row per run with its mean, every stacked row, in the declaration’s words', async () => {
    const html = await seriesReportHtml([day0, day3], SPOTS, { created_at: '2026-11-27T00:00:00.000Z' });
    expect(html).toContain('<title>Series report – 2 runs</title>');
    expect(html).toContain('5 photo(s) of 2 run(s) over day · 2026-11-27T00:00:00.000Z');
    // one chart per leaf (no other metadata column but leaf_id, which colours the second)
    expect(html.match(/<figure>/g)).toHaveLength(2);
    expect(html).toContain('<title id="plot-series-0-title">Share over day per leaf</title>');
    const [first, second] = html.split('<figure>').slice(1);
    expect(first.match(/aria-roledescription="line mark"/g)).toHaveLength(3);
    expect(first.match(/aria-roledescription="point"/g)).toHaveLength(5);
    expect(second).toContain("titled 'leaf_id'");
    // coloured by leaf_id, which only L1's day-0 photo has: each fruit is still one line of one colour
    expect(second.match(/aria-roledescription="line mark"/g)).toHaveLength(3);
    // the runs' rows: 4 items of which 3 scored (mean 7/3), then 2 (mean 8, interval from two photos)
    const cells = (run: string) =>
      [
        ...(html.match(new RegExp(`<tr data-run="${run}">(.*?)</tr>`))?.[1] ?? '').matchAll(/<td[^>]*>(.*?)<\/td>/g),
      ].map((m) => m[1].replace(/<[^>]+>/g, ''));
    expect(cells('run-day0')).toEqual([
      'run-day0',
      day0.created_at,
      '4',
      '3',
      '2.33',
      '-1.46 to 6.13',
      '2.00',
      '1.00 to 4.00',
    ]);
    expect(cells('run-day3').slice(2, 5)).toEqual(['2', '2', '8.00']);
    expect(html).toContain('<th class="num">Mean share</th>');
    expect(html).toContain('data-series="L2" data-time="3" data-mean="10"');
    expect(html.match(/<tr><td><code>run-day\d<\/code>/g)).toHaveLength(5);
    // no script, and none of the bruise plugin's words (the page's name is the app's)
    expect(html.replace('Mango Bruise Tracker', '')).not.toMatch(/<script|bruise/i);
    await expect(seriesReportHtml([{ ...day0, items: day0.items.slice(3) }], SPOTS)).rejects.toThrow(/no scored photo/);
  });

  it('a series of one day writes its day as "0" on the axis, not "0.000000"', async () => {
    const svg = await chartSvg(timeChart(stackRuns([day0], SPOTS), null)!);
    expect(svg).toMatch(/<text[^>]*>0<\/text>/);
    expect(svg).not.toMatch(/>-?\d+\.\d{4,}</);
  });

  it('fits a chart to a width: axes and legend included, the natural one is wider', async () => {
    const chart = timeChart(stackRuns([day0, day3], SPOTS), null)!;
    const width = async (c: typeof chart) => Number((await chartSvg(c)).match(/<svg[^>]* width="(\d+)"/)![1]);
    expect(await width(chart)).toBeGreaterThan(500);
    expect(await width(fitWidth(chart, 320))).toBe(320);
    expect(fitWidth(chart, 320).description).toBe(chart.description);
  });
});
