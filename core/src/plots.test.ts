/**
 * core/src/plots.ts knows no plugin (issue 24): it plots whatever result fields a declaration names,
 * with the declaration's words. Here a made-up kind of result (leaves with spots) that no plugin has;
 * the bruise plugin's own plots are tested beside its declaration (plugins/bruise/src/plots.test.ts).
 */
import { describe, expect, it } from 'vitest';
import {
  groupChart,
  plotData,
  runCharts,
  scatterChart,
  timeSeries,
  type PlotFields,
  type PlotSource,
} from './plots.ts';
import { chartSvg } from './plots-render.ts';

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
