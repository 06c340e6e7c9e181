/**
 * The bruise plugin's results as this page reads them (the generic run and job client, lib/runs.ts
 * and lib/jobs.ts, knows no plugin): the rows of a batch job's stored run, and the scored and failed
 * photos of a single /api-py call made with `keep_going`.
 */
import { BruiseFailedItem, isBruiseFigures } from '@mango/plugin-bruise/results';
import type { BruiseRow } from '#web/lib/bruiseResults.ts';
import type { PhotoFailure } from '#web/lib/failures.ts';
import { overlayUrl, type StoredRun } from '#web/lib/runs.ts';

/**
 * The bruise results table's rows of a job's run: the full-size overlay kept with the run, read
 * when shown (`overlay_url`); the 256 px thumbnail only when the job did not keep it. Photos that
 * could not be scored are left out (lib/failures.ts `runFailures` lists them).
 */
export function bruiseRowsOf(run: StoredRun): BruiseRow[] {
  return run.items.flatMap((i) => {
    if (!isBruiseFigures(i.result)) return [];
    const overlay = i.full_overlay
      ? { overlay_url: overlayUrl(run.id, i.position) }
      : { overlay_img: i.overlay_thumbnail ?? undefined };
    return [{ ...i.result, filename: i.filename, ...overlay, run_id: run.id }];
  });
}

/** Splits a /api-py bruise answer (with `keep_going`) into its scored items and its failed photos. */
export function splitBruiseAnswer(items: unknown): { scored: unknown[]; failed: PhotoFailure[] } {
  const list = Array.isArray(items) ? (items as unknown[]) : [];
  const failed: PhotoFailure[] = [];
  const scored: unknown[] = [];
  for (const item of list) {
    const parsed = BruiseFailedItem.safeParse(item);
    if (parsed.success)
      failed.push({ filename: parsed.data.filename, error: parsed.data.error, code: parsed.data.code });
    else scored.push(item);
  }
  return { scored, failed };
}
