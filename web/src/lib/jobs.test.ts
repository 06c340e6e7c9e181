/**
 * The generic run and job client names no plugin (issue 24): a job's operation comes from the page's
 * plugin declaration, a run's failed photos are read for any plugin, and each page reads its own
 * plugin's results out of a stored run. The runs here are made as the server stores them: the
 * registry's real plugins score a real scene (planRun, runPipeline, finishResult, storedResult) and a
 * file that is no image fails, and the run is checked by core's StoredRun schema.
 */
import { describe, expect, it } from 'vitest';
import {
  createContext,
  finishResult,
  MangoError,
  photoErrorText,
  planRun,
  runPipeline,
  storedResult,
  type RasterImage,
} from '@mango/core';
import { StoredRun } from '@mango/core/results';
import { nodeImages } from '@mango/core/node';
import { bruisedPairScene } from '@mango/core/testing';
import { registry } from '@mango/plugins';
import bruise from '@mango/plugin-bruise';
import features from '@mango/plugin-features';
import crop from '@mango/plugin-crop';
import { jobOperationOf } from './jobs.ts';
import { failedItems, overlayUrl } from './runs.ts';
import { runFailures } from './failures.ts';
import { bruiseItems } from '#web/pages/results/bruiseItems.ts';
import { bruiseRowsOf } from '#web/pages/bruise/Bruise/results.ts';
import { featureItemsOf } from '#web/pages/analysis/Analysis/results.ts';

/** A run of `operation` over the photos as the server stores it: scored ones, and `broken` that fails. */
async function storedRun(
  operation: string,
  options: Record<string, unknown>,
  photos: { name: string; image: RasterImage; fullOverlay: boolean }[],
  broken: string,
): Promise<StoredRun> {
  const plan = planRun(registry, operation, options);
  const items = [];
  for (const [position, photo] of photos.entries()) {
    const ctx = createContext(nodeImages, { filename: photo.name, want: [] });
    const figures = finishResult(plan, (await runPipeline(registry, plan.steps, photo.image, ctx)) as never);
    items.push({
      id: position + 1,
      position,
      filename: photo.name,
      sha256: `sha-${position}`,
      width: photo.image.width,
      height: photo.image.height,
      result: storedResult(plan.kind, photo.name, { figures }),
      overlay_thumbnail: photo.fullOverlay ? null : 'data:image/jpeg;base64,AAAA',
      full_overlay: photo.fullOverlay,
      photo_kept: true,
    });
  }
  // The failure as the server words it: the decoder's refusal of a file that is no image.
  const refusal = await nodeImages.decode(new TextEncoder().encode('not an image')).then(
    () => null,
    (e: unknown) => e as MangoError,
  );
  expect(refusal).toBeInstanceOf(MangoError);
  items.push({
    id: photos.length + 1,
    position: photos.length,
    filename: broken,
    sha256: 'sha-broken',
    width: null,
    height: null,
    result: storedResult(plan.kind, broken, { error: photoErrorText(refusal!) }),
    overlay_thumbnail: null,
    full_overlay: false,
    photo_kept: false,
  });
  return StoredRun.parse({
    id: `run-${operation}`,
    operation: plan.kind.runs.operation,
    method: plan.kind.runs.method?.(plan.options as never) ?? null,
    method_used: null,
    plugin_version: null,
    model_id: null,
    model_sha256: null,
    options: plan.options,
    app_version: '0.0.0',
    created_at: '2026-11-27T00:00:00.000Z',
    meta: null,
    username: 'w24',
    organization: 'lab',
    item_count: items.length,
    summary: {},
    rescored_from: null,
    items,
    rescores: [],
  });
}

describe('a batch job of a plugin', () => {
  it('asks for the job operation the plugin declares (features: its runs are stored as analyze)', () => {
    expect(jobOperationOf(bruise)).toBe('bruise');
    expect(features.runs?.operation).toBe('analyze');
    expect(jobOperationOf(features)).toBe('features');
  });
  it('refuses a plugin that declares no runs, by name', () => {
    expect(crop.runs).toBeUndefined();
    expect(() => jobOperationOf(crop)).toThrow("the plugin 'crop' declares no runs, so it cannot run as a batch job");
  });
});

describe("a stored run read by the generic client and by each page's own helpers", () => {
  it('bruise: the scored photos as rows with their overlays, the failed photo with its error', async () => {
    const scene = bruisedPairScene().image;
    const run = await storedRun(
      'bruise',
      { method: 'classical' },
      [
        { name: 'pair-kept.png', image: scene, fullOverlay: true },
        { name: 'pair-thumb.png', image: scene, fullOverlay: false },
      ],
      'notes.jpg',
    );
    const failed = failedItems(run);
    expect(failed.map((f) => [f.item.filename, f.item.position])).toEqual([['notes.jpg', 2]]);
    expect(failed[0].error).toMatch(/\S/);
    expect(failed[0].error).toBe(run.items[2].result.error);
    expect(runFailures(run)).toEqual([{ filename: 'notes.jpg', error: failed[0].error }]);

    const scored = bruiseItems(run);
    expect(scored.map((s) => s.item.filename)).toEqual(['pair-kept.png', 'pair-thumb.png']);
    // The left fruit of the scene has a bruise of radius 26 px: both photos score it the same, above 0.
    const percent = scored[0].figures.bruise_percent;
    expect(percent).toBeGreaterThan(0);
    expect(scored[1].figures.bruise_percent).toBe(percent);
    expect(scored[0].figures.total_mango_pixels).toBe(run.items[0].result.total_mango_pixels);

    const rows = bruiseRowsOf(run);
    expect(rows.map((r) => [r.filename, r.run_id, r.bruise_percent])).toEqual([
      ['pair-kept.png', 'run-bruise', percent],
      ['pair-thumb.png', 'run-bruise', percent],
    ]);
    expect(rows[0].overlay_url).toBe(overlayUrl('run-bruise', 0));
    expect(rows[0].overlay_img).toBeUndefined();
    expect(rows[1].overlay_url).toBeUndefined();
    expect(rows[1].overlay_img).toBe('data:image/jpeg;base64,AAAA');
    // A feature page's reader finds nothing in a bruise run.
    expect(featureItemsOf(run)).toEqual([]);
  });

  it("features: the analysed photos as the analysis page's items, the failed photo left to runFailures", async () => {
    const run = await storedRun(
      'features',
      { features: ['area', 'hsv'] },
      [{ name: 'pair.png', image: bruisedPairScene().image, fullOverlay: false }],
      'empty.png',
    );
    const items = featureItemsOf(run);
    expect(items).toHaveLength(1);
    expect(items[0].image_name).toBe('pair.png');
    expect(items[0].run_id).toBe('run-features');
    expect(Object.keys(items[0].features ?? {}).sort()).toEqual(['area', 'hsv']);
    expect(runFailures(run).map((f) => f.filename)).toEqual(['empty.png']);
    // The run page's bruise reader finds nothing in an analysis.
    expect(bruiseItems(run)).toEqual([]);
    expect(bruiseRowsOf(run)).toEqual([]);
  });
});
