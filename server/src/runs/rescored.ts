/**
 * A stored run's kept photo scored again (issue 28): the mask editor's start (`model-masks`) and the
 * full-resolution export ask for images a run does not store (the masks at the photo's size, the
 * lesion probability, the overlay at full size), so the photo is scored again with the run's options
 * and the model it recorded. The images are cached in memory, keyed by run, photo, the sha256 of the
 * models it was scored with and the image's name, at most `maxBytes` of encoded images (the least
 * recently used are let go first); a run's are dropped when it is deleted (runs/service.ts
 * deleteRun). Kept photos never change, so an entry is right as long as its run exists. Nothing here
 * names a plugin.
 */
import type { RunPlan } from '@mango/core';
import { LRUCache } from 'lru-cache';
import type { EncodedImage } from '@mango/runner';
import type { DB } from '../db/index.ts';
import type { RunPhotoStore } from './photos.ts';
import { scoreUploads, type ScoreDeps } from './service.ts';

/** The encoded images the cache holds at most by default: a few dozen 12 MP photos' masks and overlays. */
export const RESCORED_CACHE_BYTES = 256 * 1024 * 1024;

export interface RescoredCache {
  get(key: string): EncodedImage | undefined;
  set(key: string, image: EncodedImage): void;
  /** lets go of every image of run `runId` (deleted) */
  dropRun(runId: string): void;
  /** bytes and images held, and how many asks were answered from it */
  stats(): { bytes: number; entries: number; hits: number; misses: number };
}

/** A bounded least-recently-used cache of re-scored images (lru-cache, sized by the encoded bytes). */
export function createRescoredCache(maxBytes = RESCORED_CACHE_BYTES): RescoredCache {
  const entries = new LRUCache<string, EncodedImage>({
    maxSize: maxBytes,
    // an image over the whole budget is not kept (lru-cache refuses it without throwing)
    sizeCalculation: (image) => Math.max(1, image.bytes.byteLength),
  });
  let hits = 0;
  let misses = 0;
  return {
    get(key) {
      const image = entries.get(key);
      if (image) hits++;
      else misses++;
      return image;
    },
    set(key, image) {
      entries.set(key, image);
    },
    dropRun(runId) {
      for (const key of [...entries.keys()]) if (key.startsWith(`${runId}\n`)) entries.delete(key);
    },
    stats: () => ({ bytes: entries.calculatedSize, entries: entries.size, hits, misses }),
  };
}

export interface RescoreDeps {
  db: DB;
  runPhotos: RunPhotoStore;
  score: ScoreDeps;
  cache: RescoredCache;
}

/** What scoring a kept photo again gave: the images asked for, or why it could not be scored. */
export type Rescored = { ok: true; images: Record<string, EncodedImage> } | { ok: false; message: string };

/**
 * The images `names` of kept photo `item` of run `runId` scored again with `plan` and the models of
 * `deps.score` (the run's): from the cache, or the photo is scored for those it lacks. Throws when
 * the photo is not kept (the caller checked it was).
 */
export async function rescoredImages(
  deps: RescoreDeps,
  plan: RunPlan,
  runId: string,
  item: { position: number; filename: string },
  names: readonly string[],
): Promise<Rescored> {
  const models = (deps.score.models ?? [])
    .map((m) => m.sha256)
    .sort()
    .join(',');
  const key = (name: string) => `${runId}\n${item.position}\n${models}\n${name}`;
  const images: Record<string, EncodedImage> = {};
  const missing: string[] = [];
  for (const name of names) {
    const hit = deps.cache.get(key(name));
    if (hit) images[name] = hit;
    else missing.push(name);
  }
  if (missing.length === 0) return { ok: true, images };
  const photo = await deps.runPhotos.read(deps.db, runId, item.position);
  if (!photo) throw new Error(`run ${runId}: the kept photo of item ${item.position} is gone`);
  const [scored] = await scoreUploads(deps.score, plan, [{ name: item.filename, bytes: photo.bytes }], false, {
    images: missing,
  });
  const r = scored.result;
  if (!r.ok) return { ok: false, message: r.error.message };
  for (const name of missing) {
    const image = r.images[name];
    if (!image) continue;
    images[name] = image;
    deps.cache.set(key(name), image);
  }
  return { ok: true, images };
}
