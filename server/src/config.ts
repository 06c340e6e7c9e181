/** Server configuration from the environment; every value has a working default for a local install. */
import { resolve } from 'node:path';
import { SERVER_MAX_UPLOAD_MB } from '@mango/core';
import { maxPixelsFromSetting } from '@mango/core/node';

export interface ServerConfig {
  port: number;
  host: string;
  dataDir: string;
  /** postgres://... to use PostgreSQL; otherwise SQLite in dataDir */
  databaseUrl?: string;
  jwtSecret?: string;
  /** Origins allowed to call the API cross-origin (comma-separated CORS_ORIGINS). */
  corsOrigins: string[];
  smtpUrl?: string;
  mailFrom: string;
  /** Largest accepted upload per file, bytes (MAX_UPLOAD_MB, default core's SERVER_MAX_UPLOAD_MB: 25). */
  maxUploadBytes: number;
  /** Largest accepted image, pixels (MAX_MEGAPIXELS, default 50; core's maxPixelsFromSetting, shared with the CLI). */
  maxPixels: number;
  /** Largest request body, bytes (MAX_REQUEST_MB, default 200); chunked bodies are counted as they stream. */
  maxRequestBytes: number;
  /**
   * A refused request's unread body is read and discarded up to this many bytes and ms before the
   * answer, so the client receives it (REFUSED_BODY_READ_MB, default 64; REFUSED_BODY_READ_S, default 30).
   */
  refusedBodyBytes: number;
  refusedBodyMs: number;
  /** Most image files in one /api-py request (MAX_FILES_PER_REQUEST, default 50). */
  maxFilesPerRequest: number;
  /** /api-py uploads of one caller (user or API key) in progress at once (MAX_CONCURRENT_UPLOADS, default 2). */
  maxConcurrentUploads: number;
  /** /api-py requests per minute of one signed-in user (API_PY_LIMIT_PER_MINUTE, default 120; keys have their own). */
  apiPyLimitPerMinute: number;
  /** Images that may wait for a worker thread; more get 503 with Retry-After (WORKER_QUEUE, default 32). */
  workerQueue: number;
  /** Time limit per photo on a worker thread, ms (PHOTO_TIME_LIMIT_S, default 60). */
  photoTimeLimitMs: number;
  /** Where uploads are spooled while a request is processed (UPLOAD_DIR, default DATA_DIR/uploads). */
  uploadDir: string;
  /** Folder holding the built web app (web/dist). */
  webDist: string;
  /** Folder holding the built widget bundle (widget/dist). */
  widgetDist: string;
  /** models/ with manifest.json (MODELS_DIR) */
  modelsDir: string;
  /** Rate limits can be relaxed for tests through the environment. */
  loginLimitPerMinute: number;
  /** forgot-password requests per client address per day (RECOVERY_PER_ADDRESS_PER_DAY, default 20) */
  recoveryPerAddressPerDay: number;
  trustProxy: boolean;
  /** worker threads for image jobs (WORKER_THREADS, default: one per core) */
  workerThreads?: number;
  logRequests: boolean;
  /** Most photos in one batch job (MAX_JOB_FILES, default 10,000). */
  maxJobFiles: number;
  /**
   * Most photos of one user waiting in the job queue, all jobs together (MAX_QUEUED_PHOTOS_PER_USER,
   * default 5,000): a job that would pass it is refused with 429 before its photos are stored.
   */
  maxQueuedPhotosPerUser: number;
  /** Largest batch job upload, and the most a job's zip may unpack to in total, bytes (MAX_JOB_MB, default 10,240). */
  maxJobBytes: number;
  /**
   * Where job photos wait for a worker (JOB_FILES_DIR). SQLite default DATA_DIR/jobs; PostgreSQL
   * default: in the database. Set it on PostgreSQL to a directory every worker mounts.
   */
  jobFilesDir?: string;
  /**
   * Each stored run keeps its uploaded photos (KEEP_RUN_PHOTOS, default 1; 0: none kept): SQLite in
   * DATA_DIR/run-photos, PostgreSQL in the database (runs/photos.ts).
   */
  keepRunPhotos: boolean;
  /**
   * At its start the server draws the corrected overlays of corrections saved before they were stored
   * (runs/overlay-backfill.ts; OVERLAY_BACKFILL, default 1; 0: not this instance). The test servers
   * leave it off unless a test asks, so that servers of other test files sharing a PostgreSQL database
   * do not take the rows a test is watching.
   */
  overlayBackfill: boolean;
  /** PostgreSQL: this server instance scores job photos too (JOB_WORKER, default 1; 0: only `mango worker`s do). */
  jobWorker: boolean;
  /** Retries of a photo whose worker died or timed out (JOB_RETRIES, default 2). */
  jobRetries: number;
  /** A worker silent for this long is taken as dead and its photo retried, s (JOB_HEARTBEAT_S, default 10, at least 10). */
  jobHeartbeatSeconds: number;
  /** An active job without progress for this long is reported as stuck, ms (JOB_STUCK_AFTER_S, default 600). */
  jobStuckAfterMs: number;
  /** PostgreSQL schema of the pg-boss queue (JOB_QUEUE_SCHEMA, default pgboss); one pool of workers per schema. */
  jobQueueSchema: string;
}

const num = (v: string | undefined, d: number) =>
  v !== undefined && v !== '' && !Number.isNaN(Number(v)) ? Number(v) : d;

export function loadConfig(env: NodeJS.ProcessEnv = process.env, overrides: Partial<ServerConfig> = {}): ServerConfig {
  const repo = resolve(import.meta.dirname, '../..');
  const dataDir = overrides.dataDir ?? resolve(env.DATA_DIR ?? './data');
  return {
    port: num(env.PORT, 8080),
    host: env.HOST ?? '0.0.0.0',
    dataDir,
    databaseUrl: env.DATABASE_URL || undefined,
    jwtSecret: env.JWT_SECRET || undefined,
    corsOrigins: (env.CORS_ORIGINS ?? '')
      .split(',')
      .map((s) => s.trim())
      .filter(Boolean),
    smtpUrl: env.SMTP_URL || undefined,
    mailFrom: env.MAIL_FROM ?? 'Mango Bruise Tracker <no-reply@localhost>',
    maxUploadBytes: num(env.MAX_UPLOAD_MB, SERVER_MAX_UPLOAD_MB) * 1024 * 1024,
    maxPixels: maxPixelsFromSetting(env.MAX_MEGAPIXELS),
    maxRequestBytes: num(env.MAX_REQUEST_MB, 200) * 1024 * 1024,
    refusedBodyBytes: num(env.REFUSED_BODY_READ_MB, 64) * 1024 * 1024,
    refusedBodyMs: num(env.REFUSED_BODY_READ_S, 30) * 1000,
    maxFilesPerRequest: num(env.MAX_FILES_PER_REQUEST, 50),
    maxConcurrentUploads: num(env.MAX_CONCURRENT_UPLOADS, 2),
    apiPyLimitPerMinute: num(env.API_PY_LIMIT_PER_MINUTE, 120),
    workerQueue: num(env.WORKER_QUEUE, 32),
    photoTimeLimitMs: num(env.PHOTO_TIME_LIMIT_S, 60) * 1000,
    uploadDir: resolve(env.UPLOAD_DIR ?? resolve(dataDir, 'uploads')),
    webDist: resolve(env.WEB_DIST ?? resolve(repo, 'web/dist')),
    widgetDist: resolve(env.WIDGET_DIST ?? resolve(repo, 'widget/dist')),
    modelsDir: resolve(env.MODELS_DIR ?? resolve(repo, 'models')),
    loginLimitPerMinute: num(env.LOGIN_LIMIT_PER_MINUTE, 10),
    recoveryPerAddressPerDay: num(env.RECOVERY_PER_ADDRESS_PER_DAY, 20),
    trustProxy: env.TRUST_PROXY === '1',
    logRequests: env.LOG_REQUESTS !== '0',
    workerThreads: env.WORKER_THREADS ? num(env.WORKER_THREADS, 1) : undefined,
    maxJobFiles: num(env.MAX_JOB_FILES, 10_000),
    maxQueuedPhotosPerUser: num(env.MAX_QUEUED_PHOTOS_PER_USER, 5000),
    maxJobBytes: num(env.MAX_JOB_MB, 10_240) * 1024 * 1024,
    jobFilesDir: env.JOB_FILES_DIR ? resolve(env.JOB_FILES_DIR) : undefined,
    keepRunPhotos: env.KEEP_RUN_PHOTOS !== '0',
    overlayBackfill: env.OVERLAY_BACKFILL !== '0',
    jobWorker: env.JOB_WORKER !== '0',
    jobRetries: num(env.JOB_RETRIES, 2),
    jobHeartbeatSeconds: Math.max(10, num(env.JOB_HEARTBEAT_S, 10)),
    jobStuckAfterMs: num(env.JOB_STUCK_AFTER_S, 600) * 1000,
    jobQueueSchema: env.JOB_QUEUE_SCHEMA || 'pgboss',
    ...overrides,
  };
}
