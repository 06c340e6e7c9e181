/**
 * Re-scoring a stored run with another model (issue 28 item 4) on the client: the model versions
 * (GET /api-node/models) and the job (POST /api-node/runs/{id}/rescore, followed like any batch job).
 * The run page compares the two runs photo by photo with the bruise plugin's `compareRuns`
 * (`@mango/plugin-bruise/compare`, which `mango rescore` prints too).
 */
import { followJob, type JobProgress } from '@mango/core/jobs';
import { apiJson, refreshTokens } from '#web/api/client.ts';
import { getAccessToken } from '#web/auth/tokens.ts';

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
