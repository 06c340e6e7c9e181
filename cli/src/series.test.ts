/**
 * `mango series` (issue 27 item 1: a fruit_id followed over runs), through the built command: a
 * shelf-life trial's day 0 and day 3 scored as two `mango bruise --meta ... --out results.json` runs,
 * stacked into one CSV with their run, each row's bruise % the one its results file holds, and the
 * chart per fruit_id as SVG, and the series report (HTML) with its runs' means, in English and (`--lang th`) Thai;
 * a file that is not a results file is a usage error with nothing on stdout.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parse } from 'csv-parse/sync';
import { encodeImage } from '@mango/core/node';
import { lesionScene } from '@mango/core/testing';
import type { ResultsFile } from '@mango/core/results';
import { mango } from './testing.ts';

/** [fruit_id, lesion radius on day 0, on day 3] */
const FRUIT: [string, number, number][] = [
  ['A', 4, 16],
  ['B', 10, 24],
];

describe('mango series', () => {
  let dir: string;
  const results: string[] = [];
  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'mango-cli-series-'));
    for (const day of [0, 3]) {
      const photos = join(dir, `day${day}`);
      mkdirSync(photos);
      for (const [id, r0, r3] of FRUIT) {
        const r = day === 0 ? r0 : r3;
        writeFileSync(join(photos, `fruit${id}_day${day}.png`), await encodeImage(lesionScene(r, r + 1).image, 'png'));
      }
      const out = join(dir, `day${day}.json`);
      const r = await mango(['bruise', photos, '--meta', 'fruit{fruit_id}_day{day}', '--out', out]);
      expect(r.code, r.stderr).toBe(0);
      results.push(out);
    }
  }, 120_000);
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('stacks the runs with their run column and draws one line per fruit_id', async () => {
    const csvFile = join(dir, 'series.csv');
    const svgFile = join(dir, 'series.svg');
    const r = await mango(['series', ...results, '--out', csvFile, '--svg', svgFile]);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toBe('');
    expect(r.stderr).toContain(`4 photo(s) of 2 run(s) over day: ${csvFile}, chart: ${svgFile}`);
    const text = readFileSync(csvFile, 'utf8');
    expect(text.split('\n')[0]).toBe('run,run_date,image,bruise_percent,fruit_id,day');
    const rows = parse(text, { columns: true }) as Record<string, string>[];
    // each row is its results file's photo (a CLI run has no id: the file's name is its run)
    const expected = results.flatMap((file, i) => {
      const { provenance, photos } = JSON.parse(readFileSync(file, 'utf8')) as ResultsFile;
      return photos.map((p) => [
        `day${i * 3}`,
        provenance.created_at,
        p.filename,
        (p.result as { bruise_percent: number }).bruise_percent,
        p.meta?.fruit_id,
        String(i * 3),
      ]);
    });
    expect(
      rows.map((row) => [row.run, row.run_date, row.image, Number(row.bruise_percent), row.fruit_id, row.day]),
    ).toEqual(expected);
    expect(rows.map((row) => row.fruit_id)).toEqual(['A', 'B', 'A', 'B']);
    const svg = readFileSync(svgFile, 'utf8');
    expect(svg).toContain('<title id="time-title">Bruise % over day, per fruit</title>');
    expect(svg.match(/aria-roledescription="line mark"/g)).toHaveLength(FRUIT.length);
    expect(svg.match(/aria-roledescription="point"/g)).toHaveLength(4);

    // without --out the CSV is the standard output
    const piped = await mango(['series', ...results]);
    expect(piped.code).toBe(0);
    expect(piped.stdout).toBe(text);
  });

  it('writes the series report: the chart per fruit_id, a row per run with its mean, every stacked row', async () => {
    const reportFile = join(dir, 'series.html');
    const r = await mango(['series', ...results, '--out', join(dir, 'r.csv'), '--report', reportFile]);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toContain(`, report: ${reportFile}`);
    const html = readFileSync(reportFile, 'utf8');
    expect(html).toContain('<title>Series report – 2 runs</title>');
    // self-contained: no script, nothing loaded from anywhere
    expect(html).not.toMatch(/<script|https?:\/\/(?!www\.w3\.org)|src="(?!data:)/);
    // one chart (no metadata column to colour by): one line per fruit through its two days
    expect(html.match(/aria-roledescription="line mark"/g)).toHaveLength(FRUIT.length);
    expect(html.match(/aria-roledescription="point"/g)).toHaveLength(4);
    // each run's row: its id (the file's name), its photos and the mean of its results file's bruise %
    for (const [i, file] of results.entries()) {
      const { photos } = JSON.parse(readFileSync(file, 'utf8')) as ResultsFile;
      const values = photos.map((p) => (p.result as { bruise_percent: number }).bruise_percent);
      const mean = values.reduce((a, v) => a + v, 0) / values.length;
      const row = html.match(new RegExp(`<tr data-run="day${i * 3}">(.*?)</tr>`))?.[1] ?? '';
      const cells = [...row.matchAll(/<td[^>]*>(.*?)<\/td>/g)].map((m) => m[1].replace(/<[^>]+>/g, ''));
      expect(cells[0]).toBe(`day${i * 3}`);
      expect(cells.slice(2, 5)).toEqual([String(photos.length), String(values.length), mean.toFixed(2)]);
      // each fruit's point at this day is its photo's bruise %
      for (const p of photos) {
        const value = (p.result as { bruise_percent: number }).bruise_percent;
        expect(html).toContain(`data-series="${p.meta?.fruit_id}" data-time="${i * 3}" data-mean="${value}"`);
      }
    }
    expect(html.match(/<tr><td><code>day\d<\/code><\/td><td>fruit/g)).toHaveLength(4);
  });

  it('writes the series report and the run report in Thai with --lang th: the same figures; another language is a usage error', async () => {
    const numbers = (html: string) =>
      [...html.matchAll(/<td class="num">(.*?)<\/td>/g)].map((c) => c[1].match(/[\d.]+/g)?.join(' '));
    const [en, th] = [join(dir, 'series-en.html'), join(dir, 'series-th.html')];
    expect((await mango(['series', ...results, '--out', join(dir, 'en.csv'), '--report', en])).code).toBe(0);
    const r = await mango(['series', ...results, '--out', join(dir, 'th.csv'), '--report', th, '--lang', 'th']);
    expect(r.code, r.stderr).toBe(0);
    const [enHtml, thHtml] = [readFileSync(en, 'utf8'), readFileSync(th, 'utf8')];
    expect(thHtml).toContain('<html lang="th">');
    expect(thHtml).toContain('<title>รายงานอนุกรม – 2 ผลการประมวลผล</title>');
    expect(thHtml).toContain('<h2>จุดของอนุกรม</h2>');
    expect(thHtml).toMatch(/@font-face\{font-family:Sarabun;/);
    expect(numbers(thHtml).length).toBeGreaterThan(10);
    expect(numbers(thHtml)).toEqual(numbers(enHtml));
    // the CSV is the same in both
    expect(readFileSync(join(dir, 'th.csv'), 'utf8')).toBe(readFileSync(join(dir, 'en.csv'), 'utf8'));

    const report = join(dir, 'day0-th.html');
    const rr = await mango(['report', results[0], '--out', report, '--lang', 'th']);
    expect(rr.code, rr.stderr).toBe(0);
    const page = readFileSync(report, 'utf8');
    expect(page).toContain('<h2>สรุป</h2>');
    expect(page).toContain('<h1>รายงานรอยช้ำ</h1>');

    const bad = await mango(['report', results[0], '--out', join(dir, 'x.html'), '--lang', 'de']);
    expect(bad.code).toBe(2);
    expect(bad.stdout).toBe('');
    expect(bad.stderr).toContain("argument 'de' is invalid. Allowed choices are en, th.");
  });

  it('refuses a file that is not a results file, with nothing on stdout', async () => {
    const bad = join(dir, 'bad.json');
    writeFileSync(bad, '{"schema": "something else"}');
    const r = await mango(['series', results[0], bad]);
    expect(r.code).toBe(2);
    expect(r.stdout).toBe('');
    expect(r.stderr).toMatch(/schema/);
  });
});
