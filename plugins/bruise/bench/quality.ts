/**
 * How many dev photos each photo-quality flag marks (README.md, "Photo quality"), with the spread of
 * every figure: runs the bruise analysis as the plugin does (default options: the shipped model)
 * on every photo of ../shared/data/bruise-dev and prints a table and percentiles.
 * With --variants N, also the first N photos of each set made to trip each check (TRIP_PHOTOS):
 * how many of them each check marks.
 * Usage: node --import tsx plugins/bruise/bench/quality.ts [--method classical] [--json out.json] [--variants 10]
 *        [--variants-only] [--sets synthetic_composites,senmango_real_lesions,aicup_defect_boxes]
 *        [--casts N] (the first N photos of each set under the bench's blackbody lights 2800 / 3500 / 6504 /
 *        7500 / 9000 K, no card: how many the colour-cast check marks under each, and the figure's spread)
 *        [--cast-split SEED] (every dev photo as it is and under those lights, split in halves by photo
 *        source: the tuning half's threshold grid, the held-out half's false alarms and casts caught)
 */
import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { decodeImage, readCsv, splitByGroup } from '@mango/core/node';
import { quantile, type RasterImage } from '@mango/core';
import { applyLightCast } from '@mango/core/testing';
import { createModelLoader } from '@mango/models';
import bruise from '../src/index.ts';
import { analyseBruise } from '../src/analyse.ts';
import {
  measureQuality,
  qualityFlags,
  QUALITY_FLAG_IDS,
  QUALITY_THRESHOLDS,
  UNMEASURED,
  type QualityMeasures,
} from '../src/quality.ts';
import { BruiseOptions } from '../src/schema.ts';
import { TRIP_PHOTOS } from '../src/eval/quality-photos.ts';
import { args, devDir, flag } from './common.ts';

const dev = devDir();
const sets = (flag('--sets') ?? 'synthetic_composites,senmango_real_lesions,aicup_defect_boxes').split(',');
const devToo = !args.includes('--variants-only');
const options = BruiseOptions.parse({ method: flag('--method') ?? 'auto' });
const models = createModelLoader();
const maxSide = bruise.decodeMaxSide?.(options);

async function measureFile(bytes: Uint8Array, file: string) {
  const image = await decodeImage(bytes, file, undefined, { maxSide });
  const analysis = await analyseBruise(image, options, { models });
  return measureQuality(analysis, image, options);
}

const rows: { set: string; file: string; measures: QualityMeasures; flags: string[] }[] = [];
for (const set of devToo ? sets : []) {
  const dir = join(dev, set, 'images');
  for (const file of readdirSync(dir).sort()) {
    const measures = await measureFile(readFileSync(join(dir, file)), file);
    rows.push({ set, file, measures, flags: qualityFlags(measures).map((f) => f.id) });
  }
  console.error(`${set}: ${rows.filter((r) => r.set === set).length} photos`);
}

if (devToo) printDev();
function printDev() {
  console.log(`| flag | ${sets.join(' | ')} | all |`);
  console.log(`|---|${sets.map(() => '---:|').join('')}---:|`);
  for (const id of QUALITY_FLAG_IDS) {
    const counts = sets.map((s) => {
      const of = rows.filter((r) => r.set === s);
      return `${of.filter((r) => r.flags.includes(id)).length} of ${of.length}`;
    });
    console.log(`| ${id} | ${counts.join(' | ')} | ${rows.filter((r) => r.flags.includes(id)).length} |`);
  }
  const any = rows.filter((r) => r.flags.length > 0).length;
  console.log(
    `| any flag | ${sets.map((s) => rows.filter((r) => r.set === s && r.flags.length).length).join(' | ')} | ${any} |`,
  );

  // core's one quantile (linear between ranks; an empty set has none: null)
  console.log('\nfigure: p1 / p5 / median / p95 / p99 / max over the photos where it was measurable');
  for (const key of Object.keys(rows[0].measures) as (keyof QualityMeasures)[]) {
    const v = rows
      .map((r) => r.measures[key])
      .filter((x): x is number => x !== null)
      .sort((a, b) => a - b);
    const qs = [0.01, 0.05, 0.5, 0.95, 0.99, 1].map((q) => quantile(v, q));
    console.log(`${key} (${v.length}): ${qs.join(' / ')}`);
  }
  for (const r of rows.filter((x) => x.flags.length)) console.log(`${r.set}/${r.file}: ${r.flags.join(';')}`);
}
const out = flag('--json');
if (out) writeFileSync(out, JSON.stringify(rows, null, 1));

const variants = Number(flag('--variants') ?? 0);
const onlyIds = flag('--variant-ids')?.split(',');
/** The figure each check compares, by flag id. */
const FIGURE: Record<string, keyof QualityMeasures> = {
  blur: 'blur',
  overexposed: 'overexposed',
  underexposed: 'underexposed',
  'cut-by-edge': 'cutByEdge',
  'fruit-too-small': 'fruitAcross',
  'jpeg-compression': 'jpegQuality',
  'colour-cast': 'colourCast',
};
if (variants > 0) {
  console.log(`\nmade photos (first ${variants} of each set): how many trip the check they were made for`);
  const made: Record<string, { tripped: number; n: number; pairs: string[] }> = {};
  for (const set of sets) {
    const dir = join(dev, set, 'images');
    for (const file of readdirSync(dir).sort().slice(0, variants)) {
      const bytes = new Uint8Array(readFileSync(join(dir, file)));
      const original = await measureFile(bytes, file);
      for (const [id, trip] of Object.entries(TRIP_PHOTOS)) {
        if (onlyIds && !onlyIds.includes(id)) continue;
        const m = await measureFile(await trip.make(bytes), file);
        const entry = (made[id] ??= { tripped: 0, n: 0, pairs: [] });
        entry.n++;
        entry.pairs.push(`${original[FIGURE[id]]}->${m[FIGURE[id]]}`);
        if (qualityFlags(m).some((f) => f.id === id)) entry.tripped++;
      }
    }
  }
  for (const [id, e] of Object.entries(made)) {
    console.log(`| ${id} | ${TRIP_PHOTOS[id as keyof typeof TRIP_PHOTOS].what} | ${e.tripped} of ${e.n} |`);
    console.log(`  original->made: ${e.pairs.join(' ')}`);
  }
}

/** The lights the colour-cast check is tried under (6504 K: the camera's own balance, no cast). */
const LIGHTS = [2800, 3500, 6504, 7500, 9000];
const castFlagged = (shift: number | null) =>
  qualityFlags({ ...UNMEASURED, colourCast: shift }).some((f) => f.id === 'colour-cast');

/** The light's shift (mired) read on a photo as it is (`none`) and under each of LIGHTS, no card. */
async function castShifts(bytes: Uint8Array, file: string) {
  const image = await decodeImage(bytes, file, undefined, { maxSide });
  const read = async (img: RasterImage) =>
    measureQuality(await analyseBruise(img, options, { models }), img, options).colourCast;
  const out: Record<string, number | null> = { none: await read(image) };
  for (const kelvin of LIGHTS) out[kelvin] = kelvin === 6504 ? out.none : await read(applyLightCast(image, kelvin));
  return out;
}

const casts = Number(flag('--casts') ?? 0);
if (casts > 0) {
  console.log(`\nblackbody lights, no card (first ${casts} of each set): how many the colour-cast check marks`);
  const byLight = new Map<number, (number | null)[]>();
  for (const set of sets) {
    const dir = join(dev, set, 'images');
    for (const file of readdirSync(dir).sort().slice(0, casts)) {
      const shifts = await castShifts(new Uint8Array(readFileSync(join(dir, file))), file);
      for (const kelvin of LIGHTS) (byLight.get(kelvin) ?? byLight.set(kelvin, []).get(kelvin)!).push(shifts[kelvin]);
    }
  }
  for (const [kelvin, v] of byLight) console.log(`| ${kelvin} K | ${castSummary(v)} |`);
}

/** How many of the readings the check flags, and their spread (mired; null: no near-grey background). */
function castSummary(v: (number | null)[]) {
  const s = v.filter((x): x is number => x !== null).sort((a, b) => a - b);
  const qs = [0, 0.05, 0.5, 0.95, 1].map((q) => quantile(s, q)?.toFixed(1));
  return `${v.filter(castFlagged).length} of ${v.length} | ${v.length - s.length} unreadable | shift min / p5 / median / p95 / max ${qs.join(' / ')} mired`;
}

/**
 * --cast-split SEED: every dev photo of the sets as it is and under each of LIGHTS, split in two halves
 * by photo source (the provenance's source_group; a photo without one is its own group; core's
 * splitByGroup with SEED): the thresholds are chosen on the tuning half (its grid printed here), the
 * held-out half reports false alarms (photos as they are) and the casts caught.
 */
const castSeed = flag('--cast-split');
if (castSeed !== undefined) {
  const photos: { set: string; file: string; group: string; shifts: Record<string, number | null> }[] = [];
  for (const set of sets) {
    const groups = new Map<string, string>();
    const provenance = join(dev, set, 'provenance.csv');
    if (existsSync(provenance)) for (const row of readCsv(provenance)) groups.set(row.filename, row.source_group);
    const dir = join(dev, set, 'images');
    for (const file of readdirSync(dir).sort()) {
      const shifts = await castShifts(new Uint8Array(readFileSync(join(dir, file))), file);
      photos.push({ set, file, group: groups.get(file) ?? `${set}/${file}`, shifts });
    }
    console.error(`${set}: read`);
  }
  const { train: tune, heldOut } = splitByGroup(photos, 0.5, Number(castSeed));
  console.log(
    `\ncolour cast, dev photos split by source (seed ${castSeed}): tuning ${tune.length}, held out ${heldOut.length}`,
  );
  console.log('tuning half: photos flagged per threshold (mired), as they are and under the casts of that side');
  for (const t of [10, 15, 20, 25, 30, 35, 40])
    console.log(
      `  cooler by more than ${t}: ${tune.filter((p) => p.shifts.none !== null && p.shifts.none < -t).length} as they are, 7500 K ${tune.filter((p) => (p.shifts[7500] ?? 0) < -t).length}, 9000 K ${tune.filter((p) => (p.shifts[9000] ?? 0) < -t).length}`,
    );
  for (const t of [30, 40, 50, 60, 80])
    console.log(
      `  warmer by more than ${t}: ${tune.filter((p) => (p.shifts.none ?? 0) > t).length} as they are, 3500 K ${tune.filter((p) => (p.shifts[3500] ?? 0) > t).length}, 2800 K ${tune.filter((p) => (p.shifts[2800] ?? 0) > t).length}`,
    );
  for (const [name, part] of [
    ['tuning half', tune],
    ['held-out half', heldOut],
    ['all', photos],
  ] as const) {
    console.log(
      `\n${name} (${part.length} photos), thresholds warm ${QUALITY_THRESHOLDS.colourCastWarm} / cool ${QUALITY_THRESHOLDS.colourCastCool} mired:`,
    );
    console.log(`| light | flagged | unreadable | shift |`);
    console.log(`| as they are | ${castSummary(part.map((p) => p.shifts.none))} |`);
    for (const kelvin of LIGHTS) console.log(`| ${kelvin} K | ${castSummary(part.map((p) => p.shifts[kelvin]))} |`);
  }
  console.log('\nflagged as they are, per set:');
  for (const set of sets) {
    const of = photos.filter((p) => p.set === set);
    const marked = of.filter((p) => castFlagged(p.shifts.none));
    console.log(
      `  ${set}: ${marked.length} of ${of.length} ${marked.map((p) => `${p.file} (${p.shifts.none})`).join(', ')}`,
    );
  }
}
