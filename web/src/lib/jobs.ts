/**
 * More photos than the spec's single-request flow takes go to the server as one batch job
 * (POST /api-node/jobs): uploaded with progress, followed through its Server-Sent Events (fetch
 * with the bearer header), then read back as its stored run (core's `StoredRun` schema). This file
 * knows no plugin: the job's operation is the one the page's plugin declares for its runs
 * (core/src/runs.ts), and each page reads its own plugin's results out of the run (the bruise
 * page's rows: pages/bruise/Bruise/results.ts; the analysis page's items: pages/analysis/Analysis/results.ts).
 * With `keepOverlays` each photo's full-size overlay is kept with the run, so its rows show the
 * overlay the single request answers, read when it is shown rather than all at once.
 */
import { appendMeta, type MetaInput } from './meta.ts';
import { jobOperationOf as declaredJobOperation, type RunDeclaration } from '@mango/core';
import { followJob } from '@mango/core/jobs';
import { StoredRun } from '@mango/core/results';
import { apiJson, refreshTokens } from '#web/api/client.ts';
import { getAccessToken } from '#web/auth/tokens.ts';
import { readUploadRefusal, uploadWithProgress } from './upload.ts';
import { RefusedError } from './refusal.ts';

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

/** A plugin as far as batch jobs go: its id and its declared runs (core/src/plugin.ts `runs`). */
export interface JobPlugin {
  id: string;
  runs?: Pick<RunDeclaration, 'operation' | 'jobOperation'>;
}

/**
 * The operation a batch job of `plugin` asks for: the `jobOperation` its runs declare, else their
 * `operation`. A plugin that declares no runs cannot be a job: an error that names it.
 */
export function jobOperationOf(plugin: JobPlugin): string {
  if (!plugin.runs) throw new Error(`the plugin '${plugin.id}' declares no runs, so it cannot run as a batch job`);
  return declaredJobOperation(plugin.runs);
}

/**
 * Runs the photos as a job of `plugin` and answers its stored run; `onUpdate` follows the upload and
 * the scoring. With `keepOverlays` the run keeps each photo's full-size overlay. A job the server
 * refuses throws a RefusedError (lib/refusal.ts).
 */
export async function runBatchJob(
  plugin: JobPlugin,
  files: readonly File[],
  options: Record<string, unknown>,
  onUpdate: (u: JobUpdate) => void,
  keepOverlays = false,
  meta?: MetaInput,
): Promise<StoredRun> {
  const operation = jobOperationOf(plugin);
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
  const run = await apiJson<unknown>(`/api-node/runs/${encodeURIComponent(end.run_id)}`);
  if (!run.ok) throw new Error(`the results could not be read (${run.status})`);
  // Checked against core's schema (the one the server answers with); the answer itself is kept, so a
  // field the schema does not name yet is not dropped.
  const checked = StoredRun.safeParse(run.data);
  if (!checked.success) throw new Error(`the job's results are not a stored run: ${checked.error.issues[0]?.message}`);
  return run.data as StoredRun;
}
