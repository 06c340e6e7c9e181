/**
 * `mango bruise --server URL --api-key KEY DIR`: the photos go to a Mango server as one batch job
 * (POST /api-node/jobs, each file streamed from disk), its progress is shown as it comes (Server-Sent
 * Events), and the stored run's results file is written like a local run's outputs.
 */
import { openAsBlob } from 'node:fs';
import { SingleBar, Presets } from 'cli-progress';
import { followJob, type JobProgress } from '@mango/core/jobs';
import { ResultsFile } from '@mango/core/results';
import type { InputFile } from './inputs.ts';
import { parseOrExit, printable, UsageError } from './util.ts';

export interface ServerJobOptions {
  server: string;
  apiKey: string;
  options: Record<string, unknown>;
  /** --meta and --meta-csv: sent as the job's `meta` and `meta_csv` fields */
  meta?: { pattern?: string; csvPath?: string };
}

/** `413: reason` (the answer's {error} or {detail}), with `; retry after N s` when the server says so. */
export async function answerError(res: Response): Promise<string> {
  const text = await res.text();
  const retry = res.headers.get('retry-after');
  const wait = retry ? `; retry after ${retry} s` : '';
  try {
    const json = JSON.parse(text) as { error?: unknown; detail?: unknown };
    const reason = typeof json.error === 'string' ? json.error : typeof json.detail === 'string' ? json.detail : '';
    return `${res.status}${reason ? `: ${reason}` : ''}${wait}`;
  } catch {
    return `${res.status} ${text.slice(0, 200)}${wait}`;
  }
}

/** The key for `--server`: `--api-key`, else MANGO_API_KEY; a usage error without either. */
export function serverApiKey(flag: string | undefined): string {
  const key = flag || process.env.MANGO_API_KEY;
  if (!key) throw new UsageError('--server needs --api-key KEY (or MANGO_API_KEY)');
  return key;
}

/** The server's base URL without its trailing slash; a usage error when it is no http(s) URL. */
export function serverBase(server: string): string {
  const base = server.replace(/\/$/, '');
  if (!/^https?:\/\//.test(base)) throw new UsageError(`--server must be an http(s) URL (got ${server})`);
  return base;
}

/**
 * Follows batch job `id` on the server to its end (its Server-Sent Events): a progress bar on a
 * terminal when there is more than one photo (its total as the job counts them), else a line on
 * stderr at each tenth.
 */
export async function followServerJob(base: string, id: string, apiKey: string, total: number): Promise<JobProgress> {
  const bar =
    process.stderr.isTTY && total > 1
      ? new SingleBar(
          { format: ' {bar} {value}/{total} photos | failed {failed}', stream: process.stderr },
          Presets.shades_classic,
        )
      : null;
  bar?.start(total, 0, { failed: 0 });
  let lastTenth = -1;
  const show = (p: JobProgress) => {
    const n = p.done + p.failed;
    if (bar) {
      if (p.total > 0 && p.total !== bar.getTotal()) bar.setTotal(p.total);
      return bar.update(n, { failed: p.failed });
    }
    const tenth = Math.floor((10 * n) / Math.max(1, p.total));
    if (tenth !== lastTenth) console.error(`job ${id}: ${n}/${p.total} (${p.failed} failed)`);
    lastTenth = tenth;
  };
  try {
    return await followJob(base, id, apiKey, show);
  } finally {
    bar?.stop();
  }
}

/** Runs the files as a bruise job on the server; answers its results file and the failed photos. */
export async function bruiseOnServer(
  files: InputFile[],
  o: ServerJobOptions,
): Promise<{ file: ResultsFile; failed: { filename: string; error: string }[]; runId: string }> {
  const base = serverBase(o.server);
  const auth = { Authorization: `Bearer ${o.apiKey}` };
  const form = new FormData();
  form.append('operation', 'bruise');
  form.append('options', JSON.stringify(o.options));
  if (o.meta?.pattern !== undefined) form.append('meta', o.meta.pattern);
  if (o.meta?.csvPath !== undefined) form.append('meta_csv', await openAsBlob(o.meta.csvPath), 'meta.csv');
  for (const f of files) form.append('images', await openAsBlob(f.path), f.relative);
  const sent = await fetch(`${base}/api-node/jobs`, { method: 'POST', body: form, headers: auth });
  if (sent.status !== 202) throw new Error(`the server refused the job: ${await answerError(sent)}`);
  const { id, warnings } = (await sent.json()) as { id: string; warnings?: string[] };
  for (const w of warnings ?? []) console.error(`warning: ${printable(w)}`);
  console.error(`job ${id}: ${files.length} photo(s) sent to ${base}`);

  const end = await followServerJob(base, id, o.apiKey, files.length);
  if (end.state !== 'done' || !end.run_id) throw new Error(`job ${id} ended ${end.state}`);

  const exported = await fetch(`${base}/api-node/runs/${end.run_id}/export?format=json`, { headers: auth });
  if (!exported.ok) throw new Error(`the results could not be read: ${await answerError(exported)}`);
  const file = parseOrExit(ResultsFile, await exported.json());
  const run = await fetch(`${base}/api-node/runs/${end.run_id}`, { headers: auth });
  const items = run.ok
    ? ((await run.json()) as { items: { filename: string; result: { error?: string } }[] }).items
    : [];
  const failed = items.flatMap((i) => (i.result.error ? [{ filename: i.filename, error: i.result.error }] : []));
  return { file, failed, runId: end.run_id };
}
