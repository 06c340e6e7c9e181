/**
 * A job worker without an HTTP server (`mango worker --database postgres://...`): it joins the
 * pg-boss pool of that database and scores photos on this machine's worker threads until stopped.
 * The configuration is the server's (environment: PHOTO_TIME_LIMIT_S, JOB_RETRIES, JOB_FILES_DIR, ...).
 */
import type { Logger } from '@mango/core';
import { createJobPool } from '@mango/runner';
import { registry } from '@mango/plugins';
import { loadConfig } from '../config.ts';
import { migrateToLatest, openDatabase } from '../db/index.ts';
import { createJobs } from './index.ts';

export interface JobWorkerOptions {
  databaseUrl: string;
  /** worker threads (default: one per core) */
  threads?: number;
  /** the shared directory of job photos, when the servers use one (JOB_FILES_DIR) */
  jobFilesDir?: string;
  logger: Logger;
}

export interface RunningJobWorker {
  threads: number;
  close(): Promise<void>;
}

export async function startJobWorker(options: JobWorkerOptions): Promise<RunningJobWorker> {
  if (!/^postgres(ql)?:\/\//.test(options.databaseUrl)) {
    throw new Error('a worker joins a PostgreSQL database: --database postgres://user:pass@host/db');
  }
  const config = loadConfig(process.env, {
    databaseUrl: options.databaseUrl,
    workerThreads: options.threads,
    ...(options.jobFilesDir ? { jobFilesDir: options.jobFilesDir } : {}),
  });
  const opened = openDatabase(config);
  await migrateToLatest(opened);
  const pool = createJobPool({ threads: config.workerThreads, timeoutMs: config.photoTimeLimitMs });
  const jobs = await createJobs(config, opened, pool, registry, options.logger, { worker: true });
  return {
    threads: pool.threads,
    close: async () => {
      await jobs.queue.close();
      await pool.destroy();
      await opened.close();
    },
  };
}
