/**
 * `mango rescore --server URL --run ID --model MODEL_ID` (issue 28 item 4): a stored run re-scored on
 * the server with another model version (POST /api-node/runs/{id}/rescore: a batch job over the
 * run's kept photos that writes a new run linked to the first), followed to its end with the batch
 * commands' progress bar; then both runs side by side as the run page shows them (the bruise plugin's
 * `compareRuns`: per photo each model's bruise %, the difference, and their mean and median).
 */
import type { StoredRun } from '@mango/core/results';
import { compareRuns, shortSha, type Comparison } from '@mango/plugin-bruise/compare';
import { answerError, followServerJob, serverBase } from './server-job.ts';

export interface Rescored {
  first: StoredRun;
  second: StoredRun;
  comparison: Comparison;
}

/** Re-scores run `runId` with `modelId` on `server`; answers both runs and their comparison. */
export async function rescoreOnServer(o: {
  server: string;
  apiKey: string;
  runId: string;
  modelId: string;
}): Promise<Rescored> {
  const base = serverBase(o.server);
  const auth = { Authorization: `Bearer ${o.apiKey}` };
  const getRun = async (id: string) => {
    const res = await fetch(`${base}/api-node/runs/${encodeURIComponent(id)}`, { headers: auth });
    if (!res.ok) throw new Error(`run ${id} could not be read from ${base}: ${await answerError(res)}`);
    return (await res.json()) as StoredRun;
  };
  const first = await getRun(o.runId);
  const sent = await fetch(`${base}/api-node/runs/${encodeURIComponent(o.runId)}/rescore`, {
    method: 'POST',
    headers: { ...auth, 'Content-Type': 'application/json' },
    body: JSON.stringify({ model_id: o.modelId }),
  });
  if (sent.status !== 202) throw new Error(`the server refused the re-scoring: ${await answerError(sent)}`);
  const { id } = (await sent.json()) as { id: string };
  const kept = first.items.filter((i) => i.photo_kept).length;
  console.error(`job ${id}: run ${o.runId} (${kept} kept photo(s)) re-scored with ${o.modelId} on ${base}`);
  const end = await followServerJob(base, id, o.apiKey, kept);
  if (end.state !== 'done' || !end.run_id) throw new Error(`job ${id} ended ${end.state}`);
  const second = await getRun(end.run_id);
  return { first, second, comparison: compareRuns(first, second) };
}

const pct = (v: number | null) => (v === null ? '–' : v.toFixed(2));
const signed = (v: number | null) => (v === null ? '–' : `${v > 0 ? '+' : ''}${v.toFixed(2)}`);

/** The comparison as text: the two models, a row per photo, and the differences summed up. */
export function formatRescore({ first, second, comparison: c }: Rescored): string {
  const model = (r: StoredRun) => `${r.model_id ?? 'none (classical)'} (sha256 ${shortSha(r.model_sha256)})`;
  const rows = [
    ['photo', `first bruise %`, `second bruise %`, 'difference (points)'],
    ...c.photos.map((p) => [p.filename, pct(p.first), pct(p.second), signed(p.difference)]),
  ];
  const widths = rows[0].map((_, k) => Math.max(...rows.map((r) => r[k].length)));
  const line = (r: string[]) =>
    r.map((cell, k) => (k === 0 ? cell.padEnd(widths[k]) : cell.padStart(widths[k]))).join('  ');
  return [
    `new run: ${second.id}`,
    `first model:  ${model(first)}, run ${first.id}`,
    `second model: ${model(second)}, run ${second.id}`,
    '',
    ...rows.map(line),
    '',
    `photos in both: ${c.n}`,
    `median difference: ${signed(c.median_difference)} points`,
    `mean difference: ${signed(c.mean_difference)} points`,
    `mean absolute difference: ${pct(c.mean_absolute_difference)} points`,
  ].join('\n');
}
