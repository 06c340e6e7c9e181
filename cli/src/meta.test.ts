/**
 * `--meta PATTERN` and `--meta-csv FILE` of `mango bruise` and `mango features` (issue 27 item 1),
 * through the built command: metadata columns in every table (repeated on each fruit row), the
 * results file's `meta`, the provenance (pattern, the CSV's sha256), a warning line for a name that
 * gives none, exit 2 for a metadata name that is a column; and through `--server` (a batch job).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createHash } from 'node:crypto';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parse } from 'csv-parse/sync';
import { encodeImage } from '@mango/core/node';
import { bruisedPairScene } from '@mango/core/testing';
import { client, serverApiKey, signUp, startTestServer, type TestServer } from '@mango/server/testing';
import { mango } from './testing.ts';

const PATTERN = 'cv-{cultivar}_day{day}_trt-{treatment}_fruit{fruit_id}';
const rows = (path: string) => parse(readFileSync(path, 'utf8'), { columns: true }) as Record<string, string>[];
const NAMES = ['cv-keitt_day03_trt-hotwater_fruit12.png', 'cv-keitt_day05_trt-hotwater_fruit12.png', 'IMG_7.png'];

describe('mango bruise / features --meta, --meta-csv', () => {
  let dir: string;
  let photos: string;
  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'mango-cli-meta-'));
    photos = join(dir, 'photos');
    mkdirSync(photos);
    const png = await encodeImage(bruisedPairScene().image, 'png');
    for (const name of NAMES) writeFileSync(join(photos, name), png);
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('writes the metadata as columns of the fruit and image tables, in results.json and the provenance', async () => {
    const fruits = join(dir, 'fruits.csv');
    const out = join(dir, 'results.json');
    const csvFile = join(dir, 'meta.csv');
    writeFileSync(csvFile, `image,tray\n${NAMES[0]},T1\n${NAMES[1]},T2\n`);
    const r = await mango([
      'bruise',
      photos,
      '--method',
      'classical',
      '--meta',
      PATTERN,
      '--meta-csv',
      csvFile,
      '--fruits',
      fruits,
      '--out',
      out,
    ]);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toContain(
      `warning: IMG_7.png: the file name does not match the metadata pattern ${PATTERN}; its metadata cells are empty`,
    );
    expect(r.stderr).toContain('warning: IMG_7.png: no row of the metadata CSV names it');

    const table = rows(fruits);
    const header = readFileSync(fruits, 'utf8').split('\n')[0];
    expect(header.endsWith(',cultivar,day,treatment,fruit_id,tray')).toBe(true);
    const first = table.filter((t) => t.image === NAMES[0]);
    expect(first.length).toBeGreaterThanOrEqual(2);
    // a photo's metadata on each of its fruit rows; fruit_id is the physical fruit, fruit its number in the photo
    expect(first.map((t) => [t.fruit, t.fruit_id, t.day, t.tray])).toEqual(
      first.map((_, k) => [String(k + 1), '12', '03', 'T1']),
    );
    expect(table.filter((t) => t.image === 'IMG_7.png').every((t) => t.cultivar === '' && t.tray === '')).toBe(true);

    const file = JSON.parse(readFileSync(out, 'utf8')) as {
      provenance: { meta: unknown };
      photos: { filename: string; meta: Record<string, string | null>; result: { meta: unknown } }[];
    };
    const sha = createHash('sha256').update(readFileSync(csvFile)).digest('hex');
    const provenance = {
      pattern: PATTERN,
      csv_sha256: sha,
      names: ['cultivar', 'day', 'treatment', 'fruit_id', 'tray'],
    };
    expect(file.provenance.meta).toEqual(provenance);
    expect(JSON.parse(readFileSync(`${fruits}.provenance.json`, 'utf8')).meta).toEqual(provenance);
    expect(Object.fromEntries(file.photos.map((p) => [p.filename, p.meta.day]))).toEqual({
      [NAMES[0]]: '03',
      [NAMES[1]]: '05',
      'IMG_7.png': null,
    });
  });

  it('adds the columns to the per-image CSV (on stdout too) and the feature table', async () => {
    const r = await mango(['bruise', photos, '--method', 'classical', '--meta', PATTERN]);
    expect(r.code, r.stderr).toBe(0);
    const lines = r.stdout.trim().split('\n');
    expect(lines[0].endsWith(',cultivar,day,treatment,fruit_id')).toBe(true);
    expect(lines.filter((l) => l.endsWith(',keitt,05,hotwater,12'))).toHaveLength(1);

    const features = join(dir, 'features.csv');
    const f = await mango(['features', photos, '--features', 'area', '--meta', PATTERN, '--out', features]);
    expect(f.code, f.stderr).toBe(0);
    expect(f.stderr).toContain('warning: IMG_7.png: the file name does not match');
    const t = rows(features);
    expect(Object.fromEntries(t.map((x) => [x.Image, [x.cultivar, x.day]]))).toEqual({
      'IMG_7.png': ['', ''],
      [NAMES[0]]: ['keitt', '03'],
      [NAMES[1]]: ['keitt', '05'],
    });
    expect(t.every((x) => Number(x.area) > 0)).toBe(true);
  });

  it('refuses a metadata name that is a column, a bad pattern and a missing CSV with exit 2, before any photo', async () => {
    const clash = await mango(['bruise', photos, '--meta', 'cv-{cultivar}_{bruise_percent}']);
    expect(clash.code).toBe(2);
    expect(clash.stderr).toMatch(/--meta: the metadata name `bruise_percent` is a column of the results already/);
    expect(clash.stdout).toBe('');
    const img = join(dir, 'image.csv');
    writeFileSync(img, 'image,Image\na.png,x\n');
    const both = await mango(['features', photos, '--all', '--meta-csv', img]);
    expect(both.code).toBe(2);
    expect(both.stderr).toMatch(/`Image` is a column/);
    const bad = await mango(['bruise', photos, '--meta', 'day{day']);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toMatch(/without its pair/);
    const missing = await mango(['bruise', photos, '--meta-csv', join(dir, 'nope.csv')]);
    expect(missing.code).toBe(2);
    expect(missing.stderr).toMatch(/--meta-csv .*nope\.csv: file not found/);
  });
});

describe('mango bruise --server with --meta and --meta-csv', () => {
  let server: TestServer;
  let dir: string;
  let key: string;
  beforeAll(async () => {
    server = await startTestServer({ workerThreads: 1 });
    dir = mkdtempSync(join(tmpdir(), 'mango-cli-meta-server-'));
    mkdirSync(join(dir, 'photos'));
    writeFileSync(
      join(dir, 'photos', 'cv-keitt_day01_trt-wax_fruit4.png'),
      await encodeImage(bruisedPairScene().image, 'png'),
    );
    writeFileSync(join(dir, 'photos', 'other.png'), 'not a photo');
    const api = client(server);
    key = await serverApiKey(api, (await signUp(api, 'Lab')).accessToken);
  });
  afterAll(async () => {
    await server?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('sends both to the job: the warnings come back, the tables have the columns, the provenance the CSV hash', async () => {
    const csvFile = join(dir, 'meta.csv');
    writeFileSync(csvFile, 'image,tray\ncv-keitt_day01_trt-wax_fruit4.png,T9\n');
    const fruits = join(dir, 'fruits.csv');
    const out = join(dir, 'results.json');
    const args = ['bruise', '--server', server.url, '--api-key', key, '--method', 'classical'];
    const r = await mango([
      ...args,
      '--meta',
      PATTERN,
      '--meta-csv',
      csvFile,
      '--fruits',
      fruits,
      '--out',
      out,
      join(dir, 'photos'),
    ]);
    // other.png is not a photo: it fails (exit 1); its warnings came with the job's answer
    expect(r.code).toBe(1);
    expect(r.stderr).toContain('warning: other.png: the file name does not match the metadata pattern');
    expect(r.stderr).toContain('warning: other.png: no row of the metadata CSV names it');
    const table = rows(fruits);
    expect(table.length).toBeGreaterThanOrEqual(2);
    expect(table.every((t) => t.fruit_id === '4' && t.day === '01' && t.tray === 'T9')).toBe(true);
    const file = JSON.parse(readFileSync(out, 'utf8')) as { provenance: { meta: { csv_sha256: string } } };
    expect(file.provenance.meta.csv_sha256).toBe(createHash('sha256').update(readFileSync(csvFile)).digest('hex'));
  });
});
