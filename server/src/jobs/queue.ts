/**
 * The queues that hand a job's photos to workers.
 *
 * - SQLite (the embedded default): in-process. The work list is the database itself (photos of
 *   active jobs without a result), so a restarted server picks up where it stopped; photos run on
 *   this server's worker threads. Nothing to configure.
 * - PostgreSQL: pg-boss, one queue message per photo. Any server instance (unless JOB_WORKER=0) and
 *   any `mango worker` process take photos from it. A worker sends heartbeats while it scores a
 *   photo; a killed worker's heartbeats stop, pg-boss fails the attempt and another worker retries
 *   it. Retries are bounded (JOB_RETRIES); a photo out of retries goes to a dead-letter queue whose
 *   handler stores it as failed with the reason, so the job still ends.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { PgBoss } from 'pg-boss';
import type { Logger } from '@mango/core';
import { createHash } from 'node:crypto';
import { jobOwner, pendingPhotos, pendingPhotosByUser, queuedPhotosOf, stuckJobs } from './store.ts';
import { giveUpPhoto, processPhoto, type JobWorkDeps } from './work.ts';

export interface JobQueue {
  /** hands a created job's photos to the workers */
  enqueue(jobId: string): Promise<void>;
  close(): Promise<void>;
}

/**
 * Reports active jobs that made no progress for a while, and hands their photos without a result to
 * the queue again (`requeue`: harmless for photos already queued; it repairs a job whose server
 * stopped between storing it and queueing it).
 */
function watchStuckJobs(
  deps: JobWorkDeps,
  stuckAfterMs: number,
  requeue: (jobId: string) => Promise<void>,
): () => void {
  const check = async () => {
    for (const j of await stuckJobs(deps.db, stuckAfterMs)) {
      deps.logger.warn(`job ${j.id} is stuck: no progress since ${j.updated_at}; its photos are queued again`);
      await requeue(j.id);
    }
  };
  const timer = setInterval(
    () => {
      check().catch((e) => deps.logger.error('checking for stuck jobs failed', e));
    },
    Math.min(60_000, stuckAfterMs),
  );
  timer.unref();
  return () => clearInterval(timer);
}

/** Attempts of one photo on the in-process queue before it is stored as failed. */
const LOCAL_ATTEMPTS = 3;
/** A failed attempt waits before the next: 0.5 s, doubling, at most 30 s (a photo never loops hot). */
const retryDelayMs = (tries: number) => Math.min(30_000, 500 * 2 ** (tries - 1));

/**
 * The in-process queue. Fair between users: a free thread takes the next photo of the user with the
 * fewest photos running here, and among those of the user served longest ago (round-robin), so one
 * user's long job does not hold back another's photos.
 */
export function createLocalQueue(deps: JobWorkDeps, options: { concurrency: number; stuckAfterMs: number }): JobQueue {
  const running = new Map<string, Promise<void>>();
  const runningOfUser = new Map<number, number>();
  const lastServed = new Map<number, number>();
  let served = 0;
  const attempts = new Map<string, number>();
  /** photos whose last attempt failed: not taken again before this time */
  const waitUntil = new Map<string, number>();
  let pumping = false;
  let again = false;
  let closed = false;
  const stopWatch = watchStuckJobs(deps, options.stuckAfterMs, async () => pump());

  const start = (jobId: string, position: number, key: string, userId: number) => {
    const tries = (attempts.get(key) ?? 0) + 1;
    attempts.set(key, tries);
    runningOfUser.set(userId, (runningOfUser.get(userId) ?? 0) + 1);
    lastServed.set(userId, ++served);
    const work =
      tries > LOCAL_ATTEMPTS
        ? giveUpPhoto(deps, jobId, position, `${LOCAL_ATTEMPTS} attempts failed`)
        : processPhoto(deps, jobId, position);
    const settled = work
      .then(
        () => {
          attempts.delete(key);
          waitUntil.delete(key);
        },
        (e) => {
          deps.logger.error(`job ${jobId}: photo ${position} failed (attempt ${tries})`, e);
          const delay = retryDelayMs(tries);
          waitUntil.set(key, Date.now() + delay);
          setTimeout(pump, delay).unref();
        },
      )
      .finally(() => {
        running.delete(key);
        const left = (runningOfUser.get(userId) ?? 1) - 1;
        if (left > 0) runningOfUser.set(userId, left);
        else runningOfUser.delete(userId);
        pump();
      })
      .then(() => {});
    running.set(key, settled);
  };

  const fill = async () => {
    do {
      again = false;
      const free = options.concurrency - running.size;
      if (free <= 0 || closed) return;
      // Each user's next photos (enough to skip those running here), in order.
      const rows = await pendingPhotosByUser(deps.db, free + running.size);
      const t = Date.now();
      const waiting = new Map<number, { job_id: string; position: number; key: string }[]>();
      for (const r of rows) {
        const key = `${r.job_id}/${r.position}`;
        if (running.has(key) || (waitUntil.get(key) ?? 0) > t) continue;
        const list = waiting.get(r.user_id) ?? [];
        list.push({ ...r, key });
        waiting.set(r.user_id, list);
      }
      while (running.size < options.concurrency) {
        let next: number | undefined;
        for (const [user, list] of waiting) {
          if (!list.length) continue;
          if (next === undefined) {
            next = user;
            continue;
          }
          const a = runningOfUser.get(user) ?? 0;
          const b = runningOfUser.get(next) ?? 0;
          if (a < b || (a === b && (lastServed.get(user) ?? 0) < (lastServed.get(next) ?? 0))) next = user;
        }
        if (next === undefined) break;
        const r = waiting.get(next)!.shift()!;
        start(r.job_id, r.position, r.key, next);
      }
    } while (again);
  };

  function pump(): void {
    if (closed) return;
    if (pumping) {
      again = true;
      return;
    }
    pumping = true;
    fill()
      .catch((e) => deps.logger.error('the job queue could not read its work', e))
      .finally(() => {
        pumping = false;
      });
  }

  // Jobs left active by a previous run of the server go on.
  pump();
  return {
    enqueue: async () => pump(),
    close: async () => {
      closed = true;
      stopWatch();
      // Photos on the threads finish (up to a few seconds); the rest waits for the next start.
      await Promise.race([Promise.allSettled(running.values()), sleep(5000)]);
    },
  };
}

export const PHOTO_QUEUE = 'mango-photo';
export const GIVEN_UP_QUEUE = 'mango-photo-given-up';

interface PhotoMessage {
  jobId: string;
  position: number;
}

export interface PgQueueOptions {
  databaseUrl: string;
  /** the schema pg-boss keeps its tables in */
  schema: string;
  /** take photos on this process (servers: unless JOB_WORKER=0; `mango worker`: always) */
  work: boolean;
  /** photos scored at once by this process */
  concurrency: number;
  /** attempts after the first, when a worker dies or the database fails mid-photo */
  retryLimit: number;
  /** a worker that sends no heartbeat for this long is taken as dead (>= 10) */
  heartbeatSeconds: number;
  /** longest an attempt may run */
  expireInSeconds: number;
  stuckAfterMs: number;
  logger: Logger;
}

const INSERT_CHUNK = 1000;
/** pg-boss priorities are PostgreSQL integers. */
const MAX_RANK = 2 ** 31 - 1;

/** A UUID made from the job and the photo (pg-boss ids are UUIDs). */
function photoMessageId(jobId: string, position: number): string {
  const h = createHash('sha256').update(`${jobId}/${position}`).digest('hex');
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-4${h.slice(13, 16)}-8${h.slice(17, 20)}-${h.slice(20, 32)}`;
}

export async function createPgBossQueue(deps: JobWorkDeps, options: PgQueueOptions): Promise<JobQueue> {
  const boss = new PgBoss({
    connectionString: options.databaseUrl,
    schema: options.schema,
    max: 4,
    // Expired attempts and missed heartbeats are looked for every 2 s, so a dead worker's photo
    // goes back to the queue within heartbeatSeconds + 2 s.
    superviseIntervalSeconds: 2,
    monitorIntervalSeconds: 2,
    // Workers read the queue's backlog from this cache to fetch photo after photo without pausing.
    queueCacheIntervalSeconds: 2,
  });
  boss.on('error', (e: unknown) => options.logger.error('pg-boss', e));
  await boss.start();
  // createQueue is idempotent: every instance runs it on start.
  await boss.createQueue(GIVEN_UP_QUEUE, { retryLimit: options.retryLimit });
  await boss.createQueue(PHOTO_QUEUE, {
    retryLimit: options.retryLimit,
    retryDelay: 1,
    heartbeatSeconds: options.heartbeatSeconds,
    expireInSeconds: options.expireInSeconds,
    deadLetter: GIVEN_UP_QUEUE,
  });
  if (options.work) {
    await boss.work<PhotoMessage>(
      PHOTO_QUEUE,
      // While photos wait, the next is fetched the moment one is done (burst); idle, every 0.5 s.
      { localConcurrency: options.concurrency, pollingIntervalSeconds: 0.5, burstWhenReadyExceeds: 1 },
      async ([job]) => processPhoto(deps, job.data.jobId, job.data.position),
    );
    await boss.work<PhotoMessage>(GIVEN_UP_QUEUE, { pollingIntervalSeconds: 1 }, async ([job]) =>
      giveUpPhoto(deps, job.data.jobId, job.data.position, `${options.retryLimit + 1} attempts failed or timed out`),
    );
  }
  // A photo's message id is derived from the job and the photo: queueing it again is a no-op in
  // pg-boss (its insert skips an id it has), so a job can be queued again safely.
  //
  // Fairness between users: a photo's priority is minus its place in its user's backlog (the photos of
  // the user's other active jobs still waiting, then this job's in order). pg-boss hands out the
  // highest priority first, so every user's first waiting photo goes before anyone's second: a user
  // with one photo is served next even behind another's thousands.
  const enqueue = async (jobId: string) => {
    // Every photo of the job without a result (at most MAX_JOB_FILES).
    const photos = await pendingPhotos(deps.db, Number.MAX_SAFE_INTEGER, jobId);
    if (!photos.length) return;
    const owner = await jobOwner(deps.db, jobId);
    const ahead = owner === undefined ? 0 : await queuedPhotosOf(deps.db, owner, jobId);
    for (let i = 0; i < photos.length; i += INSERT_CHUNK) {
      await boss.insert(
        PHOTO_QUEUE,
        photos.slice(i, i + INSERT_CHUNK).map(({ position }, k) => ({
          id: photoMessageId(jobId, position),
          data: { jobId, position },
          priority: -Math.min(MAX_RANK, ahead + i + k),
        })),
      );
    }
  };
  const stopWatch = watchStuckJobs(deps, options.stuckAfterMs, enqueue);
  return {
    enqueue,
    async close() {
      stopWatch();
      await boss.stop({ graceful: true, timeout: 5000 });
    },
  };
}
