/** Builds the ServerContext (context.ts) once per server; tests build their own with a temp DATA_DIR. */
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { randomBytes } from 'node:crypto';
import { join } from 'node:path';
import type { Logger } from '@mango/core';
import { consoleLogger } from '@mango/core';
import { createNodeImageBackend } from '@mango/core/node';
import { registry as builtinRegistry } from '@mango/plugins';
import { createJobPool } from '@mango/runner';
import type { ServerConfig } from './config.ts';
import { migrateToLatest, openDatabase } from './db/index.ts';
import { ensurePrivateDir } from './db/private-files.ts';
import { createJobs } from './jobs/index.ts';
import { sweepRunPhotos } from './runs/photos.ts';
import { startOverlayBackfill } from './runs/overlay-backfill.ts';
import type { ServerContext } from './context.ts';

export type { ServerContext };
import { backgroundSettled } from './background.ts';

/** JWT secret from the environment, or generated once into DATA_DIR with mode 0600. */
function loadJwtKey(config: ServerConfig): Uint8Array {
  if (config.jwtSecret) {
    if (config.jwtSecret.length < 32) throw new Error('JWT_SECRET must be at least 32 characters');
    return new TextEncoder().encode(config.jwtSecret);
  }
  ensurePrivateDir(config.dataDir);
  const file = join(config.dataDir, 'jwt-secret');
  if (!existsSync(file)) writeFileSync(file, randomBytes(48).toString('base64url'), { mode: 0o600, flag: 'wx' });
  return new TextEncoder().encode(readFileSync(file, 'utf8').trim());
}

export async function createServerContext(
  config: ServerConfig,
  extra: { logger?: Logger } = {},
): Promise<ServerContext> {
  const opened = openDatabase(config);
  await migrateToLatest(opened);
  // SQLite: the photo folders of runs that are gone (with their account, or a crash mid-deletion).
  if (opened.dialect === 'sqlite') await sweepRunPhotos(opened.db, config.dataDir);
  const pool = createJobPool({
    threads: config.workerThreads,
    maxQueue: config.workerQueue,
    timeoutMs: config.photoTimeLimitMs,
  });
  const logger = extra.logger ?? consoleLogger;
  const jobs = await createJobs(config, opened, pool, builtinRegistry, logger);
  const images = createNodeImageBackend({ maxPixels: config.maxPixels });
  // Corrections saved before their overlays were stored get them drawn, in the background (issue 28).
  const backfill = config.overlayBackfill
    ? startOverlayBackfill({ db: opened.db, registry: builtinRegistry, runPhotos: jobs.runPhotos, images, logger })
    : { done: Promise.resolve(null), stop: async () => {} };
  const ctx: ServerContext = {
    config,
    db: opened.db,
    dialect: opened.dialect,
    jwtKey: loadJwtKey(config),
    registry: builtinRegistry,
    images,
    logger,
    pool,
    jobs,
    overlayBackfill: backfill.done,
    close: async () => {
      await backfill.stop();
      await jobs.queue.close();
      await backgroundSettled(ctx);
      await pool.destroy();
      await opened.close();
    },
  };
  return ctx;
}
