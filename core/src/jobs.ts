/**
 * The client side of batch jobs (POST /api-node/jobs), shared by the CLI, the web app and the
 * tests: the progress shape and a follower of GET /api-node/jobs/{id}/events. The events are read
 * with fetch streaming, so the access token or API key travels in the Authorization header, never
 * in the URL (EventSource cannot send headers).
 */
import { z } from 'zod';

export const JobState = z.enum(['queued', 'running', 'done', 'failed', 'cancelled']);
export type JobState = z.infer<typeof JobState>;

/**
 * GET /api-node/jobs/{id} and each `progress` event: the server answers it, the OpenAPI document
 * describes it and the clients read it, all from this schema.
 */
export const JobProgress = z
  .object({
    id: z.string(),
    state: JobState,
    total: z.number().int(),
    done: z.number().int(),
    failed: z.number().int(),
    /** the stored run the results land in */
    run_id: z.string().nullable(),
  })
  .meta({ id: 'JobProgress' });
export type JobProgress = z.infer<typeof JobProgress>;

export const JOB_TERMINAL_STATES: readonly JobState[] = ['done', 'failed', 'cancelled'];

/** Yields the `data` of each event of a Server-Sent Events body. */
async function* sseData(body: ReadableStream<Uint8Array>): AsyncGenerator<{ event: string; data: string }> {
  const reader = body.getReader();
  const decoder = new TextDecoder();
  let buffer = '';
  for (;;) {
    const { value, done } = await reader.read();
    if (done) return;
    buffer += decoder.decode(value, { stream: true }).replace(/\r\n?/g, '\n');
    let end: number;
    while ((end = buffer.indexOf('\n\n')) >= 0) {
      const block = buffer.slice(0, end);
      buffer = buffer.slice(end + 2);
      let event = 'message';
      const data: string[] = [];
      for (const line of block.split('\n')) {
        if (line.startsWith('event:')) event = line.slice(6).trim();
        else if (line.startsWith('data:')) data.push(line.slice(5).replace(/^ /, ''));
      }
      if (data.length) yield { event, data: data.join('\n') };
    }
  }
}

/**
 * Follows a job until it ends (done, failed or cancelled), calling `onProgress` on every change;
 * answers its last progress. A dropped stream is opened again (the job goes on on the server), with
 * the current token when `token` is a function.
 */
export async function followJob(
  baseUrl: string,
  id: string,
  token: string | (() => string),
  onProgress: (p: JobProgress) => void = () => {},
  signal?: AbortSignal,
  /** called on a 401 (an access token that expired during a long job); true: try again with `token()` */
  onUnauthorized?: () => Promise<boolean>,
): Promise<JobProgress> {
  const url = `${baseUrl.replace(/\/$/, '')}/api-node/jobs/${encodeURIComponent(id)}/events`;
  for (let attempt = 0; ; attempt++) {
    try {
      const bearer = typeof token === 'function' ? token() : token;
      const res = await fetch(url, { headers: { Authorization: `Bearer ${bearer}` }, signal });
      if (res.status === 401 && onUnauthorized && attempt < 20 && (await onUnauthorized())) continue;
      if (!res.ok || !res.body) {
        const text = await res.text().catch(() => '');
        let message = `${res.status}`;
        try {
          message = (JSON.parse(text) as { error?: string }).error ?? message;
        } catch {
          // not JSON
        }
        throw Object.assign(new Error(`job ${id}: ${message}`), { fatal: res.status < 500 });
      }
      for await (const e of sseData(res.body)) {
        if (e.event !== 'progress') continue;
        const progress = JSON.parse(e.data) as JobProgress;
        onProgress(progress);
        if (JOB_TERMINAL_STATES.includes(progress.state)) return progress;
      }
    } catch (e) {
      if (signal?.aborted || (e as { fatal?: boolean }).fatal || attempt >= 20) throw e;
    }
    await new Promise((r) => setTimeout(r, Math.min(5000, 250 * 2 ** Math.min(attempt, 5))));
  }
}
