/** Batch jobs (issue 14): the store, the queue of this database, and the worker that `mango worker` runs. */
import { join } from 'node:path';
import type { Logger, PluginRegistry } from '@mango/core';
import type { JobPool } from '@mango/runner';
import type { ServerConfig } from '../config.ts';
import type { DB } from '../db/index.ts';
import type { Dialect } from '../db/migrations.ts';
import { createModelRegistry, type ModelRegistry } from '../models/registry.ts';
import { createLocalQueue, createPgBossQueue, type JobQueue } from './queue.ts';
import { databasePhotoStore, directoryPhotoStore, withKeptPhotos, type PhotoStore } from './store.ts';
import type { JobWorkDeps } from './work.ts';
import { runPhotoStoreFor, type RunPhotoStore } from '../runs/photos.ts';
import { createRescoredCache, type RescoredCache } from '../runs/rescored.ts';

export type { JobQueue } from './queue.ts';
export type { JobView, JobOperation, PhotoStore } from './store.ts';

export interface Jobs {
  queue: JobQueue;
  store: PhotoStore;
  /** the model registry the jobs' photos are scored with */
  models: ModelRegistry;
  /** where stored runs keep their photos (read and deleted whatever KEEP_RUN_PHOTOS says) */
  runPhotos: RunPhotoStore;
  /** the store new runs keep their photos in: null with KEEP_RUN_PHOTOS=0 */
  keptRunPhotos: RunPhotoStore | null;
  /** kept photos' images scored again (model masks, full-resolution exports), cached in memory (runs/rescored.ts) */
  rescored: RescoredCache;
}

/** Photos in a directory (SQLite, or JOB_FILES_DIR), otherwise in the database. */
export function photoStoreFor(config: ServerConfig, dialect: Dialect): PhotoStore {
  if (config.jobFilesDir) return directoryPhotoStore(config.jobFilesDir);
  return dialect === 'sqlite' ? directoryPhotoStore(join(config.dataDir, 'jobs')) : databasePhotoStore();
}

export async function createJobs(
  config: ServerConfig,
  opened: { db: DB; dialect: Dialect },
  pool: JobPool,
  registry: PluginRegistry,
  logger: Logger,
  role: { worker: boolean } = { worker: config.jobWorker },
): Promise<Jobs> {
  const runPhotos = runPhotoStoreFor(config, opened.dialect);
  // A re-scoring's photos are the kept photos of its run, read where they are.
  const store = withKeptPhotos(photoStoreFor(config, opened.dialect), runPhotos);
  const models = createModelRegistry({ ...opened, dataDir: config.dataDir, modelsDir: config.modelsDir });
  const deps: JobWorkDeps = {
    models,
    db: opened.db,
    store,
    runPhotos: config.keepRunPhotos ? runPhotos : null,
    pool,
    registry,
    logger,
    maxPixels: config.maxPixels,
    maxBytes: config.maxUploadBytes,
  };
  const concurrency = Math.max(1, pool.threads);
  const queue =
    opened.dialect === 'sqlite' || !config.databaseUrl
      ? createLocalQueue(deps, { concurrency, stuckAfterMs: config.jobStuckAfterMs })
      : await createPgBossQueue(deps, {
          databaseUrl: config.databaseUrl,
          schema: config.jobQueueSchema,
          work: role.worker,
          concurrency,
          retryLimit: config.jobRetries,
          heartbeatSeconds: config.jobHeartbeatSeconds,
          // The photo's own limit on its thread, plus reading and storing it.
          expireInSeconds: Math.ceil(config.photoTimeLimitMs / 1000) + 60,
          stuckAfterMs: config.jobStuckAfterMs,
          logger,
        });
  return {
    queue,
    store,
    models,
    runPhotos,
    keptRunPhotos: config.keepRunPhotos ? runPhotos : null,
    rescored: createRescoredCache(),
  };
}
