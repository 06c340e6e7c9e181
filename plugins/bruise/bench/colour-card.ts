/**
 * Colour card bench (issue 26 item 5): a ColorChecker rendered into real dev photos (sizes 2-10 % of
 * the frame, any angle, perspective, blur, a glare spot, a shadow over part of the card, noise), then
 * light casts in linear light, exposure, JPEG q30 and noise. Measures: card found, patch CIEDE2000
 * after correction, px/cm from the card against the truth, and the change of bruise % per photo
 * across the casts with the card (colourCard auto) and without it (the same photo without a card), and
 * with the card over the variants whose photos pass the quality checks (apart from the JPEG flag).
 * Also checks that no card is found in any dev photo (--scan-dev).
 * Usage: node --conditions=source --import tsx plugins/bruise/bench/colour-card.ts [--count 20] [--method auto|classical] [--scan-dev]
 *   (--conditions=source: @mango/core from its TypeScript sources; without it, from its built dist)
 *   [--files a.jpg,b.jpg] (these dev photos instead of every n-th) [--diag] (per light: CIEDE2000 between the
 *   corrected photo and the corrected daylight one over its fruit pixels, and how far the fitted matrix is
 *   from the daylight one's times the true cast: max |M_light x diag(gains) x M_daylight^-1 - I|)
 *   [--card-only] (card found, patch CIEDE2000, px/cm only: no bruise scoring; about a minute for 10 photos)
 *   [--half tune|held] (the tuning or the held-out half of the photos, split by photo with seed 2626)
 *   [--only a.jpg,b.jpg] (of the sample, these photos only, with the poses of the full run)
 *   [--save-missed DIR] (each variant with no card found, as DIR/<photo>-<K>K<EV>EV.png)
 *   [--save-overlays DIR] (each light's overlay of fruit and lesion on the working copy with the card, corrected
 *   when the card was found, as DIR/<photo>-<K>K<EV>EV.png)
 *   [--dump-patches FILE] (the patch readings of every variant found, as JSON, to try fits on offline)
 *   [--degrade both|jpeg|noise|none] (what follows the light: JPEG q30 then noise (default), one of them, neither)
 *   [--models-dir DIR] (the models of DIR/manifest.json instead of the installed ones)
 */
import { mkdirSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import sharp from 'sharp';
import {
  PATCH_PITCH_MM,
  detectColourCard,
  fitSize,
  downscaleArea,
  localScale,
  quadMask,
  seededRandom,
  quantile,
  type RasterImage,
  rgb8ToLab,
  deltaE2000,
  invert3,
  correctColours,
  paintOverCard,
} from '@mango/core';
import { decodeImage } from '@mango/core/node';
import {
  addNoise,
  applyLightCast,
  blackbodyWhite,
  poseHomography,
  renderColourCard,
  type CardPose,
} from '@mango/core/testing';
import { cardOutline } from '@mango/core';
import { createModelLoader } from '@mango/models';
import { analyseBruise, summariseBruise, type BruiseAnalysis } from '../src/analyse.ts';
import { BruiseOptions } from '../src/schema.ts';
import { measureQuality, qualityFlags } from '../src/quality.ts';
import { overlayOfMasks } from '../src/corrected.ts';
import { args, devDir, flag } from './common.ts';

const dev = devDir();
const count = Number(flag('--count') ?? 20);
const method = (flag('--method') ?? 'auto') as 'auto' | 'classical';
// --models-dir DIR: the models of another manifest (other test-time views, say) instead of the installed ones
const models = createModelLoader(flag('--models-dir') ?? undefined);
const photosOf = (dir: string) => readdirSync(join(dev, dir, 'images')).map((f) => join(dev, dir, 'images', f));

async function jpegRoundTrip(image: RasterImage, quality: number): Promise<RasterImage> {
  const buf = await sharp(Buffer.from(image.data.buffer, image.data.byteOffset, image.data.byteLength), {
    raw: { width: image.width, height: image.height, channels: 4 },
  })
    .jpeg({ quality })
    .toBuffer();
  return decodeImage(buf, 'x.jpg');
}

// --save-missed DIR: each variant where no card is found, as a PNG (to look at the detection stages on it)
const saveMissed = flag('--save-missed');
const savePng = (image: RasterImage, path: string) => {
  mkdirSync(dirname(path), { recursive: true });
  return sharp(Buffer.from(image.data.buffer, image.data.byteOffset, image.data.byteLength), {
    raw: { width: image.width, height: image.height, channels: 4 },
  })
    .png()
    .toFile(path);
};
// --save-overlays DIR: each light's overlay of the masks on the working copy the model saw
const saveOverlays = flag('--save-overlays');
const saveOverlay = (a: BruiseAnalysis, path: string) =>
  savePng(
    overlayOfMasks(a.work, { width: a.work.width, height: a.work.height, fruit: a.fruit, bruise: a.bruise }, 1600),
    path,
  );

const fmt = (v: number | null, d = 2) => (v === null ? '-' : v.toFixed(d));

if (args.includes('--scan-dev')) {
  // The plugin's detection sees the decoded copy (1280 px long side with the shipped model).
  const all = ['synthetic_composites', 'senmango_real_lesions', 'aicup_defect_boxes'].flatMap(photosOf);
  let found = 0;
  const t0 = performance.now();
  for (const path of all) {
    const img = await decodeImage(readFileSync(path), path);
    const s = fitSize(img.width, img.height, 1280);
    if (detectColourCard(downscaleArea(img, s.width, s.height))) {
      found++;
      console.log('card found in', path);
    }
  }
  console.log(
    `dev photos without a card: ${all.length}, card found in ${found} (${((performance.now() - t0) / all.length).toFixed(0)} ms per photo incl. decode)`,
  );
}

// The larger dev photos: MangoDC composites (1600x1336), AI CUP trays (1280x720), senmango originals > 600 px.
const pool = [
  ...photosOf('synthetic_composites'),
  ...photosOf('aicup_defect_boxes'),
  ...photosOf('senmango_real_lesions'),
];
const sized: string[] = [];
for (const p of pool) {
  const m = await sharp(p).metadata();
  if (Math.min(m.width ?? 0, m.height ?? 0) >= 600) sized.push(p);
}
const files = flag('--files')?.split(',');
const sample = files
  ? pool.filter((p) => files.includes(p.split('/').pop()!))
  : sized.filter((_, i) => i % Math.max(1, Math.floor(sized.length / count)) === 0).slice(0, count);
const diag = args.includes('--diag');
// Held-out split (by photo, fixed seed): the sample is shuffled with seed 2626 and its first half is the
// tuning half, the rest held out. `--half tune|held` runs one half only; the summary reports each half.
const shuffled = [...sample];
{
  const r = seededRandom(2626);
  for (let i = shuffled.length - 1; i > 0; i--) {
    const j = Math.floor(r() * (i + 1));
    [shuffled[i], shuffled[j]] = [shuffled[j], shuffled[i]];
  }
}
const tuning = new Set(shuffled.slice(0, Math.ceil(shuffled.length / 2)));
const halfOf = (path: string) => (tuning.has(path) ? 'tune' : 'held');
const half = flag('--half');
// --card-only: the card's figures only (found, patch CIEDE2000, px/cm), no bruise scoring of the variants.
const cardOnly = args.includes('--card-only');
// --degrade jpeg|noise|none: after the light, only JPEG q30, only noise, or neither (default both): which one costs the ΔE.
const degrade = flag('--degrade') ?? 'both';
const CASTS: [number, number][] = [
  [2800, 0],
  [4000, 0],
  [5500, 0],
  [7500, 0],
  [6504, -1],
  [6504, -0.5],
  [6504, 0.5],
  [6504, 1],
  [2800, -1],
  [7500, 1],
];
const COVER = [0.02, 0.05, 0.1];
const options = BruiseOptions.parse({ method });
const off = BruiseOptions.parse({ method, colourCard: 'off' });
const rows: {
  name: string;
  half: string;
  cover: number;
  found: number;
  variants: number;
  medians: number[];
  maxes: number[];
  used: number[];
  scaleErr: number[];
  withCard: number[];
  without: number[];
  missed: string[];
  oracle: number[];
  accepted: number[];
}[] = [];
/** px/cm error with its sign (card-only), to tell a bias from noise */
const signedScale: { cover: number; err: number }[] = [];
const byCast = new Map<string, { withCard: number[]; without: number[]; maxDeltaE: number[] }>();
const bruiseOf = async (img: RasterImage, o: BruiseOptions) => {
  const a = await analyseBruise(img, o, { models });
  return { percent: summariseBruise(a).bruise_percent, card: a.card ?? null, a };
};
/** quality flags of the with-card variants, by flag id (every variant is JPEG q30, so `jpeg-compression` is always raised) */
const flagged = new Map<string, number>();
const flagsOf = (r: Awaited<ReturnType<typeof bruiseOf>>, img: RasterImage) =>
  qualityFlags(measureQuality(r.a, img, options), Boolean(r.card)).map((f) => f.id);
const notJpeg = (id: string) => id !== 'jpeg-compression';

/** The percentage of the daylight photo's fruit pixels with a channel at 0 or 255 in `raw` (the photo under a light, before correction). */
function clippedShare(ref: BruiseAnalysis, raw: RasterImage): number {
  let n = 0;
  let clipped = 0;
  for (let y = 0; y < ref.work.height; y++)
    for (let x = 0; x < ref.work.width; x++) {
      if (!ref.fruit[y * ref.work.width + x]) continue;
      const o =
        4 * (Math.floor((y * raw.height) / ref.work.height) * raw.width + Math.floor((x * raw.width) / ref.work.width));
      n++;
      if ([0, 1, 2].some((c) => raw.data[o + c] >= 255 || raw.data[o + c] <= 0)) clipped++;
    }
  return (100 * clipped) / Math.max(1, n);
}

/** How the corrected photo under a light differs from the corrected daylight one (see --diag). */
function diagnose(ref: BruiseAnalysis, a: BruiseAnalysis, kelvin: number, ev: number): string {
  if (!ref.card || !a.card || a.work.width !== ref.work.width) return 'no card';
  const d: number[] = [];
  const blocks: number[] = [];
  const p = [0, 0, 0];
  const q = [0, 0, 0];
  const w = ref.work.width;
  const B = 8;
  for (let by = 0; by + B <= ref.work.height; by += B)
    for (let bx = 0; bx + B <= w; bx += B) {
      const sum = [0, 0, 0, 0, 0, 0];
      let inside = true;
      for (let y = by; y < by + B; y++)
        for (let x = bx; x < bx + B; x++) {
          const i = y * w + x;
          if (!ref.fruit[i]) {
            inside = false;
            continue;
          }
          for (let c = 0; c < 3; c++) {
            sum[c] += ref.work.data[4 * i + c];
            sum[3 + c] += a.work.data[4 * i + c];
          }
          rgb8ToLab(ref.work.data[4 * i], ref.work.data[4 * i + 1], ref.work.data[4 * i + 2], p);
          rgb8ToLab(a.work.data[4 * i], a.work.data[4 * i + 1], a.work.data[4 * i + 2], q);
          d.push(deltaE2000(p[0], p[1], p[2], q[0], q[1], q[2]));
        }
      if (!inside) continue;
      const m = sum.map((v) => Math.round(v / (B * B)));
      rgb8ToLab(m[0], m[1], m[2], p);
      rgb8ToLab(m[3], m[4], m[5], q);
      blocks.push(deltaE2000(p[0], p[1], p[2], q[0], q[1], q[2]));
    }
  const white = blackbodyWhite(6504);
  const cast = blackbodyWhite(kelvin);
  const gains = cast.map((v, c) => (v / white[c]) * 2 ** ev);
  const m = a.card.correction.matrix;
  const inv = invert3(ref.card.correction.matrix)!;
  let dev = 0;
  for (let r = 0; r < 3; r++)
    for (let c = 0; c < 3; c++) {
      let v = 0;
      for (let k = 0; k < 3; k++) v += m[r * 3 + k] * gains[k] * inv[k * 3 + c];
      dev = Math.max(dev, Math.abs(v - (r === c ? 1 : 0)));
    }
  const used = a.card.correction.used.filter(Boolean).length;
  return (
    `fruit dE00 vs daylight: pixels median ${fmt(quantile(d, 0.5))} p90 ${fmt(quantile(d, 0.9))}, ` +
    `8 px block means median ${fmt(quantile(blocks, 0.5))} p90 ${fmt(quantile(blocks, 0.9))}; matrix dev ${fmt(dev, 3)}, ` +
    `patches ${used}, card dE ${fmt(a.card.correction.after.median)}/${fmt(a.card.correction.after.max)}`
  );
}

// --only a.jpg,b.jpg: of the sample, these photos only (same poses as in the full run, unlike --files)
const only = flag('--only')?.split(',');
// --dump-patches FILE: the patch readings of every variant found (JSON), to try fits on them offline
const dumpPatches = flag('--dump-patches');
const dumped: { name: string; half: string; kelvin: number; ev: number; patches: (number[] | null)[] }[] = [];
for (const [k, path] of sample.entries()) {
  if (half && halfOf(path) !== half) continue;
  if (only && !only.includes(path.split('/').pop()!)) continue;
  // each photo its own seeded draws (its pose does not depend on which photos ran before it)
  const rand = seededRandom(26 + 1000 * k);
  let photo: RasterImage = await decodeImage(readFileSync(path), path);
  const s = fitSize(photo.width, photo.height, 1600);
  photo = downscaleArea(photo, s.width, s.height);
  const cover = COVER[k % COVER.length];
  // pitch so that the card (6.2 x 4.8 pitches with its frame) covers `cover` of the frame
  const pitchPx = Math.sqrt((cover * photo.width * photo.height) / (6.2 * 4.8));
  // a free place: no fruit of the clean photo under the card (else the card goes over the background edge)
  const clean = await analyseBruise(photo, off, { models });
  const fruit = clean.fruit;
  const fw = clean.work.width;
  const fh = clean.work.height;
  let pose: CardPose | null = null;
  for (let t = 0; t < 200 && !pose; t++) {
    const cand: CardPose = {
      x: photo.width * (0.15 + 0.7 * rand()),
      y: photo.height * (0.15 + 0.7 * rand()),
      pitchPx,
      angleDeg: 360 * rand(),
      tiltX: (rand() - 0.5) * 0.08,
      tiltY: (rand() - 0.5) * 0.08,
    };
    const out = cardOutline(poseHomography(cand), 0.3);
    if (out.some((p) => p.x < 2 || p.y < 2 || p.x > photo.width - 3 || p.y > photo.height - 3)) continue;
    const m = quadMask(
      out.map((p) => ({ x: (p.x * fw) / photo.width, y: (p.y * fh) / photo.height })),
      fw,
      fh,
    );
    let overlap = 0;
    for (let i = 0; i < m.length; i++) if (m[i] && fruit[i]) overlap++;
    if (overlap === 0) pose = cand;
  }
  if (!pose) {
    // No free place: the photo is widened by a strip of its right edge's median colour, the card in it.
    const extra = Math.ceil(6.8 * pitchPx);
    const wide = new Uint8ClampedArray((photo.width + extra) * photo.height * 4);
    const edge = [0, 1, 2].map((c) => {
      const v: number[] = [];
      for (let y = 0; y < photo.height; y++) v.push(photo.data[(y * photo.width + photo.width - 1) * 4 + c]);
      return v.sort((a, b) => a - b)[v.length >> 1];
    });
    for (let y = 0; y < photo.height; y++) {
      for (let x = 0; x < photo.width + extra; x++) {
        const o = (y * (photo.width + extra) + x) * 4;
        if (x < photo.width) wide.set(photo.data.subarray((y * photo.width + x) * 4, (y * photo.width + x) * 4 + 4), o);
        else wide.set([edge[0], edge[1], edge[2], 255], o);
      }
    }
    photo = { width: photo.width + extra, height: photo.height, data: wide };
    const fit = Math.min(pitchPx, photo.height / 7.5);
    pose = {
      x: photo.width - extra / 2,
      y: photo.height / 2,
      pitchPx: fit,
      angleDeg: 90 * Math.floor(4 * rand()) + 8 * (rand() - 0.5),
      tiltX: 0.02,
    };
    console.log(`${path.split('/').pop()}: no free place, widened by ${extra} px`);
  }
  const h = poseHomography(pose);
  const withCard = renderColourCard(photo, h, {
    blur: 1 + (k % 2),
    glare: { u: rand() * 5, v: rand() * 3, radius: 0.35, strength: 0.4 },
    shadow: { at: 3.5 + rand(), slope: rand() - 0.5, depth: 0.2 },
    noise: 2,
    seed: k + 1,
  });
  const truthPxPerCm = localScale(h, 2.5, 1.5) / (PATCH_PITCH_MM.classic / 10);
  const name = path.split('/').pop()!;
  /** the saved PNGs' name: DIR/<stem>-<K>K<EV>EV.png */
  const stem = name.replace(/\.\w+$/, '');
  const row = {
    name,
    half: halfOf(path),
    cover,
    found: 0,
    variants: 0,
    medians: [] as number[],
    maxes: [] as number[],
    /** patches used in the fit, per variant found */
    used: [] as number[],
    scaleErr: [] as number[],
    withCard: [] as number[],
    without: [] as number[],
    missed: [] as string[],
    oracle: [] as number[],
    /** the change with the card where the product accepts both photos (no quality flag: --strict-quality) */
    accepted: [] as number[],
  };
  const variant = async (img: RasterImage, kelvin: number, ev: number, seed: number) =>
    degrade === 'jpeg'
      ? await jpegRoundTrip(applyLightCast(img, kelvin, ev), 30)
      : degrade === 'noise'
        ? addNoise(applyLightCast(img, kelvin, ev), 2, seed)
        : degrade === 'none'
          ? applyLightCast(img, kelvin, ev)
          : addNoise(await jpegRoundTrip(applyLightCast(img, kelvin, ev), 30), 2, seed);
  if (cardOnly) {
    for (const [kelvin, ev] of [[6504, 0] as [number, number], ...CASTS]) {
      const img = await variant(withCard, kelvin, ev, kelvin === 6504 && ev === 0 ? 1 : 2);
      const card = detectColourCard(img);
      row.variants++;
      if (!card) {
        row.missed.push(`${kelvin} K ${ev} EV`);
        if (saveMissed) await savePng(img, join(saveMissed, `${stem}-${kelvin}K${ev}EV.png`));
        continue;
      }
      row.found++;
      row.medians.push(card.correction.after.median);
      row.maxes.push(card.correction.after.max);
      row.used.push(card.correction.used.filter(Boolean).length);
      if (dumpPatches) dumped.push({ name: row.name, half: row.half, kelvin, ev, patches: card.patches });
      row.scaleErr.push(Math.abs(card.pitchPx / (PATCH_PITCH_MM.classic / 10) / truthPxPerCm - 1) * 100);
      signedScale.push({ cover, err: (card.pitchPx / (PATCH_PITCH_MM.classic / 10) / truthPxPerCm - 1) * 100 });
      if (diag) {
        const worst = card.correction.deltaEAfter.reduce<number>(
          (w, d, i, all) => (card.correction.used[i] && (d ?? 0) > (all[w] ?? 0) ? i : w),
          0,
        );
        console.log(
          `  ${kelvin} K ${ev} EV: dE after ${fmt(card.correction.after.median)}/${fmt(card.correction.after.max)} ` +
            `(worst patch ${worst}: read ${card.patches[worst]?.join(',')}), used ${card.correction.used.filter(Boolean).length}, ` +
            `px/cm err ${fmt(row.scaleErr.at(-1)!, 3)} %`,
        );
      }
    }
    rows.push(row);
    console.log(
      `${row.name} [${row.half}] cover ${cover * 100}% pitch ${pose.pitchPx.toFixed(1)} px angle ${pose.angleDeg.toFixed(0)}: found ${row.found}/${row.variants}, ` +
        `dE after median ${fmt(quantile(row.medians, 0.5))} max ${fmt(Math.max(...row.maxes))}, px/cm err max ${fmt(Math.max(...row.scaleErr))} %`,
    );
    continue;
  }
  // the daylight photo with the card, made once: the reference of the lights, their flags and the oracle
  const refRaw = await variant(withCard, 6504, 0, 1);
  const refWith = await bruiseOf(refRaw, options);
  const refWithout = await bruiseOf(await variant(photo, 6504, 0, 1), options);
  const refFlags = flagsOf(refWith, refRaw);
  // --diag's oracle: each light corrected by the exact inverse of its cast (times the daylight fit), the card
  // painted over, scored with colourCard off: what a perfect fit would leave (clipping, JPEG, noise).
  const oracle = async (raw: RasterImage, kelvin: number, ev: number) => {
    if (!refWith.a.card) return null;
    const white = blackbodyWhite(6504);
    const cast = blackbodyWhite(kelvin);
    const m = refWith.a.card.correction.matrix.map((v, i) => v / ((cast[i % 3] / white[i % 3]) * 2 ** ev));
    const hidden = paintOverCard(correctColours(raw, m), refWith.a.card.homography, { width: raw.width });
    return (await bruiseOf(hidden, off)).percent;
  };
  const oracleRef = diag ? await oracle(refRaw, 6504, 0) : null;
  if (diag) {
    // The noise floor: the same daylight photo through another JPEG q30 and noise draw.
    const c = await bruiseOf(await variant(withCard, 6504, 0, 2), options);
    console.log(
      `  control (daylight, other noise): ${diagnose(refWith.a, c.a, 6504, 0)}; bruise ${fmt(refWith.percent)} -> ${fmt(c.percent)}`,
    );
  }
  for (const [kelvin, ev] of [[6504, 0] as [number, number], ...CASTS]) {
    const raw = kelvin === 6504 && ev === 0 ? null : await variant(withCard, kelvin, ev, 2);
    const a = raw ? await bruiseOf(raw, options) : refWith;
    row.variants++;
    if (saveOverlays) await saveOverlay(a.a, join(saveOverlays, `${stem}-${kelvin}K${ev}EV.png`));
    if (!a.card) row.missed.push(`${kelvin} K ${ev} EV`);
    if (a.card) {
      row.found++;
      row.medians.push(a.card.correction.after.median);
      row.maxes.push(a.card.correction.after.max);
      row.used.push(a.card.correction.used.filter(Boolean).length);
      const measured =
        (a.card.pitchPx * a.a.width) / (a.a.cardRasterWidth ?? a.a.width) / (PATCH_PITCH_MM.classic / 10);
      row.scaleErr.push(Math.abs(measured / truthPxPerCm - 1) * 100);
    }
    if (kelvin === 6504 && ev === 0) continue;
    const byOracle = diag ? await oracle(raw!, kelvin, ev) : null;
    if (byOracle !== null && oracleRef !== null) row.oracle.push(Math.abs(byOracle - oracleRef));
    if (diag)
      console.log(
        `  ${kelvin} K ${ev} EV: ${diagnose(refWith.a, a.a, kelvin, ev)}, fruit clipped ${fmt(clippedShare(refWith.a, raw!), 1)} %; bruise ${fmt(refWith.percent)} -> ${fmt(a.percent)}, oracle ${fmt(oracleRef)} -> ${fmt(byOracle)}`,
      );
    row.withCard.push(Math.abs(a.percent - refWith.percent));
    const flags = flagsOf(a, raw!);
    for (const id of flags) flagged.set(id, (flagged.get(id) ?? 0) + 1);
    if (!flags.some(notJpeg) && !refFlags.some(notJpeg)) row.accepted.push(Math.abs(a.percent - refWith.percent));
    const b = await bruiseOf(await variant(photo, kelvin, ev, 2), options);
    row.without.push(Math.abs(b.percent - refWithout.percent));
    const key = `${kelvin} K ${ev} EV`;
    if (!byCast.has(key)) byCast.set(key, { withCard: [], without: [], maxDeltaE: [] });
    if (a.card) byCast.get(key)!.maxDeltaE.push(a.card.correction.after.max);
    byCast.get(key)!.withCard.push(Math.abs(a.percent - refWith.percent));
    byCast.get(key)!.without.push(Math.abs(b.percent - refWithout.percent));
  }
  rows.push(row);
  console.log(
    `${row.name} cover ${cover * 100}% angle ${pose.angleDeg.toFixed(0)}: found ${row.found}/${row.variants}, ` +
      `dE after median ${fmt(quantile(row.medians, 0.5))} max ${fmt(Math.max(...row.maxes))}, ` +
      `px/cm err max ${fmt(Math.max(...row.scaleErr))} %, bruise change max with card ${fmt(Math.max(...row.withCard))} without ${fmt(Math.max(...row.without))}` +
      (row.missed.length ? `; not found under ${row.missed.join(', ')}` : ''),
  );
}
if (dumpPatches) writeFileSync(dumpPatches, JSON.stringify(dumped));
const all = (f: (r: (typeof rows)[number]) => number[]) => rows.flatMap(f);
const found = rows.reduce((s, r) => s + r.found, 0);
const variants = rows.reduce((s, r) => s + r.variants, 0);
console.log(`\nphotos ${rows.length}, variants ${variants}, method ${method}`);
for (const h of ['tune', 'held']) {
  const rs = rows.filter((r) => r.half === h);
  if (!rs.length) continue;
  const v = (f: (r: (typeof rows)[number]) => number[]) => rs.flatMap(f);
  console.log(
    `${h === 'tune' ? 'tuning half' : 'held-out half'} (${rs.map((r) => r.name).join(', ')}): ` +
      `found ${rs.reduce((s, r) => s + r.found, 0)}/${rs.reduce((s, r) => s + r.variants, 0)}; ` +
      `patch CIEDE2000 after: median of medians ${fmt(
        quantile(
          v((r) => r.medians),
          0.5,
        ),
      )}, ` +
      `median of max ${fmt(
        quantile(
          v((r) => r.maxes),
          0.5,
        ),
      )}, p90 of max ${fmt(
        quantile(
          v((r) => r.maxes),
          0.9,
        ),
      )}, ` +
      `largest max ${fmt(Math.max(...v((r) => r.maxes)))}; ` +
      `patches used min ${Math.min(...v((r) => r.used))} / median ${fmt(
        quantile(
          v((r) => r.used),
          0.5,
        ),
        1,
      )}; px/cm |error| median ${fmt(
        quantile(
          v((r) => r.scaleErr),
          0.5,
        ),
      )} %, ` +
      `max ${fmt(Math.max(...v((r) => r.scaleErr)))} %`,
  );
}
for (const c of COVER) {
  const e = signedScale.filter((s) => s.cover === c).map((s) => s.err);
  if (e.length)
    console.log(
      `card covering ${c * 100} %: px/cm signed error mean ${fmt(e.reduce((a, b) => a + b, 0) / e.length, 3)} %, median ${fmt(quantile(e, 0.5), 3)} % (${e.length} variants)`,
    );
  const rs = rows.filter((r) => r.cover === c);
  const f = rs.reduce((s, r) => s + r.found, 0);
  const v = rs.reduce((s, r) => s + r.variants, 0);
  console.log(`card covering ${c * 100} %: found ${f}/${v}`);
}
console.log(`card found: ${found}/${variants} (${((100 * found) / Math.max(1, variants)).toFixed(1)} %)`);
console.log(
  `patch CIEDE2000 after correction, per photo and light: median of medians ${fmt(
    quantile(
      all((r) => r.medians),
      0.5,
    ),
  )}, ` +
    `p90 of medians ${fmt(
      quantile(
        all((r) => r.medians),
        0.9,
      ),
    )}, median of max ${fmt(
      quantile(
        all((r) => r.maxes),
        0.5,
      ),
    )}, ` +
    `p90 of max ${fmt(
      quantile(
        all((r) => r.maxes),
        0.9,
      ),
    )}, largest max ${fmt(Math.max(...all((r) => r.maxes)))}`,
);
console.log(
  `px/cm from the card, |error|: median ${fmt(
    quantile(
      all((r) => r.scaleErr),
      0.5,
    ),
  )} %, p90 ${fmt(
    quantile(
      all((r) => r.scaleErr),
      0.9,
    ),
  )} %, max ${fmt(Math.max(...all((r) => r.scaleErr)))} %`,
);
console.log(
  `bruise % change across the casts (points), with the card: p50 ${fmt(
    quantile(
      all((r) => r.withCard),
      0.5,
    ),
  )}, p90 ${fmt(
    quantile(
      all((r) => r.withCard),
      0.9,
    ),
  )}, max ${fmt(Math.max(...all((r) => r.withCard)))}; ` +
    `without: p50 ${fmt(
      quantile(
        all((r) => r.without),
        0.5,
      ),
    )}, p90 ${fmt(
      quantile(
        all((r) => r.without),
        0.9,
      ),
    )}, max ${fmt(Math.max(...all((r) => r.without)))}`,
);
console.log(
  `bruise % change with the card where both photos pass the quality checks (apart from the JPEG q30 every variant has): ` +
    `${all((r) => r.accepted).length} of ${all((r) => r.withCard).length} variants, p50 ${fmt(
      quantile(
        all((r) => r.accepted),
        0.5,
      ),
    )}, ` +
    `p90 ${fmt(
      quantile(
        all((r) => r.accepted),
        0.9,
      ),
    )}, max ${fmt(Math.max(...all((r) => r.accepted)))}; ` +
    `flagged variants: ${[...flagged].map(([id, n]) => `${id} ${n}`).join(', ') || 'none'}`,
);
if (diag)
  console.log(
    `bruise % change across the casts with a perfect correction (the oracle of --diag): p50 ${fmt(
      quantile(
        all((r) => r.oracle),
        0.5,
      ),
    )}, p90 ${fmt(
      quantile(
        all((r) => r.oracle),
        0.9,
      ),
    )}, max ${fmt(Math.max(...all((r) => r.oracle)))}`,
  );
for (const [key, v] of byCast)
  console.log(
    `  ${key}: bruise change p90 with the card ${fmt(quantile(v.withCard, 0.9))}, without ${fmt(quantile(v.without, 0.9))} (${v.withCard.length} photos); patch CIEDE2000 after, largest max ${fmt(Math.max(...v.maxDeltaE))}`,
  );
