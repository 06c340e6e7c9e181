/**
 * The files a run writes, pinned byte for byte (issue 24 item 4: the bruise and feature tables and
 * the report moved from core into their plugins, and must not change by a byte). Real images go
 * through the real pipeline as the server scores them (`scoreUploads` with the runner's image job,
 * in this thread), then through what the run's plugin declares: every table of the stored run, the
 * tables the CLI writes (no audit columns), the web's data.csv, and the HTML report with its plots.
 * The outputs are compared with the files in `__output__/`; the real dev photos' (../shared/data)
 * only when that folder is present.
 */
import { existsSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { encodeImage } from '@mango/core/node';
import { bruisedPairScene, lesionScene, sceneWithDisc } from '@mango/core/testing';
import { SHARED_MISSING, sharedDir } from '@mango/core/testing/node';
import { makeProvenance, RESULTS_SCHEMA, type ResultsFile } from '@mango/core/results';
import { FEATURE_VALUE_NAMES } from '@mango/plugin-features';
import { runImageJob } from '@mango/runner';
import { registry } from '@mango/plugins';
import { planRun, scoreUploads, type PhotoInput, type ScoredPhoto } from './service.ts';
import { dataCsv, fruitTableCsv, imageTableCsv } from '@mango/plugin-bruise/tables';
import { featureColumns, featureTableCsv, measureTableCsv } from '@mango/plugin-features/tables';
import { isBruiseFigures } from '@mango/plugin-bruise/results';

const OUT = join(import.meta.dirname, '__output__');

const deps = { run: runImageJob, concurrency: 1, maxPixels: 50_000_000, maxBytes: 25 * 1024 * 1024 };

/** A few photos with different figures, metadata on each, and a file that is no image. */
async function scenePhotos(): Promise<PhotoInput[]> {
  const png = async (image: Parameters<typeof encodeImage>[0]) => new Uint8Array(await encodeImage(image, 'png'));
  return [
    { name: 'crate-a.png', bytes: await png(bruisedPairScene().image), meta: { day: '1', cultivar: 'Nam Dok Mai' } },
    { name: 'disc-b.png', bytes: await png(sceneWithDisc(12, 4).image), meta: { day: '2', cultivar: null } },
    { name: 'lesion-c.png', bytes: await png(lesionScene(18, 2).image), meta: { day: '2', cultivar: 'Irwin' } },
    { name: 'broken.jpg', bytes: new TextEncoder().encode('not a photo'), meta: { day: '3', cultivar: 'Irwin' } },
  ];
}

/** Two of the dev split's composites, as a lab uploads them (their report pinned without thumbnails: no copy of a photo in the repository). */
async function devPhotos(shared: string): Promise<PhotoInput[]> {
  const dir = join(shared, 'data/bruise-dev/synthetic_composites/images');
  const names = ['syn_mangodc_3-Center_1.jpg', 'syn_mangodc_3-Center_2.jpg'];
  return Promise.all(
    names.map(async (name, i) => ({
      name,
      bytes: new Uint8Array(await readFile(join(dir, name))),
      meta: { day: `${i + 1}` },
    })),
  );
}

type Results = Parameters<typeof fruitTableCsv>[0];
type Features = Parameters<typeof featureTableCsv>[0];

/** The tables `mango bruise` (--fruits, --out), `mango features` and `mango measure` write of the same results. */
function cliTables(operation: string, results: readonly Record<string, unknown>[], wire: Record<string, unknown>) {
  if (operation === 'bruise') {
    const scored = results.filter((r) => isBruiseFigures(r as never)) as unknown as Results;
    const rows = results.map((r) => (isBruiseFigures(r as never) ? r : { filename: r.filename, error: r.error }));
    return {
      fruits: fruitTableCsv(scored),
      images: imageTableCsv(rows as unknown as Parameters<typeof imageTableCsv>[0]),
    };
  }
  const items = results as unknown as Features;
  const ids = wire.features as (keyof typeof FEATURE_VALUE_NAMES)[];
  return wire.per_fruit
    ? { measure: measureTableCsv(items, { features: ids, known: FEATURE_VALUE_NAMES }) }
    : { features: featureTableCsv(items, { columns: featureColumns(items, ids, FEATURE_VALUE_NAMES) }) };
}

/** The web's data.csv of a bruise batch (its download layout: CRLF, no final newline). */
const dataCsvOf = (operation: string, results: readonly Record<string, unknown>[]) =>
  operation === 'bruise'
    ? dataCsv(results.filter((r) => isBruiseFigures(r as never)) as unknown as Results, {
        newline: '\r\n',
        finalNewline: false,
      })
    : null;

/** The stored results of scored photos, as GET /runs/{id} gives them. */
const resultsOf = (scored: readonly ScoredPhoto[]) =>
  scored.map((s) => JSON.parse(s.item!.result) as Record<string, unknown>);

/** The results file of a run (fixed provenance: the report prints it), its failed photos left out. */
function resultsFile(
  operation: string,
  options: Record<string, unknown>,
  scored: readonly ScoredPhoto[],
  thumbnails: boolean,
): ResultsFile {
  const items = scored.map((s) => s.item!);
  return {
    schema: RESULTS_SCHEMA,
    provenance: makeProvenance(
      {
        app_version: '0.0.0-test',
        source: 'api',
        run_id: 'run-pinned',
        operation,
        method: typeof options.method === 'string' ? options.method : null,
        options,
        created_at: '2026-01-02T03:04:05.000Z',
        inputs: items.map((i) => ({ filename: i.filename, sha256: i.sha256 })),
      },
      {},
    ),
    photos: items
      .map((i) => ({ i, result: JSON.parse(i.result) as Record<string, unknown> }))
      .filter(({ result }) => typeof result.error !== 'string')
      .map(({ i, result }) => ({
        filename: i.filename,
        sha256: i.sha256,
        width: i.width,
        height: i.height,
        result: result as ResultsFile['photos'][number]['result'],
        overlay_thumbnail: thumbnails ? i.overlay : null,
        photo_thumbnail: thumbnails ? i.photo : null,
        meta: result.meta as Record<string, string | null>,
      })),
  };
}

/** Every output of a run of `operation`, named as the files of `__output__/`. */
async function outputs(operation: string, wire: Record<string, unknown>, photos: PhotoInput[], thumbnails = true) {
  const plan = planRun(registry, operation, wire);
  const scored = await scoreUploads(deps, plan, photos, true);
  expect(scored.filter((s) => s.result.ok)).toHaveLength(
    photos.length - (photos.some((p) => p.name === 'broken.jpg') ? 1 : 0),
  );
  const results = resultsOf(scored);
  const files: Record<string, string> = {};
  for (const [name, table] of Object.entries(plan.kind.runs.tables)) files[`run.${name}.csv`] = table(results);
  for (const [name, csv] of Object.entries(cliTables(operation, results, wire))) files[`cli.${name}.csv`] = csv;
  const data = dataCsvOf(operation, results);
  if (data !== null) files['web.data.csv'] = data;
  if (plan.kind.runs.report)
    files['report.html'] = await plan.kind.runs.report(
      resultsFile(plan.kind.runs.operation, plan.options, scored, thumbnails),
      {
        threshold: 5,
      },
    );
  return files;
}

async function expectPinned(prefix: string, files: Record<string, string>) {
  expect(Object.keys(files).length).toBeGreaterThan(1);
  for (const [name, text] of Object.entries(files)) {
    expect(text.length, name).toBeGreaterThan(40);
    await expect(text).toMatchFileSnapshot(join(OUT, `${prefix}.${name}`));
  }
}

describe('the files of a run, byte for byte', () => {
  it('bruise (classical, with a scale, grades and metadata; one photo not an image)', async () => {
    const files = await outputs(
      'bruise',
      { method: 'classical', px_per_cm: 12, grades: 'percent' },
      await scenePhotos(),
    );
    expect(Object.keys(files).sort()).toEqual([
      'cli.fruits.csv',
      'cli.images.csv',
      'report.html',
      'run.fruits.csv',
      'run.images.csv',
      'web.data.csv',
    ]);
    expect(files['run.images.csv']).toContain('broken.jpg');
    await expectPinned('scenes.bruise', files);
  });

  it('feature analysis, whole photo and per fruit', async () => {
    const photos = await scenePhotos();
    await expectPinned(
      'scenes.features',
      await outputs('features', { features: ['rgb', 'lab', 'glcm', 'area', 'eccentricity'] }, photos),
    );
    const perFruit = await outputs(
      'features',
      { features: ['rgb', 'area'], per_fruit: true, method: 'classical', px_per_cm: 12 },
      photos,
    );
    expect(perFruit['run.fruits.csv']).toContain('fruit_area_cm2');
    await expectPinned('scenes.measure', perFruit);
  });

  const shared = sharedDir();
  const dev = shared && existsSync(join(shared, 'data/bruise-dev/synthetic_composites/images'));
  it.skipIf(!dev)(`real dev photos, bruise and features${dev ? '' : ` (${SHARED_MISSING})`}`, async () => {
    const photos = await devPhotos(shared!);
    await expectPinned(
      'dev.bruise',
      await outputs('bruise', { method: 'classical', grades: 'percent' }, photos, false),
    );
    await expectPinned('dev.features', await outputs('features', { features: ['rgb', 'hsv', 'lbp'] }, photos, false));
  });
});
