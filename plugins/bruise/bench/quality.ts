/**
 * How many dev photos each photo-quality flag marks (README.md, "Photo quality"), with the spread of
 * every figure: runs the bruise analysis as the plugin does (default options: the shipped model)
 * on every photo of ../shared/data/bruise-dev and prints a table and percentiles.
 * With --variants N, also the first N photos of each set made to trip each check (TRIP_PHOTOS):
 * how many of them each check marks.
 * Usage: node --import tsx plugins/bruise/bench/quality.ts [--method classical] [--json out.json] [--variants 10]
 *        [--variants-only] [--sets synthetic_composites,senmango_real_lesions,aicup_defect_boxes]
 *        [--casts N] (the first N photos of each set under the bench's blackbody lights 2800 / 6504 / 7500 K,
 *        no card: how many the colour-cast check marks under each, and the figure's spread)
 */
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { decodeImage } from '@mango/core/node';
import { quantile } from '@mango/core';
import { applyLightCast } from '@mango/core/testing';
import { createModelLoader } from '@mango/models';
import bruise from '../src/index.ts';
import { analyseBruise } from '../src/analyse.ts';
import {
  measureQuality,
  qualityFlags,
  QUALITY_FLAG_IDS,
  QUALITY_THRESHOLDS,
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

const casts = Number(flag('--casts') ?? 0);
if (casts > 0) {
  console.log(`\nblackbody lights, no card (first ${casts} of each set): how many the colour-cast check marks`);
  const byLight = new Map<number, number[]>();
  for (const set of sets) {
    const dir = join(dev, set, 'images');
    for (const file of readdirSync(dir).sort().slice(0, casts)) {
      const image = await decodeImage(new Uint8Array(readFileSync(join(dir, file))), file, undefined, { maxSide });
      for (const kelvin of [2800, 6504, 7500]) {
        const lit = applyLightCast(image, kelvin);
        const m = measureQuality(await analyseBruise(lit, options, { models }), lit, options);
        if (m.colourCast !== null) (byLight.get(kelvin) ?? byLight.set(kelvin, []).get(kelvin)!).push(m.colourCast);
      }
    }
  }
  for (const [kelvin, v] of byLight) {
    const flagged = v.filter((x) => x > QUALITY_THRESHOLDS.colourCast).length;
    const s = [...v].sort((a, b) => a - b);
    console.log(
      `| ${kelvin} K | ${flagged} of ${v.length} | chroma min / median / max ${s[0].toFixed(1)} / ${s[s.length >> 1].toFixed(1)} / ${s[s.length - 1].toFixed(1)} |`,
    );
  }
}
