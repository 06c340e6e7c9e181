/**
 * Plots where people look (issue 27 item 2), in headless Chromium: a stored run with experiment
 * metadata shows bruise % by a metadata column; each group's n and mean read from the chart (its
 * axis labels and the table under it) match the run's exported per-image CSV. PNG and SVG downloads,
 * the time series and the scatter, and the Compare runs page from the results list. Screenshots:
 * /tmp/plots-run.png, /tmp/plots-compare.png, /tmp/plots-run-th.png.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readFileSync } from 'node:fs';
import Papa from 'papaparse';
import { encodeImage } from '@mango/core/node';
import { lesionScene } from '@mango/core/testing';
import { copyRunWithMeta, type PhotoMeta } from '@mango/server/testing';
import { newUser, signInViaApi, startE2E, type E2E } from './harness.ts';

/** Eight photos: two treatments over two days, two fruit followed; one photo without a treatment. */
const PHOTOS: [string, number, PhotoMeta][] = [
  ['t1.png', 0, { treatment: 'hot-water', day: '0', fruit_id: 'F1' }],
  ['t2.png', 12, { treatment: 'hot-water', day: '3', fruit_id: 'F1' }],
  ['t3.png', 8, { treatment: 'hot-water', day: '0', fruit_id: 'F2' }],
  ['t4.png', 20, { treatment: 'hot-water', day: '3', fruit_id: 'F2' }],
  ['t5.png', 16, { treatment: 'control', day: '0', fruit_id: 'F3' }],
  ['t6.png', 30, { treatment: 'control', day: '3', fruit_id: 'F3' }],
  ['t7.png', 36, { treatment: 'control', day: '3', fruit_id: 'F4' }],
  ['t8.png', 24, { treatment: null, day: '3', fruit_id: 'F5' }],
];

describe('Run plots and the compare page', () => {
  let e2e: E2E;
  let token = '';
  let runA = '';
  let runB = '';

  /** Scores the photos over HTTP as a stored run, then stores it again with `meta` on each item. */
  async function runWithMeta(photos: [string, number, PhotoMeta | undefined][]) {
    const fd = new FormData();
    for (const [name, r] of photos)
      fd.append('images', new Blob([(await encodeImage(lesionScene(r, r + 1).image, 'png')) as BlobPart]), name);
    const res = await fetch(e2e.url('/api-py/python/bruise_detection/Classical'), {
      method: 'POST',
      body: fd,
      headers: { Authorization: `Bearer ${token}` },
    });
    expect(res.status).toBe(200);
    const [first] = (await res.json()) as { run_id: string }[];
    const meta = new Map(photos.map(([name, , m]) => [name, m]));
    return copyRunWithMeta(e2e.server.ctx.db, first.run_id, (name) => meta.get(name));
  }

  beforeAll(async () => {
    e2e = await startE2E();
    token = (await signInViaApi(e2e, newUser('plots'))).tokens.accessToken;
    runA = await runWithMeta(PHOTOS);
    runB = await runWithMeta(
      PHOTOS.slice(0, 6).map(([n, r, m]) => [
        n,
        Math.max(0, r - 6),
        { ...m, treatment: m.treatment && `${m.treatment}` },
      ]),
    );
  }, 120_000);
  afterAll(async () => {
    await e2e?.close();
  });

  it("shows each group's n and mean as the exported CSV gives them", async () => {
    const { page } = e2e;
    await page.goto(e2e.url(`/results/${runA}`));
    const groups = page.getByTestId('plot-groups');
    await expect.poll(() => groups.getAttribute('data-state'), { timeout: 30_000 }).toBe('ready');

    // The run's per-image CSV, exported through the page.
    const [download] = await Promise.all([
      page.waitForEvent('download'),
      page.getByRole('button', { name: 'Per-image CSV' }).click(),
    ]);
    const csv = Papa.parse<Record<string, string>>(readFileSync((await download.path())!, 'utf8').trim(), {
      header: true,
    }).data;
    expect(csv).toHaveLength(PHOTOS.length);
    // Each photo's group: the CSV's treatment column once the tables carry metadata, else the photo's metadata.
    const metaOf = new Map(PHOTOS.map(([name, , m]) => [name, m]));
    const groupOfRow = (row: Record<string, string>) =>
      ('treatment' in row ? row.treatment : metaOf.get(row.image)?.treatment) || '(none)';
    const expected = new Map<string, number[]>();
    for (const row of csv)
      expected.set(groupOfRow(row), [...(expected.get(groupOfRow(row)) ?? []), Number(row.bruise_percent)]);
    expect([...expected.keys()].sort()).toEqual(['(none)', 'control', 'hot-water']);

    // From the chart: its x axis names each group with its n ...
    const axisLabels = await groups.locator('svg .role-axis-label text').allTextContents();
    // ... and the table under it gives n and mean.
    const rows = await page.getByTestId('group-row').evaluateAll((trs) =>
      trs.map((tr) => ({
        group: tr.getAttribute('data-group')!,
        n: Number(tr.querySelector('td:nth-of-type(1)')!.textContent),
        mean: Number(tr.querySelector('td:nth-of-type(2)')!.textContent),
      })),
    );
    expect(rows.map((r) => r.group)).toEqual(['control', 'hot-water', '(none)']);
    for (const r of rows) {
      const values = expected.get(r.group)!;
      const mean = values.reduce((a, v) => a + v, 0) / values.length;
      expect(r.n, r.group).toBe(values.length);
      expect(r.mean, r.group).toBeCloseTo(mean, 2);
      expect(axisLabels).toContain(`${r.group} (n = ${values.length})`);
    }
    // the groups differ (the lesions of the control photos are larger)
    expect(rows[0].mean).toBeGreaterThan(rows[1].mean);

    // Accessible: a title on the figure, a description naming every group with its n and mean.
    await expect.poll(() => groups.locator('.plot-canvas').getAttribute('aria-label')).toBe('Bruise % by treatment');
    const description = await groups.getByTestId('plot-description').textContent();
    for (const r of rows) expect(description).toContain(`${r.group}: n = ${r.n}, mean ${r.mean.toFixed(2)} %`);

    // The time series follows each fruit_id; the scatter says its unit (no scale: pixels).
    await expect.poll(() => page.getByTestId('plot-time').getAttribute('data-state')).toBe('ready');
    const timeText = await page.getByTestId('plot-time').locator('svg').textContent();
    expect(timeText).toContain('Bruise % over day, per fruit');
    const scatterText = await page.getByTestId('plot-scatter').locator('svg').textContent();
    expect(scatterText).toContain('fruit area (pixels)');
    expect(scatterText).toContain('lesion area (pixels)');

    await page.getByTestId('run-plots').screenshot({ path: '/tmp/plots-run.png' });
  });

  it('downloads a chart as PNG and as SVG', async () => {
    const { page } = e2e;
    const groups = page.getByTestId('plot-groups');
    const [png] = await Promise.all([
      page.waitForEvent('download'),
      groups.getByRole('button', { name: 'Download PNG' }).click(),
    ]);
    expect(png.suggestedFilename()).toBe('Bruise-by-treatment.png');
    const bytes = readFileSync((await png.path())!);
    expect([...bytes.subarray(0, 8)]).toEqual([137, 80, 78, 71, 13, 10, 26, 10]);
    expect(bytes.readUInt32BE(16)).toBeGreaterThan(400); // width at 2x
    const [svg] = await Promise.all([
      page.waitForEvent('download'),
      groups.getByRole('button', { name: 'Download SVG' }).click(),
    ]);
    const text = readFileSync((await svg.path())!, 'utf8');
    expect(text).toMatch(/^<svg role="img"/);
    expect(text).toContain('<title id="groups-title">Bruise % by treatment</title>');
    expect(text).toContain('control (n = 3)');
  });

  it('offers the metadata columns that make groups', async () => {
    const { page } = e2e;
    // fruit_id is the series and day the time: neither is offered as a group
    expect(await page.getByTestId('group-by').locator('option').allTextContents()).toEqual(['treatment']);
  });

  it('compares two runs side by side from the results list', async () => {
    const { page } = e2e;
    await page.goto(e2e.url('/results'));
    await expect.poll(() => page.getByTestId('run-row').count(), { timeout: 20_000 }).toBeGreaterThanOrEqual(4);
    const compare = page.getByRole('button', { name: /^Compare/ });
    expect(await compare.isDisabled()).toBe(true);
    const rowOf = (id: string) => page.getByTestId('run-row').filter({ has: page.locator(`a[href="/results/${id}"]`) });
    await rowOf(runA).getByRole('checkbox').check();
    expect(await compare.isDisabled()).toBe(true);
    await rowOf(runB).getByRole('checkbox').check();
    await compare.click();
    await page.waitForURL('**/results/compare?ids=*');
    const ids = new URL(page.url()).searchParams.get('ids')!.split(',');
    expect(ids.sort()).toEqual([runA, runB].sort());
    await expect.poll(() => page.getByTestId('plot-column').count()).toBe(2);
    await expect
      .poll(() => page.locator('[data-testid="plot-groups"][data-state="ready"]').count(), { timeout: 30_000 })
      .toBe(2);
    // each column's group table is its own run's
    const ns = await page
      .getByTestId('plot-column')
      .evaluateAll((cols) =>
        cols.map((c) => [
          c.getAttribute('data-run'),
          [...c.querySelectorAll('[data-testid="group-row"]')].map(
            (r) => `${r.getAttribute('data-group')}:${r.getAttribute('data-n')}`,
          ),
        ]),
      );
    expect(Object.fromEntries(ns)).toEqual({
      [runA]: ['control:3', 'hot-water:4', '(none):1'],
      [runB]: ['control:2', 'hot-water:4'],
    });
    // side by side on the same bruise % axis
    const yAxes = await page
      .locator('[data-testid="plot-groups"] svg [aria-roledescription="axis"][aria-label^="Y-axis"]')
      .evaluateAll((els) => els.map((e) => e.getAttribute('aria-label')));
    expect(yAxes).toHaveLength(2);
    expect(yAxes[1]).toBe(yAxes[0]);
    await page.screenshot({ path: '/tmp/plots-compare.png', fullPage: true });
  });

  it('speaks Thai on the run page plots', async () => {
    const { page } = e2e;
    await page.goto(e2e.url(`/results/${runA}`));
    await page.evaluate(() => localStorage.setItem('language', 'th'));
    await page.reload();
    const groups = page.getByTestId('plot-groups');
    await expect.poll(() => groups.getAttribute('data-state'), { timeout: 30_000 }).toBe('ready');
    expect(await groups.locator('svg').textContent()).toContain('% รอยช้ำตาม treatment');
    expect(await page.getByTestId('group-table').textContent()).toContain('(ไม่มี)');
    await page.getByTestId('run-plots').screenshot({ path: '/tmp/plots-run-th.png' });
    await page.evaluate(() => localStorage.setItem('language', 'en'));
  });
});
