/**
 * Everything a router needs, built once per server by boot.ts. A type file: it imports types only,
 * from files that import nothing of the server back, so no import circle runs through it (checked
 * by madge in `npm run lint`). Functions below the routes take what they use (`db`, `pool`,
 * `config`), not the whole context.
 */
import type { ImageBackend, Logger, PluginRegistry } from '@mango/core';
import type { JobPool } from '@mango/runner';
import type { ServerConfig } from './config.ts';
import type { DB } from './db/index.ts';
import type { Dialect } from './db/migrations.ts';
import type { Jobs } from './jobs/index.ts';

export interface ServerContext {
  config: ServerConfig;
  db: DB;
  dialect: Dialect;
  /** HMAC key for JWTs (JWT_SECRET, or generated once into DATA_DIR/jwt-secret) */
  jwtKey: Uint8Array;
  registry: PluginRegistry;
  images: ImageBackend;
  logger: Logger;
  /** worker threads that decode and run plugins off the event loop */
  pool: JobPool;
  /** batch jobs: where their photos wait and the queue that hands them to workers */
  jobs: Jobs;
  /**
   * The start's backfill of corrected overlays (runs/overlay-backfill.ts): resolves with how many
   * versions it drew, left with the model's (photo not kept), ... when it ends (null: it failed, logged)
   */
  overlayBackfill: Promise<Record<string, number> | null>;
  close(): Promise<void>;
}

/**
 * The parts of the context a function uses: a service that reads only the database takes
 * `Needs<'db'>`, so what it depends on is in its signature (and a test can build just that).
 */
export type Needs<K extends keyof ServerContext> = Pick<ServerContext, K>;
