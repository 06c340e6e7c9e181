/**
 * More photos than the spec's single-request flow takes go to the server as one batch job
 * (POST /api-node/jobs): uploaded with progress, followed through its Server-Sent Events (fetch
 * with the bearer header), then read back from its stored run as the rows the results pages show.
 * A bruise job keeps each photo's full-size overlay with the run (`keep_overlays`), so its rows
 * show the overlay the single request answers, read when it is shown rather than all at once.
 */
import { appendMeta, type MetaInput } from './meta.ts';
import { followJob } from '@mango/core/jobs';
import { apiJson, refreshTokens } from '#web/api/client.ts';
import { getAccessToken } from '#web/auth/tokens.ts';
import type { BruiseRow } from './bruiseResults.ts';
import { overlayUrl, type StoredRun } from './runs.ts';
import { readUploadRefusal, uploadWithProgress } from './upload.ts';
import { RefusedError } from './refusal.ts';
import { isBruiseFigures } from '@mango/plugin-bruise/results';
import { type FeatureResultItem } from '@mango/plugin-features/results';

/** Up to this many photos the pages keep the spec's flow (one request); more go as a job. */
export const JOB_THRESHOLD = 10;

export interface JobUpdate {
  phase: 'uploading' | 'processing';
  /** photos with a result or an error */
  finished: number;
  total: number;
  /** 0 to 1 of the phase */
  fraction: number;
}

/**
 * Runs the photos as a job and answers its stored run; `onUpdate` follows the upload and the
 * scoring. With `keepOverlays` the run keeps each photo's full-size overlay. A job the server
 * refuses throws a RefusedError (lib/refusal.ts).
 */
export async function runBatchJob(
  operation: 'bruise' | 'features',
  files: readonly File[],
  options: Record<string, unknown>,
  onUpdate: (u: JobUpdate) => void,
  keepOverlays = false,
  meta?: MetaInput,
): Promise<StoredRun> {
  const total = files.length;
  const form = new FormData();
  form.append('operation', operation);
  form.append('options', JSON.stringify(options));
  if (keepOverlays) form.append('keep_overlays', 'true');
  appendMeta(form, meta);
  for (const f of files) form.append('images', f, f.name);
  onUpdate({ phase: 'uploading', finished: 0, total, fraction: 0 });
  const sent = await uploadWithProgress('/api-node/jobs', form, (fraction) =>
    onUpdate({ phase: 'uploading', finished: 0, total, fraction }),
  );
  // A refused job (413 too large, 429 too many photos queued or uploads at once, with Retry-After)
  // throws its refusal: the pages show the reason and the time to wait.
  if (!sent.ok) throw new RefusedError(await readUploadRefusal(sent), `the job was refused (${sent.status})`);
  const answer = JSON.parse((await sent.body.text()) || '{}') as { id?: string };
  if (!answer.id) throw new Error(`the job was refused (${sent.status})`);
  const end = await followJob(
    window.location.origin,
    answer.id,
    () => getAccessToken() ?? '',
    (p) => {
      const finished = p.done + p.failed;
      onUpdate({ phase: 'processing', finished, total: p.total, fraction: p.total ? finished / p.total : 1 });
    },
    undefined,
    // A job may outlive the access token: refreshed once it is refused, then followed on.
    refreshTokens,
  );
  if (end.state !== 'done' || !end.run_id) throw new Error(`the job ended ${end.state}`);
  const run = await apiJson<StoredRun>(`/api-node/runs/${encodeURIComponent(end.run_id)}`);
  if (!run.ok) throw new Error(`the results could not be read (${run.status})`);
  return run.data;
}

/**
 * The bruise results table's rows of a job's run: the full-size overlay kept with the run, read
 * when shown (`overlay_url`); the 256 px thumbnail only when the job did not keep it.
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

/** The feature analysis items of a job's run (photos that failed are left out). */
export function featureItemsOf(run: StoredRun): FeatureResultItem[] {
  return run.items.flatMap((i) =>
    'features' in i.result ? [{ ...(i.result as FeatureResultItem), run_id: run.id }] : [],
  );
}

/** Photos of the run that could not be scored. */
export const failedCount = (run: StoredRun) => run.items.filter((i) => 'error' in i.result).length;
