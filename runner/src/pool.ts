/** A pool of worker threads running image jobs (piscina). threads = 0 runs jobs inline on this thread. */
import { availableParallelism } from 'node:os';
import { runImageJob, type ImageJob, type JobResult } from './jobs.ts';

export interface JobPool {
  threads: number;
  run(job: ImageJob): Promise<JobResult>;
  destroy(): Promise<void>;
}

export function defaultThreads(): number {
  return Math.max(1, availableParallelism());
}

export function createJobPool(options: { threads?: number; idleTimeout?: number } = {}): JobPool {
  const threads = options.threads ?? defaultThreads();
  if (threads <= 0) {
    process.env.MANGO_ORT_THREADS ??= String(availableParallelism());
    return { threads: 0, run: runImageJob, destroy: async () => {} };
  }
  // onnxruntime threads per worker: the cores the workers leave free (a model run then uses both
  // cores of a 2-core machine when one photo at a time is scored). Workers inherit the environment.
  process.env.MANGO_ORT_THREADS ??= String(Math.max(1, Math.floor(availableParallelism() / threads)));
  // piscina is imported only here, so a command that runs its one photo inline (threads 0) never
  // loads it; a real pool starts loading it (and its first worker) at once, as before.
  const piscina = import('piscina').then(
    ({ Piscina }) =>
      new Piscina({
        filename: new URL('./worker.cjs', import.meta.url).href,
        // Run from the TypeScript sources (tests, dev): the worker loads them too, and resolves the
        // other packages to their sources (the `source` export condition), never to a stale dist/.
        ...(import.meta.url.endsWith('.ts') ? { execArgv: [...process.execArgv, '--conditions=source'] } : {}),
        minThreads: 1,
        maxThreads: threads,
        idleTimeout: options.idleTimeout ?? 30_000,
      }),
  );
  piscina.catch(() => {}); // a failure surfaces in run() and destroy()
  return {
    threads,
    run: async (job) => {
      // Transfer the bytes instead of copying them into the worker.
      const transfer = job.bytes ? [job.bytes.buffer as ArrayBuffer] : [];
      return (await piscina).run(job, { transferList: transfer as never }) as Promise<JobResult>;
    },
    destroy: async () => (await piscina).destroy(),
  };
}
