import { describe, expect, it } from 'vitest';
import { dataCsv, fruitTableCsv, histogramBins, imageTableCsv, summaryStats, type BruiseFigures } from './results.ts';

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
      'image,fruit,bbox_x,bbox_y,bbox_w,bbox_h,fruit_pixels,bruise_pixels,bruise_percent,lesion_count,fruit_area_cm2,bruise_area_cm2,colour_difference,grade,size_group,weight_g,size_source',
      '"a, ""b"".jpg",1,1,5,40,30,1000,100,10,1,,,21.5,,,,',
      '"a, ""b"".jpg",2,50,5,40,30,1000,0,0,0,,,,,,,',
      'c.png,1,3,5,40,30,1000,40,4,1,,,12,,,,',
      '',
    ]);
  });

  it('writes one row per image; an item stored before colour_difference falls back to severity', () => {
    const old = item('old.png', [fruit(1, 2, null)], { severity: 7.25 });
    delete (old as Partial<BruiseFigures>).colour_difference;
    expect(imageTableCsv([items[1], old]).split('\n')).toEqual([
      'image,fruit_count,fruit_pixels,bruise_pixels,bruise_percent,non_bruise_percent,lesion_count,colour_difference,method,model_id,px_per_cm,fruit_area_cm2,bruise_area_cm2,quality',
      'c.png,1,1000,40,4,96,1,12,classical,,,,,',
      'old.png,1,1000,20,2,98,1,7.25,classical,,,,,',
      '',
    ]);
  });

  it('the quality column holds the ids of the flags a photo raised, joined by ;', () => {
    const flag = (id: string) => ({ id, message: `${id}: why`, value: 1, threshold: 0.5 });
    const flagged = item('f.jpg', [fruit(1, 2, null)], { quality: { flags: [flag('blur'), flag('overexposed')] } });
    const passed = item('p.jpg', [fruit(1, 2, null)], { quality: { flags: [] } });
    const rows = imageTableCsv([flagged, passed]).split('\n');
    expect(rows[1].split(',').at(-1)).toBe('blur;overexposed');
    expect(rows[2].split(',').at(-1)).toBe('');
  });

  it("keeps data.csv's four columns with 2-decimal percentages", () => {
    expect(dataCsv([item('c.png', [fruit(3, 4.126, null)])], { newline: '\r\n', finalNewline: false })).toBe(
      'Filename,Total Mango Pixels,Bruise Percentage,Non-Bruise Percentage\r\nc.png,1000,4.13,95.87',
    );
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
