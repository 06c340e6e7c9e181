/**
 * Real processes on one PostgreSQL database, for the scale-out test and benchmark of batch jobs:
 * server instances (`node server/dist/main.js`) and `mango worker` processes (`cli/bin/mango.js
 * worker`), all on 127.0.0.1, from the built JavaScript (`npm run build:node`).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import type pg from 'pg';
import sharp from 'sharp';
import { encodeImage } from '@mango/core/node';
import { bruisedPairScene } from '@mango/core/testing';

const REPO = resolve(import.meta.dirname, '../../..');
export const SERVER_MAIN = join(REPO, 'server/dist/main.js');
export const MANGO_BIN = join(REPO, 'cli/bin/mango.js');

/** True when the built JavaScript the processes run is there. */
export const builtForCluster = () => existsSync(SERVER_MAIN) && existsSync(join(REPO, 'cli/dist/main.js'));

/** A bench's PostgreSQL (DATABASE_URL) once the built server is there; else a message and exit 2. */
export function benchDatabaseUrl(): string {
  const url = process.env.DATABASE_URL;
  if (!url) {
    console.error('set DATABASE_URL=postgres://...');
    process.exit(2);
  }
  if (!builtForCluster()) {
    console.error('run `npm run build:node` first');
    process.exit(2);
  }
  return url;
}

export interface ClusterProcess {
  proc: ChildProcess;
  /** everything it printed, for a failure message */
  output(): string;
  /** SIGTERM, then SIGKILL after 5 s; resolves when it has exited */
  stop(): Promise<void>;
}

const JWT_SECRET = 'scale-out-test-secret-of-at-least-32-characters';

function launch(args: string[], env: Record<string, string>, ready: RegExp, timeoutMs = 30_000) {
  const proc = spawn(process.execPath, args, {
    cwd: REPO,
    env: { ...process.env, JWT_SECRET, LOG_REQUESTS: '0', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let text = '';
  const exited = new Promise<void>((r) => proc.once('exit', () => r()));
  const matched = new Promise<RegExpExecArray>((resolvePromise, reject) => {
    const timer = setTimeout(() => reject(new Error(`not ready after ${timeoutMs} ms:\n${text}`)), timeoutMs);
    const onData = (d: Buffer) => {
      text += d.toString();
      const m = ready.exec(text);
      if (m) {
        clearTimeout(timer);
        resolvePromise(m);
      }
    };
    proc.stdout!.on('data', onData);
    proc.stderr!.on('data', onData);
    proc.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`exited with ${code} before it was ready:\n${text}`));
    });
  });
  const handle: ClusterProcess = {
    proc,
    output: () => text,
    stop: async () => {
      if (proc.exitCode !== null || proc.signalCode !== null) return;
      proc.kill('SIGTERM');
      const t = setTimeout(() => proc.kill('SIGKILL'), 5000);
      await exited;
      clearTimeout(t);
    },
  };
  return { handle, matched };
}

export interface ServerProcess extends ClusterProcess {
  url: string;
}

/**
 * A server instance on a free port; JOB_WORKER=0 unless `scores` (then it scores photos too).
 * `queueSchema` (JOB_QUEUE_SCHEMA) keeps a test's queue to its own processes.
 */
export async function startServerProcess(
  databaseUrl: string,
  opts: { scores?: boolean; queueSchema?: string } = {},
): Promise<ServerProcess> {
  const dataDir = mkdtempSync(join(tmpdir(), 'mango-cluster-'));
  const { handle, matched } = launch(
    [SERVER_MAIN],
    {
      DATABASE_URL: databaseUrl,
      PORT: '0',
      HOST: '127.0.0.1',
      DATA_DIR: dataDir,
      JOB_WORKER: opts.scores ? '1' : '0',
      WORKER_THREADS: '1',
      LOGIN_LIMIT_PER_MINUTE: '1000',
      ...(opts.queueSchema ? { JOB_QUEUE_SCHEMA: opts.queueSchema } : {}),
    },
    /listening on http:\/\/localhost:(\d+)/,
  );
  const m = await matched;
  const stop = handle.stop;
  return {
    ...handle,
    url: `http://127.0.0.1:${m[1]}`,
    stop: async () => {
      await stop();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

/** A `mango worker` process with `concurrency` threads (on the queue in `queueSchema`, if given). */
export async function startWorkerProcess(
  databaseUrl: string,
  concurrency = 1,
  queueSchema?: string,
): Promise<ClusterProcess> {
  const { handle, matched } = launch(
    [MANGO_BIN, 'worker', '--database', databaseUrl, '--concurrency', String(concurrency)],
    queueSchema ? { JOB_QUEUE_SCHEMA: queueSchema } : {},
    /taking photos/,
  );
  await matched;
  return handle;
}

/** Four different photos of two mangoes (one bruised), `side` px wide, as JPEG. */
async function photoKinds(side: number): Promise<Uint8Array[]> {
  return Promise.all(
    [1, 2, 3, 4].map(async (seed) => {
      const png = await encodeImage(bruisedPairScene(seed).image, 'png');
      return new Uint8Array(await sharp(png).resize({ width: side }).jpeg({ quality: 90 }).toBuffer());
    }),
  );
}

/**
 * `n` small photos of two mangoes (one bruised), a few different ones, `side` px wide. The photos at
 * the positions in `slow` are `slowSide` px wide instead: a worker takes long enough over each that a
 * kill in their stretch lands in the middle of a photo, not between two.
 */
export async function smallPhotos(
  n: number,
  side = 240,
  slow: { from: number; to: number; slowSide: number } = { from: 0, to: 0, slowSide: side },
): Promise<Uint8Array[]> {
  const small = await photoKinds(side);
  const large = slow.to > slow.from ? await photoKinds(slow.slowSide) : small;
  return Array.from({ length: n }, (_, i) => (i >= slow.from && i < slow.to ? large : small)[i % small.length]);
}

/** POST /api-node/jobs with the photos as `images`; answers the job id. */
export async function submitJob(url: string, token: string, photos: Uint8Array[], options: object): Promise<string> {
  const fd = new FormData();
  fd.append('operation', 'bruise');
  fd.append('options', JSON.stringify(options));
  photos.forEach((p, i) => fd.append('images', new Blob([p as BlobPart]), `photo-${String(i).padStart(4, '0')}.jpg`));
  const res = await fetch(`${url}/api-node/jobs`, {
    method: 'POST',
    body: fd,
    headers: { Authorization: `Bearer ${token}` },
  });
  if (res.status !== 202) throw new Error(`POST /api-node/jobs: ${res.status} ${await res.text()}`);
  return ((await res.json()) as { id: string }).id;
}

/** Stops every process given, in parallel. */
export const stopAll = (ps: (ClusterProcess | undefined)[]) => Promise.all(ps.map((p) => p?.stop()));

/** A schema name of its own for a test's or a benchmark's queue (dropped with `dropQueueSchema`). */
export const uniqueQueueSchema = (prefix: string) => `${prefix}_${Math.random().toString(36).slice(2, 10)}`;

export async function dropQueueSchema(db: pg.Client, schema: string): Promise<void> {
  if (!/^[a-z0-9_]+$/.test(schema)) throw new Error(`not a queue schema name: ${schema}`);
  await db.query(`drop schema if exists ${schema} cascade`);
}

/** The queue jobs of `jobId`'s photos in pg-boss's table (state and attempts). */
const photoRows = (schema: string) => `from ${schema}.job where name = 'mango-photo' and data->>'jobId' = $1`;

/**
 * SIGKILLs `worker` in the middle of a photo: once `holders` workers hold one (that many active
 * queue jobs of the job), or after about ten seconds. Answers the time of the kill and whether that
 * many were seen holding one.
 */
export async function killMidPhoto(
  db: pg.Client,
  schema: string,
  jobId: string,
  worker: ClusterProcess,
  holders = 2,
): Promise<{ killedAt: number; held: boolean }> {
  let held = false;
  for (const until = Date.now() + 10_000; !held && Date.now() < until;) {
    const active = await db.query(`select count(*)::int as n ${photoRows(schema)} and state = 'active'`, [jobId]);
    held = active.rows[0].n >= holders;
    if (!held) await sleep(2);
  }
  worker.proc.kill('SIGKILL');
  return { killedAt: Date.now(), held };
}

/** The photos of the job that pg-boss retried, with when their retry completed (null: not yet). */
export async function retriedPhotos(
  db: pg.Client,
  schema: string,
  jobId: string,
): Promise<{ position: number; completedOn: Date | null }[]> {
  const rows = await db.query<{ position: string; completed_on: Date }>(
    `select data->>'position' as position, completed_on ${photoRows(schema)} and retry_count > 0`,
    [jobId],
  );
  return rows.rows.map((r) => ({ position: Number(r.position), completedOn: r.completed_on }));
}
