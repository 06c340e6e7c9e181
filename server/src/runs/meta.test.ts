/**
 * Experiment metadata through the server (issue 27 item 1): the `meta` and `meta_csv` fields of
 * /api-py and the jobs API, stored with the run (each item's `meta`, the provenance's pattern and
 * CSV sha256) and written as columns of every export table; SQLite and PostgreSQL.
 */
import { createHash } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import JSZip from 'jszip';
import { parse } from 'csv-parse/sync';
import { followJob } from '@mango/core/jobs';
import { encodeImage } from '@mango/core/node';
import { bruisedPairScene } from '@mango/core/testing';
import { createImage } from '@mango/core';
import { startTestServer, TEST_DATABASES, type TestServer } from '../testing/index.ts';
import { client, signUp, type SignedIn } from '../testing/accounts.ts';

const PATTERN = 'cv-{cultivar}_day{day}_trt-{treatment}_fruit{fruit_id}';
const csvRows = (text: string) => parse(text, { columns: true }) as Record<string, string>[];

type StoredItem = { filename: string; meta?: Record<string, string | null>; result: Record<string, unknown> };
type Run = {
  id: string;
  meta?: { pattern: string | null; csv_sha256: string | null; names: string[] };
  items: StoredItem[];
};

describe.each(TEST_DATABASES)('experiment metadata on %s', (database) => {
  let server: TestServer;
  let alice: SignedIn;
  let png: Uint8Array;
  let auth: Record<string, string>;
  beforeAll(async () => {
    server = await startTestServer({ workerThreads: 1 }, { database });
    alice = await signUp(client(server), 'Meta Lab');
    auth = { Authorization: `Bearer ${alice.accessToken}` };
    png = await encodeImage(bruisedPairScene().image, 'png');
  });
  afterAll(() => server.close());

  const form = (names: string[], fields: Record<string, string | Blob>, photo = png) => {
    const fd = new FormData();
    for (const name of names) fd.append('images', new Blob([photo as BlobPart]), name);
    for (const [k, v] of Object.entries(fields)) fd.append(k, v);
    return fd;
  };
  const post = (path: string, body: FormData) => fetch(server.url + path, { method: 'POST', body, headers: auth });
  const getJson = async <T>(path: string) => (await (await fetch(server.url + path, { headers: auth })).json()) as T;
  const getText = async (path: string) => (await fetch(server.url + path, { headers: auth })).text();

  it('/api-py bruise: each item and stored item has its metadata, every table their columns, the provenance the pattern', async () => {
    const names = ['cv-keitt_day03_trt-hotwater_fruit12.png', 'IMG_0042.png', 'cv-nam_day07_trt-none_fruit3.png'];
    const res = await post('/api-py/python/bruise_detection/Classical', form(names, { meta: PATTERN }));
    expect(res.status).toBe(200);
    const items = (await res.json()) as {
      filename: string;
      meta: Record<string, string | null>;
      warnings: string[];
      fruits: unknown[];
      run_id: string;
    }[];
    expect(items.map((i) => i.meta)).toEqual([
      { cultivar: 'keitt', day: '03', treatment: 'hotwater', fruit_id: '12' },
      { cultivar: null, day: null, treatment: null, fruit_id: null },
      { cultivar: 'nam', day: '07', treatment: 'none', fruit_id: '3' },
    ]);
    expect(items[0].warnings).toEqual([]);
    expect(items[1].warnings).toEqual([
      `IMG_0042.png: the file name does not match the metadata pattern ${PATTERN}; its metadata cells are empty`,
    ]);

    const runId = items[0].run_id;
    const run = await getJson<Run>(`/api-node/runs/${runId}`);
    expect(run.meta).toEqual({
      pattern: PATTERN,
      csv_sha256: null,
      names: ['cultivar', 'day', 'treatment', 'fruit_id'],
    });
    expect(run.items.map((i) => i.meta?.cultivar ?? null)).toEqual(['keitt', null, 'nam']);

    // per fruit: a photo's metadata repeat on each of its fruit rows
    const fruits = csvRows(await getText(`/api-node/runs/${runId}/export?format=csv&table=fruits`));
    const fruitCount = items.map((i) => i.fruits.length);
    expect(fruitCount[0]).toBeGreaterThanOrEqual(2);
    expect(fruits.length).toBe(fruitCount.reduce((a, n) => a + n, 0));
    expect(fruits.filter((r) => r.image === names[0]).map((r) => [r.cultivar, r.fruit_id, r.fruit])).toEqual(
      Array.from({ length: fruitCount[0] }, (_, k) => ['keitt', '12', String(k + 1)]),
    );
    expect(fruits.filter((r) => r.image === names[1]).every((r) => r.cultivar === '' && r.day === '')).toBe(true);
    const header = (await getText(`/api-node/runs/${runId}/export?format=csv&table=images`)).split('\n')[0];
    expect(header.endsWith(',cultivar,day,treatment,fruit_id')).toBe(true);
    expect(header.startsWith('image,fruit_count,')).toBe(true);

    const file = await getJson<{
      provenance: { meta: unknown };
      photos: { filename: string; meta: Record<string, string | null> }[];
    }>(`/api-node/runs/${runId}/export?format=json`);
    expect(file.provenance.meta).toEqual(run.meta);
    expect(file.photos[2].meta).toEqual(items[2].meta);

    const zip = await JSZip.loadAsync(
      new Uint8Array(
        await (await fetch(`${server.url}/api-node/runs/${runId}/export?format=zip`, { headers: auth })).arrayBuffer(),
      ),
    );
    const zipped = csvRows(await zip.file('fruits.csv')!.async('string'));
    expect(zipped.map((r) => r.treatment)).toEqual(fruits.map((r) => r.treatment));
    expect(JSON.parse(await zip.file('provenance.json')!.async('string')).meta.pattern).toBe(PATTERN);
  });

  it('/api-py analyze: a metadata CSV sent as a file, joined by name; its sha256 kept', async () => {
    const photo = await encodeImage(createImage(8, 6, [200, 100, 0, 255]), 'png');
    const csv = 'image,block,harvest\na.png,B1,2026-11-01\nb.png,B2,\n';
    const res = await post(
      '/api-py/python/analyze',
      form(['a.png', 'b.png', 'c.png'], { features: '["rgb"]', meta_csv: new Blob([csv]) }, photo),
    );
    expect(res.status).toBe(200);
    const items = (await res.json()) as {
      image_name: string;
      meta: Record<string, string | null>;
      warnings: string[];
      run_id: string;
    }[];
    expect(items.map((i) => i.meta)).toEqual([
      { block: 'B1', harvest: '2026-11-01' },
      { block: 'B2', harvest: null },
      { block: null, harvest: null },
    ]);
    expect(items[2].warnings[0]).toMatch(/^c\.png: no row of the metadata CSV/);
    const run = await getJson<Run>(`/api-node/runs/${items[0].run_id}`);
    expect(run.meta?.csv_sha256).toBe(createHash('sha256').update(csv).digest('hex'));
    const table = csvRows(await getText(`/api-node/runs/${items[0].run_id}/export?format=csv`));
    expect(table.map((r) => [r.Image, r.block, r.harvest])).toEqual([
      ['a.png', 'B1', '2026-11-01'],
      ['b.png', 'B2', ''],
      ['c.png', '', ''],
    ]);
    expect(Number(table[0].mean_R)).toBeCloseTo(200, 5);
  });

  it('refuses a metadata name that is a column, and a bad pattern, with the reason (400)', async () => {
    const clash = await post(
      '/api-py/python/bruise_detection/Classical',
      form(['a.png'], { meta: '{image}_{fruit_id}' }),
    );
    expect(clash.status).toBe(400);
    expect(((await clash.json()) as { detail: string }).detail).toMatch(/metadata name `image` is a column/);
    const feature = await post(
      '/api-py/python/analyze',
      form(['a.png'], { features: '["rgb"]', meta_csv: 'image,mean_R\na.png,1\n' }),
    );
    expect(feature.status).toBe(400);
    expect(((await feature.json()) as { detail: string }).detail).toMatch(/`mean_R` is a column/);
    const job = await post('/api-node/jobs', form(['a.png'], { operation: 'bruise', meta: 'x_{bruise_percent}' }));
    expect(job.status).toBe(400);
    expect(((await job.json()) as { error: string }).error).toMatch(/`bruise_percent` is a column/);
    const bad = await post('/api-node/jobs', form(['a.png'], { operation: 'bruise', meta: 'day{day' }));
    expect(bad.status).toBe(400);
    expect(((await bad.json()) as { error: string }).error).toMatch(/without its pair/);
  });

  it('jobs: warnings in the answer, each stored item its metadata (pattern and CSV), the export their columns', async () => {
    const names = ['cv-keitt_day01_trt-wax_fruit5.png', 'cv-keitt_day04_trt-wax_fruit5.png', 'odd.png'];
    const csv = 'image,tray\ncv-keitt_day01_trt-wax_fruit5.png,T1\ncv-keitt_day04_trt-wax_fruit5.png,T2\n';
    const res = await post(
      '/api-node/jobs',
      form(names, { operation: 'bruise', options: '{"method":"classical"}', meta: PATTERN, meta_csv: csv }),
    );
    expect(res.status).toBe(202);
    const sent = (await res.json()) as { id: string; warnings: string[] };
    expect(sent.warnings).toEqual([
      `odd.png: the file name does not match the metadata pattern ${PATTERN}; its metadata cells are empty`,
      'odd.png: no row of the metadata CSV names it (column image); its cells are empty',
    ]);
    const end = await followJob(server.url, sent.id, alice.accessToken, () => {});
    expect(end.state).toBe('done');
    const run = await getJson<Run>(`/api-node/runs/${end.run_id}`);
    expect(run.meta).toEqual({
      pattern: PATTERN,
      // a text field's line ends travel as CRLF (multipart/form-data): the hash is of what was received
      csv_sha256: createHash('sha256').update(csv.replace(/\n/g, '\r\n')).digest('hex'),
      names: ['cultivar', 'day', 'treatment', 'fruit_id', 'tray'],
    });
    expect(run.items.map((i) => [i.meta?.day, i.meta?.tray])).toEqual([
      ['01', 'T1'],
      ['04', 'T2'],
      [null, null],
    ]);
    const images = csvRows(await getText(`/api-node/runs/${end.run_id}/export?format=csv&table=images`));
    // the same fruit followed over days: a series by fruit_id
    expect(images.map((r) => [r.image, r.fruit_id, r.day, r.tray])).toEqual([
      [names[0], '5', '01', 'T1'],
      [names[1], '5', '04', 'T2'],
      [names[2], '', '', ''],
    ]);
  });
});
