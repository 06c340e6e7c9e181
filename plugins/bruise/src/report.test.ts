import { describe, expect, it } from 'vitest';
import { reportHtml, reportWithPlots } from './report.ts';
import { makeProvenance, RESULTS_SCHEMA, type ResultsFile } from '@mango/core/results';
import { type BruiseFigures } from './results.ts';
import { BRUISE_PLOTS } from './plots.ts';

const fruit = (pct: number, extra: Partial<BruiseFigures['fruits'][number]> = {}) => ({
  bbox: { x: 0, y: 0, width: 40, height: 30 },
  pixels: 1000,
  bruise_pixels: pct * 10,
  bruise_percent: pct,
  lesion_count: pct > 0 ? 1 : 0,
  colour_difference: null,
  ...extra,
});

function file(
  photos: { name: string; fruits: BruiseFigures['fruits']; extra?: Partial<BruiseFigures> }[],
): ResultsFile {
  return {
    schema: RESULTS_SCHEMA,
    provenance: makeProvenance({
      app_version: '0.1.0',
      source: 'cli',
      run_id: null,
      operation: 'bruise',
      method: 'classical',
      options: {},
      created_at: '2026-11-25T20:00:00.000Z',
      inputs: photos.map((p) => ({ filename: p.name, sha256: 'a'.repeat(64) })),
    }),
    photos: photos.map((p) => ({
      filename: p.name,
      sha256: 'a'.repeat(64),
      width: 640,
      height: 480,
      overlay_thumbnail: null,
      result: {
        filename: p.name,
        total_mango_pixels: 1000 * p.fruits.length,
        bruise_percent: p.fruits[0]?.bruise_percent ?? 0,
        non_bruise_percent: 100 - (p.fruits[0]?.bruise_percent ?? 0),
        bruise_pixels: p.fruits.reduce((a, f) => a + f.bruise_pixels, 0),
        fruits: p.fruits,
        colour_difference: null,
        severity: null,
        method: 'classical',
        version: '0.1.0',
        width: 640,
        height: 480,
        elapsed_ms: 5,
        ...p.extra,
      },
    })),
  };
}

/** The cells of the report's per-fruit table, row by row (header first). */
function fruitTable(html: string): string[][] {
  const table = html.match(/<table class="fruit">(.*?)<\/table>/s)?.[1] ?? '';
  return [...table.matchAll(/<tr>(.*?)<\/tr>/gs)].map((r) =>
    [...r[1].matchAll(/<t[hd][^>]*>(.*?)<\/t[hd]>/gs)].map((c) => c[1]),
  );
}

describe('run report: per-fruit table', () => {
  it('lists every fruit with its bruise %, and no area or grade columns when the run had neither', () => {
    const html = reportHtml(
      file([
        { name: 'a.jpg', fruits: [fruit(12.5), fruit(0)] },
        { name: 'b.jpg', fruits: [] },
      ]),
    );
    expect(fruitTable(html)).toEqual([
      ['Photo', 'Fruit', 'Fruit pixels', 'Bruise %', 'Lesions'],
      ['a.jpg', '1', '1000', '12.50', '1'],
      ['a.jpg', '2', '1000', '0.00', '0'],
    ]);
    expect(html).not.toContain('Lot (');
  });

  it('adds the areas in cm² and the grades with the lot summary when the run had a scale and grade rules', () => {
    const graded = (pct: number, cm2: number, grade: string, accepted: boolean) =>
      fruit(pct, { area_cm2: 200, bruise_area_cm2: cm2, grade, grade_accepted: accepted });
    const html = reportHtml(
      file([
        {
          name: '<x>.jpg',
          fruits: [graded(0.5, 1, 'extra', true), graded(3, 6, 'reject', false)],
          extra: { px_per_cm: 30, grades: 'codex-mango' },
        },
        { name: 'c.jpg', fruits: [graded(1.5, 3, 'class-i', true)], extra: { px_per_cm: 30, grades: 'codex-mango' } },
      ]),
    );
    expect(fruitTable(html)).toEqual([
      ['Photo', 'Fruit', 'Fruit pixels', 'Bruise %', 'Lesions', 'Fruit cm²', 'Bruise cm²', 'Grade'],
      ['&lt;x&gt;.jpg', '1', '1000', '0.50', '1', '200.00', '1.00', 'extra'],
      ['&lt;x&gt;.jpg', '2', '1000', '3.00', '1', '200.00', '6.00', 'reject (not accepted)'],
      ['c.jpg', '1', '1000', '1.50', '1', '200.00', '3.00', 'class-i'],
    ]);
    expect(html).toContain('<h3>Lot (codex-mango): 3 of 3 fruit graded</h3>');
    expect(html).toContain('<tr><th>Accepted</th><td class="num">2 (66.7 %)</td></tr>');
    expect(html).toContain('<tr><th>reject (not accepted)</th><td class="num">1</td></tr>');
  });
});

describe('run report: plots', () => {
  /** Rows of the group table under a box plot: [group, n, mean, interval]. */
  const groupRows = (html: string) =>
    [
      ...(html.match(/<table class="groups">.*?<tbody>(.*?)<\/tbody>/s)?.[1] ?? '').matchAll(
        /<tr><th>(.*?)<\/th>(.*?)<\/tr>/gs,
      ),
    ].map((r) => [r[1], ...[...r[2].matchAll(/<td class="num">(.*?)<\/td>/g)].slice(0, 3).map((c) => c[1])]);

  it('draws bruise % by each metadata column with n, mean and 95 % interval, the time series and the scatter as inline SVG', async () => {
    const f = file([
      { name: 'a.jpg', fruits: [fruit(2)] },
      { name: 'b.jpg', fruits: [fruit(4)] },
      { name: 'c.jpg', fruits: [fruit(9)] },
      { name: 'd.jpg', fruits: [fruit(1)] },
    ]);
    const meta = [
      { treatment: 'hot', day: '0' },
      { treatment: 'hot', day: '3' },
      { treatment: 'cold', day: '3' },
      { treatment: null, day: '0' },
    ];
    f.photos.forEach((p, i) => (p.meta = meta[i]));
    const html = await reportWithPlots(f);
    expect(html).toContain('<h2>Plots</h2>');
    // hot: 2 and 4 (mean 3, sd sqrt(2), t(0.975, 1) = 12.706205): 3 ± 12.706205, clipped at 0 (a bruise % is never below)
    expect(groupRows(html)).toEqual([
      ['cold', '1', '9.00', '–'],
      ['hot', '2', '3.00', `0.00 to ${(3 + 12.706205).toFixed(2)}`],
      ['(none)', '1', '1.00', '–'],
    ]);
    expect(html.match(/<svg role="img"/g)).toHaveLength(3);
    expect(html).toContain('<title id="plot-groups-0-title">Bruise % by treatment</title>');
    expect(html).toContain('<title id="plot-time-title">Mean bruise % over day, per group</title>');
    expect(html).toContain('lesion area (pixels)');
    expect(html).not.toMatch(/<script|https?:\/\//);
  });

  it('without metadata: one box plot of all photos and the scatter; the plain report has no plots', async () => {
    const f = file([
      { name: 'a.jpg', fruits: [fruit(2)] },
      { name: 'b.jpg', fruits: [fruit(6)] },
    ]);
    const html = await reportWithPlots(f);
    expect(groupRows(html)).toEqual([
      // 4 ± 12.706205 · 2: -21.41 to 29.41 as a t interval, shown from 0
      ['all photos', '2', '4.00', `0.00 to ${(4 + 12.706205 * 2).toFixed(2)}`],
    ]);
    expect(html).toContain('Bruise % of the photos');
    expect(html.match(/<svg role="img"/g)).toHaveLength(2);
    expect(reportHtml(f)).not.toContain('<h2>Plots</h2>');
  });
});

describe('photo-quality section of the report', () => {
  const flag = (id: string, message: string) => ({ id, message, value: 0.3, threshold: 0.1 });
  it('lists each flag with its reason, value and threshold, escaped; counts the photos that passed', () => {
    const html = reportHtml(
      file([
        { name: 'ok.jpg', fruits: [fruit(1)], extra: { quality: { flags: [] } } },
        {
          name: 'bright.jpg',
          fruits: [fruit(2)],
          extra: { quality: { flags: [flag('overexposed', 'over-exposed: 30 % <clipped> & more')] } },
        },
      ]),
    );
    expect(html).toContain('<h2>Photo quality</h2>');
    expect(html).toContain('1 of 2 photo(s) passed every check; 1 flagged.');
    expect(html).toContain(
      '<tr><td>bright.jpg</td><td><span class="flag">overexposed</span></td><td>over-exposed: 30 % &lt;clipped&gt; &amp; more</td><td class="num">0.3</td><td class="num">0.1</td></tr>',
    );
  });
  it('says so when the results hold no checks (made before them)', () => {
    expect(reportHtml(file([{ name: 'old.jpg', fruits: [fruit(1)] }]))).toContain(
      'These results hold no photo-quality checks.',
    );
  });
});

/** Every figure of a report's tables: the text of each numeric cell, its numbers in order (words left out). */
const tableNumbers = (html: string) =>
  [...html.matchAll(/<td class="num">(.*?)<\/td>/gs)].map((c) => c[1].match(/-?\d+(?:\.\d+)?/g)?.join(' ') ?? '');

describe('the reports in Thai (issue 27: every page is English and Thai)', () => {
  const graded = (pct: number, grade: string, accepted: boolean) =>
    fruit(pct, { area_cm2: 200, bruise_area_cm2: pct * 2, grade, grade_accepted: accepted });
  /** A graded run with metadata, a quality flag and a group of bruise % near 0 (its interval clipped). */
  const trial = () => {
    const f = file([
      { name: 'a.jpg', fruits: [graded(0, 'extra', true)], extra: { px_per_cm: 30, grades: 'codex-mango' } },
      { name: 'b.jpg', fruits: [graded(0, 'extra', true)], extra: { px_per_cm: 30, grades: 'codex-mango' } },
      {
        name: 'c.jpg',
        fruits: [graded(0.2, 'extra', true)],
        extra: {
          px_per_cm: 30,
          grades: 'codex-mango',
          quality: { flags: [{ id: 'blur', message: 'blurred', value: 0.3, threshold: 0.1 }] },
        },
      },
      { name: 'd.jpg', fruits: [graded(12, 'reject', false)], extra: { px_per_cm: 30, grades: 'codex-mango' } },
      { name: 'e.jpg', fruits: [graded(30, 'reject', false)], extra: { px_per_cm: 30, grades: 'codex-mango' } },
    ]);
    const meta = [
      { trt: 'cold', day: '1', fruit_id: 'f1' },
      { trt: 'cold', day: '1', fruit_id: 'f2' },
      { trt: 'cold', day: '1', fruit_id: 'f3' },
      { trt: 'hot', day: '3', fruit_id: 'f1' },
      { trt: 'hot', day: '3', fruit_id: 'f2' },
    ];
    f.photos.forEach((p, i) => (p.meta = meta[i]));
    return f;
  };

  it('a run report: Thai headings, the Thai webfont, and the same figures as the English one', async () => {
    const f = trial();
    const [en, th] = [await reportWithPlots(f), await reportWithPlots(f, { lang: 'th' })];
    expect(en).toContain('<html lang="en">');
    expect(en).not.toContain('@font-face');
    expect(th).toContain('<html lang="th">');
    for (const heading of ['สรุป', 'ฮิสโทแกรมของ % รอยช้ำ', 'แผนภูมิ', 'รูปภาพ', 'คุณภาพภาพถ่าย', 'ผล', 'ภาพซ้อน', 'ที่มาของข้อมูล'])
      expect(th).toContain(`<h2>${heading}</h2>`);
    expect(th).toContain('<h1>รายงานรอยช้ำ</h1>');
    expect(th).toContain('<h3>ล็อต (codex-mango): ให้เกรดแล้ว 5 จาก 5 ผล</h3>');
    // the charts' titles and the method note are Thai too
    expect(th).toContain('% รอยช้ำตาม trt</title>');
    expect(th).toContain('ตัดให้อยู่ในช่วงที่ค่านั้นเป็นไปได้ (0 ถึง 100)');
    // the Thai subset of Sarabun, embedded, and allowed by the page's policy
    expect(th).toMatch(/@font-face\{font-family:Sarabun;[^}]*src:url\(data:font\/woff2;base64,d09GMg/);
    expect(th).toContain('font-src data:');
    expect(th).not.toMatch(/<script|https?:\/\/(?!www\.w3\.org)/);
    // the same figures, cell by cell (a range is "a to b" in English, "a ถึง b" in Thai)
    const numbers = tableNumbers(en);
    expect(numbers.length).toBeGreaterThan(40);
    expect(tableNumbers(th)).toEqual(numbers);
    // and the interval of cold (0, 0, 0.2) starts at 0, not at -0.22
    expect(th).toContain('<td class="num">0.00 ถึง 0.35</td>');
    expect(en).toContain('<td class="num">0.00 to 0.35</td>');
    // a quality flag's reason: the plugin's own message in English, its Thai sentence with the same figures
    expect(en).toContain('<td>blurred</td>');
    expect(th).toContain('<td>ภาพไม่ชัด: ขอบของผลเบลอเป็นระยะ 30 % ของเส้นผ่านศูนย์กลาง (เกณฑ์ 10 %)</td>');
    expect(th).not.toContain('<td>blurred</td>');
  });

  it('a series report: Thai headings and the same figures as the English one; intervals clipped to 0..100', async () => {
    const { seriesReportHtml } = await import('@mango/core/series-report');
    const f = trial();
    const runs = [
      { id: 'day1', created_at: '2026-11-20T08:00:00.000Z', items: f.photos.slice(0, 3) },
      { id: 'day3', created_at: '2026-11-22T08:00:00.000Z', items: f.photos.slice(3) },
    ];
    const at = { created_at: '2026-11-27T00:00:00.000Z' };
    const en = await seriesReportHtml(runs, BRUISE_PLOTS, at);
    const th = await seriesReportHtml(runs, BRUISE_PLOTS, { ...at, lang: 'th' });
    expect(en).toContain('<h1>Series report – 2 runs</h1>');
    expect(th).toContain('<h1>รายงานอนุกรม – 2 ผลการประมวลผล</h1>');
    for (const heading of ['ผลการประมวลผล', 'อนุกรม', 'จุดของอนุกรม', 'แถวข้อมูล'])
      expect(th).toContain(`<h2>${heading}</h2>`);
    expect(th).toContain('<th class="num">ช่วงความเชื่อมั่น 95 % ของค่าเฉลี่ย</th>');
    expect(th).toContain('% รอยช้ำตาม day รายผล</title>');
    expect(th).toMatch(/@font-face\{font-family:Sarabun;/);
    const numbers = tableNumbers(en);
    expect(numbers.length).toBeGreaterThan(20);
    expect(tableNumbers(th)).toEqual(numbers);
    // day1's photos are 0, 0, 0.2: the t interval -0.22 to 0.35 is shown from 0
    expect(en).toMatch(/<tr data-run="day1">.*?<td class="num">0\.00 to 0\.35<\/td>/);
    expect(en).toContain('clipped to the figure’s range (0 to 100)');
    expect(numbers.join(' ')).not.toMatch(/(^| )-\d/);
  });
});
