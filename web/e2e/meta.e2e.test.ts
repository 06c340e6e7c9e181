/**
 * The upload pages' experiment-metadata fields (issue 27 item 1), in a real browser against a real
 * server: a file name pattern on the bruise page and a metadata CSV on the analysis page reach the
 * stored run (each item's `meta`, the run's provenance) and the exported tables; the fields in Thai.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { encodeImage } from '@mango/core/node';
import { bruisedPairScene } from '@mango/core/testing';
import { signInViaApi, startE2E, type E2E } from './harness.ts';

const PATTERN = 'cv-{cultivar}_day{day}_trt-{treatment}_fruit{fruit_id}';
const NAMES = ['cv-keitt_day02_trt-wax_fruit8.png', 'cv-keitt_day06_trt-wax_fruit8.png'];
const ODD = 'IMG_0003.png';

interface Run {
  id: string;
  meta?: { pattern: string | null; csv_sha256: string | null; names: string[] };
  items: { filename: string; meta?: Record<string, string | null> }[];
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
});
