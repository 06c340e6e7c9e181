/**
 * A pool of worker threads running image jobs (piscina). threads = 0 runs jobs inline on this thread.
 * A server bounds it: `maxQueue` jobs may wait for a thread (one more is refused at once with
 * MangoError BUSY, which the server answers 503 with Retry-After) and `timeoutMs` stops a job that
 * runs longer (its worker thread is terminated, so the CPU is freed; the job fails with TIMED_OUT).
 * The CLI's batches leave both unset: they queue every file and wait for each.
 */
import { availableParallelism } from 'node:os';
import { MangoError } from '@mango/core';
import { runImageJob, type ImageJob, type JobResult } from './jobs.ts';

export interface JobPool {
  threads: number;
  run(job: ImageJob): Promise<JobResult>;
  /** jobs running and waiting */
  readonly pending: number;
  destroy(): Promise<void>;
}

export interface JobPoolOptions {
  threads?: number;
  idleTimeout?: number;
  /** jobs that may wait for a free thread; more are refused with BUSY (default: unbounded) */
  maxQueue?: number;
  /** per-job time limit from the moment it gets a thread, ms (default: none) */
  timeoutMs?: number;
  /**
   * Each worker thread takes a second job while it works on one (piscina's concurrentTasksPerWorker
   * 2): the next photo's read and decode, which run off the JavaScript thread (sharp), overlap the
   * current photo's analysis. The thread still analyses one photo at a time between its awaits. For
   * batches (the CLI); a server leaves it off, so its queue and time limit count whole jobs.
   */
  readAhead?: boolean;
}

export function defaultThreads(): number {
  return Math.max(1, availableParallelism());
}

/** Waiting room in front of the threads: at most `slots` jobs run (one per thread, two with readAhead), at most `maxQueue` wait. */
class Admission {
  private running = 0;
  private readonly waiting: (() => void)[] = [];
  constructor(
    private readonly slots: number,
    private readonly maxQueue: number,
  ) {}

  get pending(): number {
    return this.running + this.waiting.length;
  }

  async acquire(): Promise<void> {
    if (this.running < this.slots) {
      this.running++;
      return;
    }
    if (this.waiting.length >= this.maxQueue) {
      throw new MangoError('BUSY', 'The server is busy processing other images. Please try again shortly.');
    }
    // release() hands its slot straight to the first waiter (running stays the same).
    await new Promise<void>((resolve) => this.waiting.push(resolve));
  }

  release(): void {
    const next = this.waiting.shift();
    if (next) next();
    else this.running--;
  }
}

export function createJobPool(options: JobPoolOptions = {}): JobPool {
  const threads = options.threads ?? defaultThreads();
  // A second job on a busy thread would wait in piscina's own queue with its time already running.
  if (options.readAhead && options.timeoutMs)
    throw new RangeError('readAhead and timeoutMs do not go together: the time limit counts from a free thread');
  if (threads <= 0) {
    process.env.MANGO_ORT_THREADS ??= String(availableParallelism());
    return { threads: 0, run: runImageJob, pending: 0, destroy: async () => {} };
  }
  // onnxruntime threads per worker: the cores the workers leave free (a model run then uses both
  // cores of a 2-core machine when one photo at a time is scored). Workers inherit the environment.
  process.env.MANGO_ORT_THREADS ??= String(Math.max(1, Math.floor(availableParallelism() / threads)));
  // piscina is imported only here, so a command that runs its one photo inline (threads 0) never
  // loads it; a real pool starts loading it (and its first worker) at once.
  const piscina = import('piscina').then(
    ({ Piscina }) =>
      new Piscina({
        filename: new URL('./worker.cjs', import.meta.url).href,
        // Run from the TypeScript sources (tests, dev): the worker loads them too, and resolves the
        // other packages to their sources (the `source` export condition), never to a stale dist/.
        ...(import.meta.url.endsWith('.ts') ? { execArgv: [...process.execArgv, '--conditions=source'] } : {}),
        // Reading ahead, every thread from the start: piscina would otherwise hand a second job to
        // the one thread already up (it takes two) instead of starting another.
        minThreads: options.readAhead ? threads : 1,
        maxThreads: threads,
        concurrentTasksPerWorker: options.readAhead ? 2 : 1,
        idleTimeout: options.idleTimeout ?? 30_000,
      }),
  );
  piscina.catch(() => {}); // a failure surfaces in run() and destroy()
  const admission = new Admission(threads * (options.readAhead ? 2 : 1), options.maxQueue ?? Infinity);
  const { timeoutMs } = options;
  const runOnThread = async (job: ImageJob): Promise<JobResult> => {
    // Transfer the bytes instead of copying them into the worker.
    const transfer = job.bytes ? [job.bytes.buffer as ArrayBuffer] : [];
    const signal = timeoutMs ? AbortSignal.timeout(timeoutMs) : undefined;
    try {
      return (await (await piscina).run(job, { transferList: transfer as never, signal })) as JobResult;
    } catch (e) {
      if (!signal?.aborted) throw e;
      const name = job.name ?? job.path ?? 'image';
      const message = `${name}: processing took longer than the limit of ${timeoutMs! / 1000} s per photo`;
      return { ok: false, name, error: { code: 'TIMED_OUT', status: 422, message } };
    }
  };
  return {
    threads,
    get pending() {
      return admission.pending;
    },
    run: async (job) => {
      await admission.acquire();
      try {
        return await runOnThread(job);
      } finally {
        admission.release();
      }
    },
    destroy: async () => (await piscina).destroy(),
  };
}
