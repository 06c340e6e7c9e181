/**
 * Issue 23 through real HTTP, on SQLite and PostgreSQL: deleting the run of a running job cancels the
 * job (no retry loop, its photos removed), the job queue is fair between users, and a user's queued
 * photos are capped (MAX_QUEUED_PHOTOS_PER_USER).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import type { Logger } from '@mango/core';
import type { JobProgress } from '@mango/core/jobs';
import { encodeImage } from '@mango/core/node';
import { bruisedPairScene } from '@mango/core/testing';
import { startTestServer, TEST_DATABASES, type TestServer } from '../testing/index.ts';
import { client, signUp, type Client, type SignedIn } from '../testing/accounts.ts';

const classical = JSON.stringify({ method: 'classical' });

async function submit(url: string, token: string, photos: number, png: Uint8Array) {
  const fd = new FormData();
  fd.append('operation', 'bruise');
  fd.append('options', classical);
  for (let i = 0; i < photos; i++) fd.append('images', new Blob([png as BlobPart]), `mango-${i}.png`);
  const res = await fetch(`${url}/api-node/jobs`, {
    method: 'POST',
    body: fd,
    headers: { Authorization: `Bearer ${token}` },
  });
  return {
    status: res.status,
    retryAfter: res.headers.get('retry-after'),
    body: (await res.json()) as { id?: string; error?: string },
  };
}

/** Polls GET /jobs/{id} until `until` holds or `ms` pass; answers the last view and the time taken. */
async function waitFor(api: Client, token: string, id: string, until: (v: JobProgress) => boolean, ms: number) {
  const t0 = Date.now();
  for (;;) {
    const r = await api.call<JobProgress>('GET', `/api-node/jobs/${id}`, { token });
    expect(r.status).toBe(200);
    if (until(r.body) || Date.now() - t0 > ms) return { view: r.body, ms: Date.now() - t0 };
    await sleep(50);
  }
}

/** A logger that counts its lines (the server's log volume). */
function countingLogger(): Logger & { lines: number } {
  const log = { lines: 0 } as Logger & { lines: number };
  for (const level of ['debug', 'info', 'warn', 'error'] as const) log[level] = () => void log.lines++;
  return log;
}

const userIdOf = async (server: TestServer, who: SignedIn) =>
  (await server.ctx.db.selectFrom('users').select('id').where('username', '=', who.username).executeTakeFirstOrThrow())
    .id;

describe.each(TEST_DATABASES)('jobs under attack on %s', (database) => {
  let png: Uint8Array;
  beforeAll(async () => {
    png = await encodeImage(bruisedPairScene().image, 'png');
  });

  describe('deleting the run of a running job', () => {
    let server: TestServer;
    const log = countingLogger();
    beforeAll(async () => {
      server = await startTestServer({ workerThreads: 1 }, { database, logger: log });
    });
    afterAll(() => server.close());

    it('cancels the job within 15 s: no retry loop, no further results, its photos removed, the run gone', async () => {
      const api = client(server);
      const alice = await signUp(api, 'Alice Farms');
      const sent = await submit(server.url, alice.accessToken, 60, png);
      expect(sent.status).toBe(202);
      const id = sent.body.id!;
      const started = await waitFor(api, alice.accessToken, id, (v) => v.done + v.failed >= 2, 60_000);
      expect(started.view.state).toBe('running');
      const runId = started.view.run_id!;

      const del = await api.call('DELETE', `/api-node/runs/${runId}`, { token: alice.accessToken });
      expect(del.status).toBe(200);
      const ended = await waitFor(api, alice.accessToken, id, (v) => v.state !== 'running', 15_000);
      console.log(`${database}: job ended ${ended.ms} ms after its run was deleted, at ${ended.view.done}/60`);
      expect(ended.view.state).toBe('cancelled');
      expect(ended.view.run_id).toBeNull();
      expect(ended.ms).toBeLessThan(15_000);
      expect((await api.call('GET', `/api-node/runs/${runId}`, { token: alice.accessToken })).status).toBe(404);

      const { db } = server.ctx;
      const items = () => db.selectFrom('run_items').select('id').where('run_id', '=', runId).execute();
      const files = () => db.selectFrom('job_files').select('position').where('job_id', '=', id).execute();
      expect(await files()).toEqual([]);
      if (database === 'sqlite') expect(existsSync(join(server.dataDir, 'jobs', id))).toBe(false);

      // Nothing more is written and the log stays quiet (the bug: 5,900 lines a second, unbounded).
      const before = log.lines;
      await sleep(5000);
      const grown = log.lines - before;
      console.log(`${database}: ${grown} log lines in the 5 s after the cancel`);
      expect(grown).toBeLessThan(20);
      expect(await items()).toEqual([]);
      expect(await files()).toEqual([]);
      const after = await api.call<JobProgress>('GET', `/api-node/jobs/${id}`, { token: alice.accessToken });
      expect(after.body).toMatchObject({ state: 'cancelled', done: ended.view.done });
    }, 120_000);
  });

  describe('sharing the workers between users', () => {
    let server: TestServer;
    beforeAll(async () => {
      server = await startTestServer({ workerThreads: 1 }, { database });
    });
    afterAll(() => server.close());

    it("serves B's one photo within 10 s while A's 300 photos run", async () => {
      const api = client(server);
      const a = await signUp(api, 'A Exports');
      const b = await signUp(api, 'B Growers');
      const sentA = await submit(server.url, a.accessToken, 300, png);
      expect(sentA.status).toBe(202);
      const jobA = sentA.body.id!;
      await waitFor(api, a.accessToken, jobA, (v) => v.done + v.failed >= 1, 60_000);

      const t0 = Date.now();
      const sentB = await submit(server.url, b.accessToken, 1, png);
      expect(sentB.status).toBe(202);
      const doneB = await waitFor(api, b.accessToken, sentB.body.id!, (v) => v.state === 'done', 30_000);
      const waitedMs = Date.now() - t0;
      const viewA = await api.call<JobProgress>('GET', `/api-node/jobs/${jobA}`, { token: a.accessToken });
      console.log(`${database}: B's photo done in ${waitedMs} ms; A at ${viewA.body.done}/300 meanwhile`);
      expect(doneB.view).toMatchObject({ state: 'done', done: 1, failed: 0 });
      expect(waitedMs).toBeLessThan(10_000);
      // A's job was far from done: B did not simply wait for it.
      expect(viewA.body.state).toBe('running');
      expect(viewA.body.done).toBeLessThan(250);

      expect((await api.call('DELETE', `/api-node/jobs/${jobA}`, { token: a.accessToken })).status).toBe(200);
    }, 180_000);
  });

  describe('the cap on queued photos per user', () => {
    let server: TestServer;
    beforeAll(async () => {
      server = await startTestServer({ workerThreads: 1, maxQueuedPhotosPerUser: 50 }, { database });
    });
    afterAll(() => server.close());

    it('answers 429 with the reason and Retry-After before storing the photos, per user', async () => {
      const api = client(server);
      const a = await signUp(api, 'A Exports');
      const b = await signUp(api, 'B Growers');
      const { db } = server.ctx;
      const jobsOfA = async () =>
        db
          .selectFrom('jobs')
          .select('id')
          .where('user_id', '=', await userIdOf(server, a))
          .execute();

      // One job over the cap by itself: refused, nothing stored.
      const tooMany = await submit(server.url, a.accessToken, 51, png);
      expect(tooMany.status).toBe(429);
      expect(tooMany.body.error).toMatch(
        /Too many photos queued: 0 of your photos are waiting and this job adds 51 \(at most 50/,
      );
      expect(Number(tooMany.retryAfter)).toBeGreaterThanOrEqual(1);
      expect(await jobsOfA()).toEqual([]);

      // 45 waiting: 5 more fit, 6 do not; B has a queue of their own.
      const first = await submit(server.url, a.accessToken, 45, png);
      expect(first.status).toBe(202);
      const over = await submit(server.url, a.accessToken, 10, png);
      expect(over.status).toBe(429);
      expect(over.body.error).toMatch(/of your photos are waiting and this job adds 10 \(at most 50 together\)/);
      expect(Number(over.retryAfter)).toBeGreaterThanOrEqual(1);
      expect(await jobsOfA()).toHaveLength(1);
      expect(readdirSync(join(server.dataDir, 'uploads')).length).toBe(0);
      expect((await submit(server.url, b.accessToken, 10, png)).status).toBe(202);

      expect((await api.call('DELETE', `/api-node/jobs/${first.body.id}`, { token: a.accessToken })).status).toBe(200);
      // Cancelled: nothing of A waits any more.
      expect((await submit(server.url, a.accessToken, 50, png)).status).toBe(202);
    }, 120_000);
  });
});
