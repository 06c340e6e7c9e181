/**
 * Re-scoring a stored run with another model (issue 28 item 4) on the client: the model versions
 * (GET /api-node/models), the job (POST /api-node/runs/{id}/rescore, followed like any batch job) and
 * the comparison of two runs of the same photos, photo by photo, as the run page shows it.
 */
import { followJob, type JobProgress } from '@mango/core/jobs';
import { summaryStats } from '@mango/core/results';
import { apiJson, refreshTokens } from '#web/api/client.ts';
import { getAccessToken } from '#web/auth/tokens.ts';
import type { StoredRun } from './runs.ts';

export interface ModelVersion {
  id: string;
  task: string;
  sha256: string;
  builtin: boolean;
  active: boolean;
}

/** The model versions the server knows, built-in first. */
export async function fetchModels(): Promise<ModelVersion[]> {
  const { ok, data } = await apiJson<{ versions?: ModelVersion[]; error?: string }>('/api-node/models');
  if (!ok || !data?.versions) throw new Error(data?.error ?? 'Failed to fetch the models');
  return data.versions;
}

/** Starts the re-scoring of run `runId` with `modelId`; answers the job's id (the server's reason when refused). */
export async function startRescore(runId: string, modelId: string): Promise<string> {
  const { ok, data } = await apiJson<{ id?: string; error?: string }>(
    `/api-node/runs/${encodeURIComponent(runId)}/rescore`,
    { method: 'POST', body: JSON.stringify({ model_id: modelId }) },
  );
  if (!ok || !data?.id) throw new Error(data?.error ?? 'The re-scoring was refused');
  return data.id;
}

/** Follows the job to its end (its Server-Sent Events), reporting each change. */
export const followRescore = (jobId: string, onProgress: (p: JobProgress) => void): Promise<JobProgress> =>
  followJob(window.location.origin, jobId, () => getAccessToken() ?? '', onProgress, undefined, refreshTokens);

/** The first 8 hex digits of a sha256, as the page names a model file. */
export const shortSha = (sha: string | null | undefined) => (sha ? sha.slice(0, 8) : '–');

export interface ComparedPhoto {
  filename: string;
  /** the bruise % of the first run's model (null: not scored there) */
  first: number | null;
  second: number | null;
  /** second − first, in points */
  difference: number | null;
}

export interface Comparison {
  photos: ComparedPhoto[];
  /** photos scored in both */
  n: number;
  mean_difference: number | null;
  median_difference: number | null;
  mean_absolute_difference: number | null;
}

/** A photo's bruise % as its model gave it (a corrected photo keeps the model's beside the truth). */
function modelPercent(item: StoredRun['items'][number]): number | null {
  const r = (item.model_result ?? item.result) as { bruise_percent?: unknown };
  return typeof r.bruise_percent === 'number' ? r.bruise_percent : null;
}

/**
 * The photos of two runs of the same photos (a run and its re-scoring), matched by content (sha256)
 * and name, in the first run's order; each with both models' bruise % and the difference, and the
 * mean and median difference over the photos scored in both.
 */
export function compareRuns(first: StoredRun, second: StoredRun): Comparison {
  const key = (i: StoredRun['items'][number]) => `${i.sha256}/${i.filename}`;
  const others = new Map<string, StoredRun['items'][number][]>();
  for (const i of second.items) others.set(key(i), [...(others.get(key(i)) ?? []), i]);
  const photos = first.items.map((i): ComparedPhoto => {
    const match = others.get(key(i))?.shift();
    const a = modelPercent(i);
    const b = match ? modelPercent(match) : null;
    return { filename: i.filename, first: a, second: b, difference: a !== null && b !== null ? b - a : null };
  });
  const differences = photos.flatMap((p) => (p.difference === null ? [] : [p.difference]));
  const stats = summaryStats(differences, 0);
  return {
    photos,
    n: differences.length,
    mean_difference: stats.mean,
    median_difference: stats.median,
    mean_absolute_difference: differences.length
      ? differences.reduce((s, d) => s + Math.abs(d), 0) / differences.length
      : null,
  };
}
