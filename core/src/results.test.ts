import { describe, expect, it } from 'vitest';
import {
  dataCsv,
  fruitTableCsv,
  histogramBins,
  imageTableCsv,
  measureTableCsv,
  scaleStatusOf,
  summaryStats,
  type BruiseFigures,
} from './results.ts';
import type { FeatureResultItem } from './schemas/index.ts';

const fruit = (x: number, pct: number, colour: number | null) => ({
  bbox: { x, y: 5, width: 40, height: 30 },
  pixels: 1000,
  bruise_pixels: pct * 10,
  bruise_percent: pct,
  lesion_count: pct > 0 ? 1 : 0,
  colour_difference: colour,
});

const item = (
  filename: string,
  fruits: ReturnType<typeof fruit>[],
  extra: Partial<BruiseFigures> = {},
): BruiseFigures => ({
  filename,
  total_mango_pixels: 1000 * fruits.length,
  bruise_percent: fruits.reduce((a, f) => a + f.bruise_percent, 0) / fruits.length,
  non_bruise_percent: 100 - fruits.reduce((a, f) => a + f.bruise_percent, 0) / fruits.length,
  bruise_pixels: fruits.reduce((a, f) => a + f.bruise_pixels, 0),
  fruits,
  colour_difference: fruits.find((f) => f.colour_difference !== null)?.colour_difference ?? null,
  severity: fruits.find((f) => f.colour_difference !== null)?.colour_difference ?? null,
  method: 'classical',
  version: '0.1.0',
  width: 640,
  height: 480,
  elapsed_ms: 12,
  ...extra,
});

describe('tidy tables', () => {
  const items = [item('a, "b".jpg', [fruit(1, 10, 21.5), fruit(50, 0, null)]), item('c.png', [fruit(3, 4, 12)])];

  it('writes one row per fruit, quoting names and leaving absent values empty', () => {
    expect(fruitTableCsv(items).split('\n')).toEqual([
      'image,fruit,bbox_x,bbox_y,bbox_w,bbox_h,fruit_pixels,bruise_pixels,bruise_percent,lesion_count,fruit_area_cm2,bruise_area_cm2,colour_difference,grade,size_group,weight_g,size_source,scale_status',
      '"a, ""b"".jpg",1,1,5,40,30,1000,100,10,1,,,21.5,,,,,none',
      '"a, ""b"".jpg",2,50,5,40,30,1000,0,0,0,,,,,,,,none',
      'c.png,1,3,5,40,30,1000,40,4,1,,,12,,,,,none',
      '',
    ]);
  });

  it('writes one row per image; an item stored before colour_difference falls back to severity', () => {
    const old = item('old.png', [fruit(1, 2, null)], { severity: 7.25 });
    delete (old as Partial<BruiseFigures>).colour_difference;
    expect(imageTableCsv([items[1], old]).split('\n')).toEqual([
      'image,fruit_count,fruit_pixels,bruise_pixels,bruise_percent,non_bruise_percent,lesion_count,colour_difference,method,model_id,px_per_cm,fruit_area_cm2,bruise_area_cm2,scale_status,scale_source,quality,error',
      'c.png,1,1000,40,4,96,1,12,classical,,,,,none,,,',
      'old.png,1,1000,20,2,98,1,7.25,classical,,,,,none,,,',
      '',
    ]);
  });

  it('writes a failed photo as a row with its error, and the scale status of every photo', () => {
    const found = item('coin.png', [fruit(1, 2, null)], {
      px_per_cm: 40,
      fruit_area_cm2: 0.625,
      bruise_area_cm2: 0.0125,
      scale_source: 'reference',
      scale_status: 'found',
    });
    const notFound = item('nocoin.png', [fruit(1, 0, null)], { reference: null, scale_source: null });
    // stored before scale_status existed: told from its fields
    const given = item('typed.png', [fruit(1, 0, null)], { px_per_cm: 12, scale_source: 'given' });
    const lines = imageTableCsv([
      found,
      { filename: '=evil.jpg', error: 'not a supported image' },
      notFound,
      given,
    ]).split('\n');
    expect(lines.slice(1)).toEqual([
      'coin.png,1,1000,20,2,98,1,,classical,,40,0.625,0.0125,found,reference,,',
      "'=evil.jpg,,,,,,,,,,,,,,,,not a supported image",
      'nocoin.png,1,1000,0,0,100,0,,classical,,,,,not-found,,,',
      'typed.png,1,1000,0,0,100,0,,classical,,12,,,given,given,,',
      '',
    ]);
    expect(scaleStatusOf(notFound)).toBe('not-found');
    expect(fruitTableCsv([found]).split('\n')[1].endsWith(',found')).toBe(true);
  });

  it('the quality column holds the ids of the flags a photo raised, joined by ;', () => {
    const flag = (id: string) => ({ id, message: `${id}: why`, value: 1, threshold: 0.5 });
    const flagged = item('f.jpg', [fruit(1, 2, null)], { quality: { flags: [flag('blur'), flag('overexposed')] } });
    const passed = item('p.jpg', [fruit(1, 2, null)], { quality: { flags: [] } });
    const rows = imageTableCsv([flagged, passed]).split('\n');
    expect(rows[1].split(',').at(-2)).toBe('blur;overexposed');
    expect(rows[2].split(',').at(-2)).toBe('');
  });

  it("keeps data.csv's four columns with 2-decimal percentages", () => {
    expect(dataCsv([item('c.png', [fruit(3, 4.126, null)])], { newline: '\r\n', finalNewline: false })).toBe(
      'Filename,Total Mango Pixels,Bruise Percentage,Non-Bruise Percentage\r\nc.png,1000,4.13,95.87',
    );
  });
});

describe('the per-fruit measurement table', () => {
  const measured = (n: number, area: number, scaled?: Record<string, number>) => ({
    ...fruit(10 * n, n, n === 1 ? null : 2.5),
    fruit: n,
    features: { area: { area, solidity: 0.98 }, rgb: { mean_R: 100 + n } },
    ...(scaled ? { scaled } : {}),
  });
  const masks = { method: 'model' as const, model_id: 'm', model_sha256: 'x', version: '1', width: 80, height: 60 };
  const items: FeatureResultItem[] = [
    {
      image_name: 'a.jpg',
      features: { area: { area: 4800, solidity: 1 } },
      fruits: [measured(1, 1000, { area_cm2: 2.5 }), measured(2, 990, { area_cm2: 2.475 })],
      fruit_masks: { ...masks, px_per_cm: 20, scale_source: 'given' },
    },
    {
      image_name: 'empty.jpg',
      features: {},
      fruits: [],
      fruit_masks: { ...masks, px_per_cm: 20, scale_source: 'given' },
    },
    { image_name: '=bad.jpg', error: 'bad.jpg: not a supported image' },
  ];

  it('one row per fruit with its bruise figures, scale, features and cm values; a bare row for a photo without fruit or failed', () => {
    expect(measureTableCsv(items, { features: ['rgb', 'area'] })).toBe(
      [
        'image,fruit,bbox_x,bbox_y,bbox_w,bbox_h,fruit_pixels,bruise_pixels,bruise_percent,lesion_count,fruit_area_cm2,bruise_area_cm2,colour_difference,px_per_cm,scale_source,mean_R,area,solidity,area_cm2,error',
        'a.jpg,1,10,5,40,30,1000,10,1,1,,,,20,given,101,1000,0.98,2.5,',
        'a.jpg,2,20,5,40,30,1000,20,2,1,,,2.5,20,given,102,990,0.98,2.475,',
        'empty.jpg,,,,,,,,,,,,,20,given,,,,,',
        "'=bad.jpg,,,,,,,,,,,,,,,,,,,bad.jpg: not a supported image",
        '',
      ].join('\n'),
    );
  });

  it("takes the cm columns and a front end's extra columns (after image and fruit) from the caller", () => {
    const csv = measureTableCsv(items.slice(0, 1), {
      features: ['area'],
      scaled: ['area_cm2', 'perimeter_cm'],
      extra: [['treatment', (r) => (r.item.image_name === 'a.jpg' ? 'hot water' : null)]],
    });
    const [header, first] = csv.trim().split('\n');
    expect(header.split(',').slice(0, 4)).toEqual(['image', 'fruit', 'treatment', 'bbox_x']);
    expect(header.split(',').slice(-2)).toEqual(['area_cm2', 'perimeter_cm']);
    expect(first.split(',').slice(0, 3)).toEqual(['a.jpg', '1', 'hot water']);
    expect(first.split(',').at(-1)).toBe('');
  });

  it('has the grade columns when the fruit were graded, and the metadata last (before error), repeated on each fruit row', () => {
    const [a, empty, bad] = items;
    const graded: FeatureResultItem[] = [
      {
        ...a,
        meta: { day: '3', tray: 'T1' },
        fruits: a.fruits!.map((f, i) => ({ ...f, grade: i ? 'B' : 'A', grade_accepted: true, size_group: null })),
      },
      { ...empty, meta: { day: null, tray: 'T2' } },
      { ...bad, meta: { day: '4', tray: null } },
    ];
    const [header, ...rows] = measureTableCsv(graded, { features: ['area'] })
      .trim()
      .split('\n');
    const cols = header.split(',');
    expect(cols.slice(cols.indexOf('colour_difference') + 1, cols.indexOf('px_per_cm'))).toEqual([
      'grade',
      'size_group',
      'weight_g',
      'size_source',
    ]);
    expect(cols.slice(-3)).toEqual(['day', 'tray', 'error']);
    const cell = (row: string, name: string) => row.split(',')[cols.indexOf(name)];
    expect(rows.map((r) => [cell(r, 'fruit'), cell(r, 'grade'), cell(r, 'day'), cell(r, 'tray')])).toEqual([
      ['1', 'A', '3', 'T1'],
      ['2', 'B', '3', 'T1'],
      ['', '', '', 'T2'],
      ['', '', '4', ''],
    ]);
    // ungraded: no grade columns
    expect(measureTableCsv(items, { features: ['area'] }).split('\n')[0]).not.toMatch(/grade/);
  });
});

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
