/**
 * The feature plugin's tables: the per-fruit measurement table, and the photos' metadata as columns
 * of every table (the bruise plugin's too).
 */
import { describe, expect, it } from 'vitest';
import { fruitTableCsv, imageTableCsv } from '@mango/plugin-bruise/tables';
import { featureTableCsv, measureTableCsv } from './tables.ts';
import { type BruiseFigures } from '@mango/plugin-bruise/results';
import { type FeatureResultItem } from './results.ts';

describe('the per-fruit measurement table', () => {
  /** Fruit n: at x = 10 n, n % bruised (its colour difference unknown for the first). */
  const measured = (n: number, area: number, scaled?: Record<string, number>) => ({
    bbox: { x: 10 * n, y: 5, width: 40, height: 30 },
    pixels: 1000,
    bruise_pixels: n * 10,
    bruise_percent: n,
    lesion_count: 1,
    colour_difference: n === 1 ? null : 2.5,
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

describe('metadata columns of the tables', () => {
  const fruit = { bbox: { x: 0, y: 0, width: 4, height: 3 }, pixels: 10, bruise_pixels: 1, bruise_percent: 10 };
  const item = (filename: string, meta?: Record<string, string | null>): BruiseFigures =>
    ({
      filename,
      total_mango_pixels: 20,
      bruise_pixels: 2,
      bruise_percent: 10,
      non_bruise_percent: 90,
      fruits: [
        { ...fruit, lesion_count: 1 },
        { ...fruit, lesion_count: 0 },
      ],
      severity: null,
      method: 'classical',
      version: '1',
      width: 4,
      height: 3,
      elapsed_ms: 1,
      ...(meta ? { meta } : {}),
    }) as BruiseFigures;

  it("repeats a photo's metadata on each of its fruit rows, after the table's own columns", () => {
    const lines = fruitTableCsv([
      item('a.jpg', { cultivar: 'keitt', day: '3' }),
      item('b.jpg', { cultivar: null, day: null }),
    ])
      .trim()
      .split('\n');
    expect(lines[0].endsWith(',size_source,scale_status,cultivar,day')).toBe(true);
    expect(lines.slice(1).map((l) => l.split(',').slice(-2).join(','))).toEqual(['keitt,3', 'keitt,3', ',', ',']);
    const images = imageTableCsv([item('a.jpg', { cultivar: 'keitt', day: '3' })])
      .trim()
      .split('\n');
    expect(images[0].endsWith(',scale_status,scale_source,quality,error,cultivar,day')).toBe(true);
    expect(images[1].endsWith(',keitt,3')).toBe(true);
  });

  it('adds no column without metadata, and metadata to the feature table before its error column', () => {
    expect(
      fruitTableCsv([item('a.jpg')])
        .split('\n')[0]
        .endsWith(',size_source,scale_status'),
    ).toBe(true);
    const csv = featureTableCsv([
      { image_name: 'a.jpg', features: { rgb: { mean_R: 1 } }, meta: { day: '=3' } },
      { image_name: 'b.jpg', error: 'bad', meta: { day: null } },
    ]);
    // a metadata value is text: one a spreadsheet would run is neutralised like any other
    expect(csv).toBe("Image,mean_R,day,error\na.jpg,1,'=3,\nb.jpg,,,bad\n");
  });
});
