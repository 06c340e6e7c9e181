/**
 * `mango measure` on real dev photos with two fruit each (AI CUP tray photos; the shipped model finds
 * the fruit): one row per fruit, the bruise figures of `mango bruise --fruits` for the same fruit,
 * the features of each fruit at full resolution, areas and lengths in cm² / cm with --px-per-cm,
 * a provenance sidecar. Skips with a message when ../shared is absent.
 */
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { createHash } from 'node:crypto';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { SHARED_MISSING, sharedDir } from '@mango/core/testing/node';
import { beforeAll, describe, expect, it } from 'vitest';
import { mango } from './testing.ts';

/** CSV text -> records keyed by the header (these tables have no quoted commas). */
const records = (text: string) => {
  const [header, ...rows] = text.trim().split('\n');
  const keys = header.split(',');
  return rows.map((r) => Object.fromEntries(r.split(',').map((v, i) => [keys[i], v])));
};

const shared = sharedDir();
if (!shared) console.warn(SHARED_MISSING);

const PHOTOS = ['10911.jpg', '34737.jpg'];

describe.skipIf(!shared)('mango measure on real photos with two fruit', () => {
  let dir: string;
  let photos: string[];
  let measured: ReturnType<typeof records>;
  let bruised: ReturnType<typeof records>;
  let out: string;
  let reportedCount: number;

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'mango-measure-'));
    photos = PHOTOS.map((p) => join(shared!, 'data/bruise-dev/aicup_defect_boxes/images', p));
    out = join(dir, 'table.csv');
    const features = ['--features', 'area,perimeter,eccentricity,rgb'];
    const r = await mango(['measure', ...photos, ...features, '--px-per-cm', '25', '--out', out]);
    expect(r.code, r.stderr).toBe(0);
    reportedCount = Number(/measure: (\d+) fruit written to/.exec(r.stderr)?.[1]);
    measured = records(readFileSync(out, 'utf8'));
    const fruits = join(dir, 'fruits.csv');
    const b = await mango(['bruise', ...photos, '--px-per-cm', '25', '--fruits', fruits, '--out', join(dir, 'b.csv')]);
    expect(b.code, b.stderr).toBe(0);
    bruised = records(readFileSync(fruits, 'utf8'));
  }, 300_000);

  it('writes one row per fruit, numbered and with the figures of the bruise per-fruit table', () => {
    // the fruit `mango bruise` finds, in its order (how many depends on the model: both photos have two
    // mangoes in trays, which the shipped models do not always count right; measure must agree with bruise)
    expect(measured.map((r) => [r.image, r.fruit])).toEqual(bruised.map((r) => [r.image, r.fruit]));
    expect(reportedCount).toBe(measured.length);
    expect(new Set(measured.map((r) => r.image))).toEqual(new Set(PHOTOS));
    for (const name of PHOTOS)
      expect(measured.filter((r) => r.image === name).map((r) => Number(r.fruit))).toEqual(
        measured.filter((r) => r.image === name).map((_, i) => i + 1),
      );
    const shared = Object.keys(bruised[0]).filter((k) => k in measured[0]);
    // every column of the bruise per-fruit table up to colour_difference (the grade columns need --grades)
    const columns = Object.keys(bruised[0]);
    expect(shared).toEqual(columns.slice(0, columns.indexOf('colour_difference') + 1));
    expect(shared).toHaveLength(13);
    for (const [i, row] of measured.entries())
      for (const k of shared) expect(row[k], `${row.image} fruit ${row.fruit}: ${k}`).toBe(bruised[i][k]);
  });

  it('measures each fruit at full resolution: its area is its pixel count, in cm² at --px-per-cm', () => {
    for (const row of measured) {
      expect(row.px_per_cm).toBe('25');
      expect(row.scale_source).toBe('given');
      expect(Number(row.area)).toBe(Number(row.fruit_pixels));
      expect(Number(row.area_cm2)).toBeCloseTo(Number(row.area) / 625, 10);
      expect(Number(row.area_cm2)).toBeCloseTo(Number(row.fruit_area_cm2), 4);
      expect(Number(row.perimeter_cm)).toBeCloseTo(Number(row.perimeter) / 25, 10);
      expect(Number(row.major_axis_length_cm)).toBeCloseTo(Number(row.major_axis_length) / 25, 10);
      // a fruit's extent is relative to its own box; its mean red is its own
      expect(Number(row.extent)).toBeCloseTo(Number(row.area) / (Number(row.bbox_w) * Number(row.bbox_h)), 12);
      expect(Number(row.mean_R)).toBeGreaterThan(0);
    }
    // the two fruit of a photo have their own values
    expect(measured[0].mean_R).not.toBe(measured[1].mean_R);
    expect(measured[0].perimeter).not.toBe(measured[1].perimeter);
  });

  it('writes the provenance sidecar: the options, the model that found the fruit, every input sha256', () => {
    const provenance = JSON.parse(readFileSync(`${out}.provenance.json`, 'utf8'));
    expect(provenance).toMatchObject({
      source: 'cli',
      operation: 'analyze',
      method: 'auto',
      method_used: 'model',
      options: { features: ['rgb', 'eccentricity', 'area', 'perimeter'], perFruit: true, pxPerCm: 25 },
    });
    expect(provenance.model_sha256).toMatch(/^[0-9a-f]{64}$/);
    expect(provenance.inputs).toEqual(
      PHOTOS.map((name, i) => ({
        filename: name,
        sha256: createHash('sha256').update(readFileSync(photos[i])).digest('hex'),
      })),
    );
  });
});

describe('mango measure: usage and failures', () => {
  it('needs --out and a feature choice (exit 2)', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'mango-measure-'));
    expect((await mango(['measure', dir, '--all'])).stderr).toMatch(/give --out/);
    const r = await mango(['measure', dir, '--out', join(dir, 't.csv')]);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/--features .* or --all/);
  });

  it('keeps a photo that cannot be read as a row with its error, and exits 1', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'mango-measure-'));
    writeFileSync(join(dir, 'broken.jpg'), 'not a jpeg');
    const out = join(dir, 't.csv');
    const r = await mango(['measure', dir, '--features', 'area', '--out', out]);
    expect(r.code).toBe(1);
    const rows = records(readFileSync(out, 'utf8'));
    expect(rows).toHaveLength(1);
    expect(rows[0].image).toBe('broken.jpg');
    expect(rows[0].fruit).toBe('');
    expect(rows[0].error).toMatch(/broken\.jpg/);
  });
});

describe.skipIf(!shared)('mango measure --meta, --meta-csv and --grades (as mango bruise)', () => {
  let dir: string;
  let photos: string[];
  let measured: ReturnType<typeof records>;
  let bruised: ReturnType<typeof records>;
  let run: Awaited<ReturnType<typeof mango>>;

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'mango-measure-meta-'));
    photos = PHOTOS.map((p) => join(shared!, 'data/bruise-dev/aicup_defect_boxes/images', p));
    // the CSV lists the first photo only: the second gets an empty cell and a warning
    writeFileSync(join(dir, 'plan.csv'), `image,treatment\n${PHOTOS[0]},hot water\n`);
    const out = join(dir, 'table.csv');
    const flags = ['--grades', 'percent'];
    run = await mango([
      'measure',
      ...photos,
      '--features',
      'area',
      ...flags,
      '--lot',
      join(dir, 'lot.json'),
      '--meta',
      '{photo_id}',
      '--meta-csv',
      join(dir, 'plan.csv'),
      '--out',
      out,
    ]);
    expect(run.code, run.stderr).toBe(0);
    measured = records(readFileSync(out, 'utf8'));
    const fruits = join(dir, 'fruits.csv');
    const b = await mango(['bruise', ...photos, ...flags, '--fruits', fruits, '--out', join(dir, 'b.csv')]);
    expect(b.code, b.stderr).toBe(0);
    bruised = records(readFileSync(fruits, 'utf8'));
  }, 300_000);

  it("repeats each photo's metadata on its fruit rows, after the table's own columns; a photo without a CSV row gets empty cells and a warning", () => {
    const header = Object.keys(measured[0]);
    expect(header.slice(-2)).toEqual(['photo_id', 'treatment']);
    expect(measured.map((r) => [r.image, r.fruit, r.photo_id, r.treatment])).toEqual(
      bruised.map((r) => [r.image, r.fruit, r.image.replace('.jpg', ''), r.image === PHOTOS[0] ? 'hot water' : '']),
    );
    expect(measured.some((r) => r.image === PHOTOS[1])).toBe(true);
    expect(run.stderr).toMatch(/warning: .*34737\.jpg/);
    const provenance = JSON.parse(readFileSync(join(dir, 'table.csv.provenance.json'), 'utf8'));
    expect(provenance.meta).toMatchObject({ pattern: '{photo_id}', names: ['photo_id', 'treatment'] });
    expect(provenance.meta.csv_sha256).toBe(
      createHash('sha256')
        .update(readFileSync(join(dir, 'plan.csv')))
        .digest('hex'),
    );
    expect(provenance.options.grades).toBe('percent');
  });

  it('grades each fruit as mango bruise --grades does: the same grade for the same fruit, by its bruise %', () => {
    expect(measured).toHaveLength(bruised.length);
    for (const [i, row] of measured.entries()) {
      expect(row.bruise_percent).toBe(bruised[i].bruise_percent);
      for (const k of ['grade', 'size_group', 'weight_g', 'size_source'])
        expect(row[k], `${row.image} fruit ${row.fruit}: ${k}`).toBe(bruised[i][k]);
      const p = Number(row.bruise_percent);
      expect(row.grade).toBe(p <= 1 ? 'A' : p <= 5 ? 'B' : p <= 10 ? 'C' : 'Reject');
    }
    const lot = JSON.parse(readFileSync(join(dir, 'lot.json'), 'utf8'));
    expect(lot.rules).toBe('percent');
    expect(lot.fruit_count).toBe(bruised.length);
    expect(lot.graded).toBe(bruised.length);
    const counts = Object.fromEntries(lot.counts.map((c: { grade: string; count: number }) => [c.grade, c.count]));
    for (const g of ['A', 'B', 'C', 'Reject'])
      expect(counts[g] ?? 0).toBe(measured.filter((r) => r.grade === g).length);
    // the lot summary is printed beside the table
    expect(run.stdout).toMatch(/percent/);
  });
});

describe('mango measure: grade and metadata usage errors (exit 2, before any photo is read)', () => {
  const dir = mkdtempSync(join(tmpdir(), 'mango-measure-usage-'));
  const base = ['measure', dir, '--features', 'area', '--out', join(dir, 't.csv')];

  it.each([
    [['--weights', join(dir, 'w.csv')], /--weights needs --grades/],
    [['--lot', join(dir, 'lot.json')], /--lot needs --grades/],
    [['--grades', 'codex-mango'], /needs a scale/],
    [['--grades', 'no-such-rules'], /neither a preset/],
    [['--meta', 'day{day}_{fruit}'], /fruit/],
    [['--meta-csv', join(dir, 'missing.csv')], /--meta-csv .*file not found/],
  ])('%s', async (flags, message) => {
    const r = await mango([...base, ...flags]);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(message);
    expect(r.stdout).toBe('');
  });
});
