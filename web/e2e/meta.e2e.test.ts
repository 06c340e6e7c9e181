/**
 * The upload pages' experiment-metadata fields (issue 27 item 1), in a real browser against a real
 * server: a file name pattern on the bruise page and a metadata CSV on the analysis page reach the
 * stored run (each item's `meta`, the run's provenance) and the exported tables; the fields in Thai.
 * The results pages show them (items 1 and 3): the metadata as columns of /showarea/accuracy, facts of
 * /viewphoto/result and columns of the stored run; an analysis per fruit (the analysis page's option)
 * lists each fruit's values on /analysis/result and on its stored run, in cm / cm² with a scale.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import { encodeImage } from '@mango/core/node';
import { bruisedPairScene } from '@mango/core/testing';
import { signInViaApi, startE2E, type E2E } from './harness.ts';

const PATTERN = 'cv-{cultivar}_day{day}_trt-{treatment}_fruit{fruit_id}';
const NAMES = ['cv-keitt_day02_trt-wax_fruit8.png', 'cv-keitt_day06_trt-wax_fruit8.png'];
const ODD = 'IMG_0003.png';

const META_NAMES = ['cultivar', 'day', 'treatment', 'fruit_id'];
const META_VALUES = [
  ['keitt', '02', 'wax', '8'],
  ['keitt', '06', 'wax', '8'],
];

interface Fruit {
  fruit: number;
  features: Record<string, Record<string, number>>;
  scaled?: Record<string, number>;
}
interface Run {
  id: string;
  options?: Record<string, unknown>;
  meta?: { pattern: string | null; csv_sha256: string | null; names: string[] };
  items: { filename: string; meta?: Record<string, string | null>; result: { fruits?: Fruit[] } }[];
}

/** The texts of a table's header cells and of each body row's cells. */
async function tableText(page: Page, label: string) {
  const table = page.getByRole('table', { name: label });
  await table.waitFor();
  const head = await table.locator('thead th').allInnerTexts();
  const rows = await table
    .locator('tbody tr')
    .evaluateAll((trs) => trs.map((tr) => [...tr.querySelectorAll('th, td')].map((c) => (c as HTMLElement).innerText)));
  return { head: head.map((h) => h.trim()), rows: rows.map((r) => r.map((c) => c.trim())) };
}

describe('experiment metadata on the upload pages', () => {
  let e2e: E2E;
  let token = '';
  let dir: string;
  let photos: string[];
  beforeAll(async () => {
    e2e = await startE2E();
    token = (await signInViaApi(e2e)).tokens.accessToken;
    dir = mkdtempSync(join(tmpdir(), 'mango-e2e-meta-'));
    const png = await encodeImage(bruisedPairScene().image, 'png');
    photos = NAMES.map((n) => join(dir, n));
    for (const p of photos) writeFileSync(p, png);
  });
  afterAll(async () => {
    await e2e?.close();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  const api = async <T>(path: string) =>
    (await (await fetch(e2e.url(path), { headers: { Authorization: `Bearer ${token}` } })).json()) as T;
  const newestRun = async (operation: string) => {
    const page = await api<{ runs: { id: string }[] }>(`/api-node/runs?operation=${operation}&limit=1`);
    return api<Run>(`/api-node/runs/${page.runs[0].id}`);
  };

  it('bruise page: the pattern goes with the photos; the stored run and its per-fruit table carry the metadata', async () => {
    const { page, alerts } = e2e;
    const odd = join(dir, ODD);
    writeFileSync(odd, await encodeImage(bruisedPairScene().image, 'png'));
    await page.goto(e2e.url('/bruise'));
    await page.getByRole('group', { name: 'Experiment metadata (optional)' }).waitFor();
    await page.getByLabel('File name pattern').fill(PATTERN);
    await page.getByTestId('file-input').setInputFiles([...photos, odd]);
    await page.getByRole('button', { name: 'Process' }).click();
    await page.getByRole('dialog').getByRole('button', { name: 'Confirm' }).click();
    await page.waitForURL('**/showarea/accuracy', { timeout: 90_000 });
    expect(alerts.at(-1)).toBe(
      '1 of 3 photos got no metadata from their names (the pattern did not match or the CSV has no row for them): those cells are empty.',
    );

    const run = await newestRun('bruise');
    expect(run.meta).toEqual({
      pattern: PATTERN,
      csv_sha256: null,
      names: ['cultivar', 'day', 'treatment', 'fruit_id'],
    });
    expect(run.items.map((i) => [i.filename, i.meta?.day, i.meta?.fruit_id])).toEqual([
      [NAMES[0], '02', '8'],
      [NAMES[1], '06', '8'],
      [ODD, null, null],
    ]);
    const res = await fetch(e2e.url(`/api-node/runs/${run.id}/export?format=csv&table=fruits`), {
      headers: { Authorization: `Bearer ${token}` },
    });
    const [header, ...lines] = (await res.text()).trim().split('\n');
    expect(header.endsWith(',cultivar,day,treatment,fruit_id')).toBe(true);
    expect(lines.length).toBeGreaterThanOrEqual(6);
    const named = lines.filter((l) => !l.startsWith(ODD));
    expect(named.length).toBeGreaterThanOrEqual(4);
    expect(named.every((l) => /,keitt,0[26],wax,8$/.test(l))).toBe(true);
    expect(lines.filter((l) => l.startsWith(ODD)).every((l) => l.endsWith(',,,,'))).toBe(true);
  });

  it('analysis page: a metadata CSV joined by file name; the fields read in Thai', async () => {
    const { page } = e2e;
    const csv = join(dir, 'meta.csv');
    writeFileSync(csv, `image,block\n${NAMES[0]},B1\n${NAMES[1]},B2\n`);
    await page.goto(e2e.url('/analysis'));
    await page.getByLabel('RGB Color Space').check();
    await page.getByTestId('file-input').setInputFiles(photos);
    await page.getByLabel('or a CSV file with an image column').setInputFiles(csv);
    await page.getByRole('button', { name: 'Analyze' }).click();
    await page.waitForURL('**/analysis/result', { timeout: 60_000 });
    const run = await newestRun('analyze');
    expect(run.items.map((i) => i.meta)).toEqual([{ block: 'B1' }, { block: 'B2' }]);
    expect(run.meta?.csv_sha256).toMatch(/^[0-9a-f]{64}$/);

    await page.evaluate(() => localStorage.setItem('language', 'th'));
    await page.goto(e2e.url('/bruise'));
    await page.getByRole('group', { name: 'ข้อมูลการทดลอง (ไม่บังคับ)' }).waitFor();
    expect(await page.getByLabel('รูปแบบชื่อไฟล์').getAttribute('placeholder')).toBe(`เช่น ${PATTERN}`);
    await page.evaluate(() => localStorage.setItem('language', 'en'));
  });

  /** a value as the tables show it (4 decimals). */
  const shown = (v: number) => v.toFixed(4);

  it('bruise: the parsed metadata are columns of the results table and the stored run, facts of the photo page', async () => {
    const { page } = e2e;
    await page.goto(e2e.url('/bruise'));
    await page.getByLabel('File name pattern').fill(PATTERN);
    await page.getByTestId('file-input').setInputFiles(photos);
    await page.getByRole('button', { name: 'Process' }).click();
    await page.getByRole('dialog').getByRole('button', { name: 'Confirm' }).click();
    await page.waitForURL('**/showarea/accuracy', { timeout: 90_000 });

    const results = await tableText(page, 'Bruised area results');
    expect(results.head).toEqual([
      'Filename',
      'Total Mango Pixels',
      'Bruise %',
      'Non-Bruise %',
      ...META_NAMES,
      'Actions',
    ]);
    expect(results.rows.map((r) => [r[0], ...r.slice(4, 8)])).toEqual([
      [NAMES[0], ...META_VALUES[0]],
      [NAMES[1], ...META_VALUES[1]],
    ]);

    await page.getByRole('button', { name: NAMES[1], exact: true }).click();
    await page.waitForURL('**/viewphoto/result');
    await page.getByTestId('meta-value').first().waitFor();
    expect(await page.getByTestId('meta-value').allInnerTexts()).toEqual(META_VALUES[1]);
    const facts = await page.getByRole('definition').allInnerTexts();
    expect(facts).toEqual(expect.arrayContaining(META_VALUES[1]));

    const run = await newestRun('bruise');
    await page.goto(e2e.url(`/results/${run.id}`));
    const stored = await tableText(page, 'Photos of the run');
    expect(stored.head.slice(-4)).toEqual(META_NAMES);
    expect(stored.rows.map((r) => [r[1], ...r.slice(-4)])).toEqual([
      [NAMES[0], ...META_VALUES[0]],
      [NAMES[1], ...META_VALUES[1]],
    ]);
  });

  it('analysis per fruit: one row per fruit with its values and metadata, on the results page and the stored run', async () => {
    const { page } = e2e;
    await page.goto(e2e.url('/analysis'));
    await page.getByRole('tab', { name: 'Shape' }).click();
    await page.locator('input[data-feature="area"]').check();
    await page.getByTestId('file-input').setInputFiles(photos);
    await page.getByLabel('Also measure each fruit on its own (one row per fruit)').check();
    await page.getByLabel('File name pattern').fill(PATTERN);
    await page.getByRole('button', { name: 'Analyze' }).click();
    await page.waitForURL('**/analysis/result', { timeout: 90_000 });

    const run = await newestRun('analyze');
    const fruits = run.items.map((i) => i.result.fruits ?? []);
    expect(fruits.map((f) => f.map((x) => x.fruit))).toEqual([
      [1, 2],
      [1, 2],
    ]);
    const areaNames = Object.keys(fruits[0][0].features.area);
    const expected = run.items.flatMap((item, i) =>
      fruits[i].map((f) => [
        item.filename,
        String(f.fruit),
        ...META_VALUES[i],
        ...areaNames.map((n) => shown(f.features.area[n])),
      ]),
    );
    const onPage = await tableText(page, 'Features per fruit');
    expect(onPage.head).toEqual(['Image', 'Fruit', ...META_NAMES, ...areaNames]);
    expect(onPage.rows).toEqual(expected);
    // each fruit is measured on its own: not the photo's whole-image area
    const perImage = await tableText(page, 'Feature analysis results');
    expect(perImage.head.slice(1, 5)).toEqual(META_NAMES);
    const area = areaNames.indexOf('area');
    expect(Number(onPage.rows[0][6 + area])).toBeLessThan(Number(perImage.rows[0][5 + area]));

    await page.goto(e2e.url(`/results/${run.id}`));
    const stored = await tableText(page, 'Features per fruit');
    expect(stored).toEqual(onPage);
  });

  it('a per-fruit analysis with a scale typed on the analysis page: lengths and areas in cm and cm²', async () => {
    const { page } = e2e;
    await page.goto(e2e.url('/analysis'));
    await page.getByRole('tab', { name: 'Shape' }).click();
    await page.locator('input[data-feature="area"]').check();
    await page.locator('input[data-feature="perimeter"]').check();
    await page.getByTestId('file-input').setInputFiles([photos[0]]);
    // the scale fields show with per-fruit rows (a whole photo's values have no cm)
    expect(await page.getByLabel('or pixels per cm').count()).toBe(0);
    await page.getByLabel('Also measure each fruit on its own (one row per fruit)').check();
    await page.getByLabel('or pixels per cm').fill('20');
    await page.getByRole('button', { name: 'Analyze' }).click();
    await page.waitForURL('**/analysis/result', { timeout: 90_000 });
    const run = await newestRun('analyze');
    expect(run.options).toMatchObject({ perFruit: true, pxPerCm: 20 });
    const item = { fruits: run.items[0].result.fruits as Fruit[] };
    // on the results page and on the stored run alike
    const onPage = await tableText(page, 'Features per fruit');
    await page.goto(e2e.url(`/results/${run.id}`));
    const table = await tableText(page, 'Features per fruit');
    expect(table).toEqual(onPage);
    const col = (name: string) => table.head.indexOf(name);
    expect(col('area (cm²)')).toBeGreaterThan(col('area'));
    expect(col('perimeter (cm)')).toBeGreaterThan(col('perimeter'));
    for (const [k, f] of item.fruits.entries()) {
      expect(table.rows[k][col('area')]).toBe(shown(f.features.area.area));
      expect(table.rows[k][col('area (cm²)')]).toBe(shown(f.features.area.area / 400));
      expect(table.rows[k][col('perimeter (cm)')]).toBe(shown(f.features.perimeter.perimeter / 20));
    }
  });
});
