/** The bruise plugin's tables: per fruit, per image (a failed photo with its error), data.csv. */
import { describe, expect, it } from 'vitest';
import { dataCsv, fruitTableCsv, imageTableCsv, scaleStatusOf } from './tables.ts';
import { type BruiseFigures } from './results.ts';

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
