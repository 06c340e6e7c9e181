/**
 * Truth as data (issue 28 item 2): a stored run's corrected photos exported as the annotation file
 * its kind declares (RunDeclaration.annotations: COCO for bruise runs), and annotation files
 * imported onto its photos, matched by file name, each match saved as a new truth version
 * (runs/truth.ts saveTruth: counted on the kept photo, its source `import:<format>`). Nothing here
 * names a plugin.
 */
import { MangoError, runKindOf, type AnnotationInput, type PluginRegistry, type RunAnnotations } from '@mango/core';
import type { DB } from '../db/index.ts';
import { APP_VERSION } from './store.ts';
import { latestTruthMasks, saveTruth, TruthConflict, type TruthDeps } from './truth.ts';

export interface AnnotationMatch {
  filename: string;
  position: number;
  version: number;
}
export interface AnnotationMiss {
  name: string;
  reason: string;
}

/** The caller's run `runId` with its kind's annotations and its items in order, or null (no such run of theirs). */
async function annotatedRun(db: DB, registry: PluginRegistry, userId: number, runId: string) {
  const run = await db
    .selectFrom('runs')
    .select(['id', 'operation'])
    .where('id', '=', runId)
    .where('user_id', '=', userId)
    .executeTakeFirst();
  if (!run) return null;
  const annotations: RunAnnotations | undefined = runKindOf(registry, run.operation)?.runs.annotations;
  if (!annotations) throw new TruthConflict(`a ${run.operation} run has no annotations`);
  const items = await db
    .selectFrom('run_items')
    .select(['position', 'filename'])
    .where('run_id', '=', runId)
    .orderBy('position')
    .execute();
  return { run, annotations, items };
}

/**
 * The annotation file of every corrected photo of the caller's run (the latest truth of each, named
 * by the item's file name), or null: no such run of theirs. 409 (TruthConflict): its kind has none.
 */
export async function exportAnnotations(deps: { db: DB; registry: PluginRegistry }, userId: number, runId: string) {
  const found = await annotatedRun(deps.db, deps.registry, userId, runId);
  if (!found) return null;
  const truths = await latestTruthMasks(deps.db, runId);
  const photos = found.items.flatMap((i) => {
    const masks = truths.get(i.position);
    return masks ? [{ filename: i.filename, masks }] : [];
  });
  const info = {
    description: `Mango Bruise Tracker corrections of run ${runId}`,
    version: APP_VERSION,
    date_created: new Date().toISOString(),
    run_id: runId,
  };
  return { file: found.annotations.write(photos, info), type: found.annotations.exportType, count: photos.length };
}

/**
 * Imports an annotation file onto the caller's run: each photo the file annotates is matched to the
 * run's photos by file name and saved as a new truth version; a name that matches no photo, masks of
 * another size than the photo, or a photo that cannot take a truth (not kept, not scored) is listed
 * unmatched with the reason. Null: no such run of theirs. A file of no known format: INVALID_INPUT.
 */
export async function importAnnotations(
  deps: TruthDeps,
  userId: number,
  runId: string,
  input: AnnotationInput,
): Promise<{ source: string; matched: AnnotationMatch[]; unmatched: AnnotationMiss[] } | null> {
  const found = await annotatedRun(deps.db, deps.registry, userId, runId);
  if (!found) return null;
  const opened = found.annotations.read(input, (bytes, name) => deps.images.decode(bytes, name));
  const source = `import:${opened.source}`;
  const byEntry = new Map<string, typeof found.items>();
  for (const item of found.items) {
    const entry = opened.entryOf(item.filename);
    if (entry !== null) byEntry.set(entry, [...(byEntry.get(entry) ?? []), item]);
  }
  const matched: AnnotationMatch[] = [];
  const unmatched: AnnotationMiss[] = [];
  for (const name of opened.entries()) {
    const items = byEntry.get(name);
    if (!items) {
      unmatched.push({ name, reason: 'no photo of the run has this file name' });
      continue;
    }
    for (const item of items) {
      try {
        const masks = await opened.masks(item.filename);
        if (!masks) {
          unmatched.push({ name, reason: 'the file holds no masks for this photo' });
          continue;
        }
        const saved = await saveTruth(deps, userId, runId, item.position, masks, { modelId: null, source });
        if (saved) matched.push({ filename: item.filename, position: item.position, version: saved.version });
      } catch (e) {
        if (e instanceof TruthConflict || (e instanceof MangoError && e.code === 'INVALID_INPUT'))
          unmatched.push({ name, reason: e.message });
        else throw e;
      }
    }
  }
  return { source, matched, unmatched };
}
