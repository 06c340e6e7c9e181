/**
 * The truth of a stored run's photos (issue 28): the masks a person corrected in the mask editor
 * (or imported from COCO, CVAT or Label Studio), one version per save, never overwritten. Saving
 * one counts its figures with the run's plugin (`correct`, then its `finish`: grading) on the kept
 * photo, so the run shows the figures in force with the model's beside them. Masks are stored as
 * COCO RLE strings at the photo's size. Nothing here names a plugin.
 */
import { modelsOfRun, type ModelRegistry } from '../models/registry.ts';
import {
  decodeCocoRle,
  encodeCocoRle,
  finishResult,
  isFailedItem,
  MangoError,
  planRun,
  runKindOf,
  type ImageBackend,
  type PluginRegistry,
  type RasterImage,
  type ResultFigures,
  type RunKind,
  type TruthMasks,
} from '@mango/core';
import { thumbnailDataUrl } from '@mango/core/node';
import { THUMBNAIL_MAX_SIDE } from '@mango/core/results';
import { maskPng } from '@mango/runner';
import type { ExpressionBuilder } from 'kysely';
import { now, type DB } from '../db/index.ts';
import type { Database } from '../db/schema.ts';
import type { RunPhotoStore } from './photos.ts';
import type { ScoreDeps } from './service.ts';
import { rescoredImages, type RescoredCache } from './rescored.ts';
import { latestTruths, runFigures, truthColumns, type TruthVersion } from './store.ts';

export interface TruthDeps {
  db: DB;
  registry: PluginRegistry;
  runPhotos: RunPhotoStore;
  images: ImageBackend;
}

/** A truth that cannot be saved for what the photo is (not kept, not scored): answered 409 with the reason. */
export class TruthConflict extends Error {}

const refuse = (code: 'INVALID_INPUT' | 'CONFLICT', message: string) =>
  code === 'CONFLICT' ? new TruthConflict(message) : new MangoError(code, message);

/** The item of the caller's run at `position`, with its run, or null (no such run of theirs, no such photo). */
async function ownedItem(db: DB, userId: number, runId: string, position: number) {
  return db
    .selectFrom('run_items')
    .innerJoin('runs', 'runs.id', 'run_items.run_id')
    .select(['runs.operation', 'runs.options', 'run_items.filename', 'run_items.result'])
    .where('runs.id', '=', runId)
    .where('runs.user_id', '=', userId)
    .where('run_items.position', '=', position)
    .executeTakeFirst();
}

/** The masks of the latest truth of item `position` of the caller's run, or null (none, or not theirs). */
export async function truthMasks(
  db: DB,
  userId: number,
  runId: string,
  position: number,
): Promise<(TruthVersion & { masks: TruthMasks }) | null> {
  if (!(await ownedItem(db, userId, runId, position))) return null;
  const row = await db
    .selectFrom('photo_truths')
    .innerJoin('users', 'users.id', 'photo_truths.created_by')
    .select([...truthColumns, 'photo_truths.fruit_rle', 'photo_truths.bruise_rle'])
    .where('photo_truths.run_id', '=', runId)
    .where('photo_truths.position', '=', position)
    .orderBy('photo_truths.version', 'desc')
    .limit(1)
    .executeTakeFirst();
  if (!row) return null;
  const { fruit_rle, bruise_rle, position: _p, result: _r, ...truth } = row;
  const decode = (s: string) => decodeMask(s, row.width, row.height);
  return {
    ...truth,
    masks: { width: row.width, height: row.height, fruit: decode(fruit_rle), bruise: decode(bruise_rle) },
  };
}

/** `t` (photo_truths as t) is the latest version of its photo's truth: for the queries over the latest masks. */
export const isLatestTruth = (eb: ExpressionBuilder<Database & { t: Database['photo_truths'] }, 't'>) =>
  eb(
    't.version',
    '=',
    eb
      .selectFrom('photo_truths as l')
      .select((l) => l.fn.max('l.version').as('v'))
      .whereRef('l.run_id', '=', 't.run_id')
      .whereRef('l.position', '=', 't.position'),
  );

/**
 * The masks of the latest truth of every corrected photo of run `runId` (the caller's: checked
 * before), by position; of photo `position` alone when given.
 */
export async function latestTruthMasks(db: DB, runId: string, position?: number): Promise<Map<number, TruthMasks>> {
  let q = db
    .selectFrom('photo_truths as t')
    .select(['t.position', 't.width', 't.height', 't.fruit_rle', 't.bruise_rle'])
    .where('t.run_id', '=', runId);
  if (position !== undefined) q = q.where('t.position', '=', position);
  const rows = await q.where(isLatestTruth).execute();
  return new Map(
    rows.map((r) => [
      r.position,
      {
        width: r.width,
        height: r.height,
        fruit: decodeMask(r.fruit_rle, r.width, r.height),
        bruise: decodeMask(r.bruise_rle, r.width, r.height),
      },
    ]),
  );
}

/** A stored COCO RLE counts string as a 0/1 mask of width x height. */
export const decodeMask = (counts: string, width: number, height: number): Uint8Array =>
  decodeCocoRle({ size: [height, width], counts }).mask;

/**
 * The 256 px overlay thumbnail (a JPEG data URL) of a photo's corrected masks, drawn as the model's
 * overlay was (the kind's `correctedOverlay`, with the marks of the model's result), or null when the
 * kind draws none. What a saved truth version stores, and what the backfill (overlay-backfill.ts)
 * draws for a version saved before versions stored one.
 */
export async function correctedThumbnail(
  kind: RunKind,
  model: ResultFigures,
  masks: TruthMasks,
  image: RasterImage,
  options: Record<string, unknown>,
): Promise<string | null> {
  const draw = kind.runs.correctedOverlay;
  return draw ? thumbnailDataUrl(draw(model, masks, image, options), THUMBNAIL_MAX_SIDE) : null;
}

/**
 * Saves `masks` as the next truth version of item `position` of the caller's run: the figures are
 * counted on the kept photo by the run's plugin. Null: no such run or photo of the caller's.
 * Refused (409) when the photo was not kept or could not be scored, or the kind of run has no truth;
 * 400 when the masks are not the photo's size.
 */
export async function saveTruth(
  deps: TruthDeps,
  userId: number,
  runId: string,
  position: number,
  masks: TruthMasks,
  meta: { modelId: string | null; source: string },
): Promise<(TruthVersion & { result: ResultFigures }) | null> {
  const item = await ownedItem(deps.db, userId, runId, position);
  if (!item) return null;
  const kind = runKindOf(deps.registry, item.operation);
  if (!kind?.runs.correct) throw refuse('CONFLICT', `a ${item.operation} run has no masks to correct`);
  const model = JSON.parse(item.result) as ResultFigures;
  if (isFailedItem(model)) throw refuse('CONFLICT', `${item.filename} could not be scored: it has no masks to correct`);
  const photo = await deps.runPhotos.read(deps.db, runId, position);
  if (!photo) throw refuse('CONFLICT', `the photo ${item.filename} was not kept with its run: it cannot be corrected`);
  const image = await deps.images.decode(photo.bytes, item.filename);
  if (image.width !== masks.width || image.height !== masks.height)
    throw refuse(
      'INVALID_INPUT',
      `the masks are ${masks.width}x${masks.height}, the photo ${item.filename} is ${image.width}x${image.height}`,
    );
  const plan = planRun(deps.registry, item.operation, JSON.parse(item.options));
  const result = finishResult(plan, kind.runs.correct(model, masks, image));
  // The run's overlay of this photo from now on: the masks drawn as the model's overlay was (its marks too).
  const overlay = await correctedThumbnail(kind, model, masks, image, JSON.parse(item.options));
  const fruit = encodeCocoRle(masks.fruit, masks.width, masks.height).counts as string;
  const bruise = encodeCocoRle(masks.bruise, masks.width, masks.height).counts as string;
  const saved = await deps.db.transaction().execute(async (trx) => {
    const last = await trx
      .selectFrom('photo_truths')
      .select((eb) => eb.fn.max('version').as('version'))
      .where('run_id', '=', runId)
      .where('position', '=', position)
      .executeTakeFirst();
    const version = Number(last?.version ?? 0) + 1;
    const row = {
      run_id: runId,
      position,
      version,
      width: masks.width,
      height: masks.height,
      fruit_rle: fruit,
      bruise_rle: bruise,
      result: JSON.stringify(result),
      model_id: meta.modelId,
      source: meta.source,
      overlay_thumbnail: overlay,
      // nothing for the backfill to draw (overlay-backfill.ts)
      overlay_backfill: overlay ? null : 'not-drawn',
      created_by: userId,
      created_at: now(),
    };
    await trx.insertInto('photo_truths').values(row).execute();
    // The run list's summary follows the figures in force.
    const items = await trx
      .selectFrom('run_items')
      .select(['position', 'result'])
      .where('run_id', '=', runId)
      .execute();
    const truths = await latestTruths(trx, runId);
    const inForce = items.map((i) => {
      const t = truths.get(i.position);
      return { result: t ? JSON.stringify(t.result) : i.result };
    });
    await trx
      .updateTable('runs')
      .set({ summary: runFigures(kind, inForce).summary })
      .where('id', '=', runId)
      .execute();
    return truths.get(position)!.truth;
  });
  return { ...saved, result };
}

/**
 * The masks the run's model gives a kept photo (the mask editor's start when the photo has no
 * truth yet): the photo scored again with the run's options, its declared truth images asked for.
 * Null: no such run or photo of the caller's.
 */
export async function modelMasks(
  deps: TruthDeps & { score: ScoreDeps; models: ModelRegistry; cache: RescoredCache },
  userId: number,
  runId: string,
  position: number,
): Promise<(TruthMasks & { model_id: string | null; probabilityPng?: Uint8Array }) | null> {
  const item = await ownedItem(deps.db, userId, runId, position);
  if (!item) return null;
  const kind = runKindOf(deps.registry, item.operation);
  const images = kind?.runs.truthImages;
  if (!images) throw refuse('CONFLICT', `a ${item.operation} run has no masks to correct`);
  const kept = await deps.db
    .selectFrom('run_photos')
    .select('position')
    .where('run_id', '=', runId)
    .where('position', '=', position)
    .executeTakeFirst();
  if (!kept) throw refuse('CONFLICT', `the photo ${item.filename} was not kept with its run: it cannot be corrected`);
  const plan = planRun(deps.registry, item.operation, JSON.parse(item.options));
  const model = JSON.parse(item.result) as ResultFigures;
  const modelId = typeof model.model_id === 'string' ? model.model_id : null;
  // scored again with the model the run recorded (its figures are that model's), else those in force
  const score = { ...deps.score, models: await modelsOfRun(deps.models, modelId) };
  const r = await rescoredImages(
    { db: deps.db, runPhotos: deps.runPhotos, score, cache: deps.cache },
    plan,
    runId,
    { position, filename: item.filename },
    [images.fruit, images.bruise, ...(images.probability ? [images.probability] : [])],
  );
  if (!r.ok) throw refuse('CONFLICT', `${item.filename} could not be scored again: ${r.message}`);
  const mask = async (name: string) => {
    const bytes = r.images[name]?.bytes;
    if (!bytes) throw new Error(`the plugin gave no ${name}`);
    const img = await deps.images.decode(bytes, `${name}.png`);
    const m = new Uint8Array(img.width * img.height);
    for (let i = 0; i < m.length; i++) m[i] = img.data[i * 4] >= 128 ? 1 : 0;
    return { width: img.width, height: img.height, mask: m };
  };
  const fruit = await mask(images.fruit);
  const bruise = await mask(images.bruise);
  // The probability map as the runner encoded it (a lossless PNG at the photo's size), passed on as is.
  const probabilityPng = images.probability ? r.images[images.probability]?.bytes : undefined;
  return {
    width: fruit.width,
    height: fruit.height,
    fruit: fruit.mask,
    bruise: bruise.mask,
    model_id: modelId,
    ...(probabilityPng ? { probabilityPng } : {}),
  };
}

/** A file of a run's zip export: its folder, the suffix after the photo's stem, its bytes. */
export interface TruthExportFile {
  folder: string;
  suffix: string;
  bytes: Uint8Array;
}

/** The suffix the model's own mask takes beside a corrected one in a zip export (`.fruit.png` -> `.model.fruit.png`). */
export const modelSuffix = (suffix: string) => `.model${suffix}`;

/**
 * The corrected masks of a run's photos as its zip export holds them (issue 28): per corrected
 * position, the masks in force (the latest truth) as the 0/255 PNGs the kind's full export names
 * its truth images (`masks/<stem>.fruit.png`, `masks/<stem>.bruise.png`). Empty for a kind of run
 * without truth images in its full export.
 */
export async function truthExportFiles(db: DB, kind: RunKind, runId: string): Promise<Map<number, TruthExportFile[]>> {
  const images = kind.runs.truthImages;
  const declared = (image: string | undefined) => kind.runs.fullExport?.find((a) => a.image === image);
  const fruit = declared(images?.fruit);
  const bruise = declared(images?.bruise);
  const out = new Map<number, TruthExportFile[]>();
  if (!fruit || !bruise) return out;
  for (const [position, m] of await latestTruthMasks(db, runId)) {
    const png = (mask: Uint8Array) => maskPng({ data: mask, width: m.width, height: m.height });
    out.set(position, [
      { folder: fruit.folder, suffix: fruit.suffix, bytes: await png(m.fruit) },
      { folder: bruise.folder, suffix: bruise.suffix, bytes: await png(m.bruise) },
    ]);
  }
  return out;
}

/**
 * Whether `image` (a plugin's extra image) is one of the truth images of `kind`: the masks a person
 * corrects, or the overlay drawn from them when the kind draws one (`correctedOverlay`).
 */
export const isTruthImage = (kind: RunKind, image: string) =>
  image === kind.runs.truthImages?.fruit ||
  image === kind.runs.truthImages?.bruise ||
  (Boolean(kind.runs.correctedOverlay) && image === kind.runs.truthImages?.overlay);

/**
 * The full export's overlay of a corrected photo (item `position` of run `runId`, the caller's:
 * checked before): its latest truth drawn on the kept photo at the photo's size, as the model's
 * full overlay is (`correctedOverlay`: the same outlines, ring and card outline), JPEG. Null when
 * the kind draws none, or the photo has no truth or no kept photo.
 */
export async function fullCorrectedOverlay(
  deps: Pick<TruthDeps, 'db' | 'runPhotos' | 'images'>,
  kind: RunKind,
  run: { id: string; options: Record<string, unknown> },
  item: { position: number; filename: string; model: ResultFigures },
): Promise<Uint8Array | null> {
  const draw = kind.runs.correctedOverlay;
  if (!draw) return null;
  const masks = (await latestTruthMasks(deps.db, run.id, item.position)).get(item.position);
  const photo = masks && (await deps.runPhotos.read(deps.db, run.id, item.position));
  if (!masks || !photo) return null;
  const image = await deps.images.decode(photo.bytes, item.filename);
  const overlay = draw(item.model, masks, image, run.options, Math.max(image.width, image.height));
  return deps.images.encode(overlay, 'jpeg', { quality: 85 });
}
