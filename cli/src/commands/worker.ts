/** `mango worker --database postgres://...`: joins the batch-job pool of a PostgreSQL deployment. */
import type { Command } from 'commander';
import { consoleLogger } from '@mango/core';
import { UsageError } from '../util.ts';

export function workerCommand(program: Command) {
  program
    .command('worker')
    .description(
      'score batch-job photos for the servers of a PostgreSQL database (any number of workers, on any ' +
        "machine that reaches it); stops on Ctrl-C or SIGTERM, a killed worker's photo is retried elsewhere",
    )
    .option('--database <url>', 'postgres://user:pass@host/db (default: DATABASE_URL)')
    .option('--concurrency <n>', 'photos at once, on as many worker threads (default: one per core)')
    .option('--files-dir <dir>', 'the shared directory of job photos, if the servers use one (JOB_FILES_DIR)')
    .action(async (o: { database?: string; concurrency?: string; filesDir?: string }) => {
      const databaseUrl = o.database ?? process.env.DATABASE_URL;
      if (!databaseUrl) throw new UsageError('--database postgres://... (or DATABASE_URL) is required');
      const threads = o.concurrency === undefined ? undefined : Number(o.concurrency);
      if (threads !== undefined && !(Number.isInteger(threads) && threads >= 1)) {
        throw new UsageError(`--concurrency must be a whole number of at least 1 (got ${o.concurrency})`);
      }
      // The server package is loaded only by this command: the others start without it.
      const { startJobWorker } = await import('@mango/server');
      const worker = await startJobWorker({ databaseUrl, threads, jobFilesDir: o.filesDir, logger: consoleLogger });
      console.error(`mango worker ${process.pid}: taking photos with ${worker.threads} thread(s)`);
      await new Promise<void>((resolve) => {
        const stop = () => resolve();
        process.once('SIGINT', stop);
        process.once('SIGTERM', stop);
      });
      console.error(`mango worker ${process.pid}: stopping`);
      await worker.close();
    });
}
