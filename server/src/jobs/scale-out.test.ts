/**
 * Issue 14's kill test: two server instances and two `mango worker` processes on one PostgreSQL
 * database (TEST_DATABASE_URL), 200 photos submitted as one job, one worker SIGKILLed halfway, in the
 * middle of a photo. Every photo must have exactly one stored result and the job must complete; the
 * killed worker's photo is retried by the other worker (pg-boss notices its missing heartbeat).
 */
import { afterAll, describe, expect, it } from 'vitest';
import pg from 'pg';
import { followJob, type JobProgress } from '@mango/core/jobs';
import {
  builtForCluster,
  dropQueueSchema,
  uniqueQueueSchema,
  killMidPhoto,
  retriedPhotos,
  smallPhotos,
  startServerProcess,
  startWorkerProcess,
  stopAll,
  submitJob,
  type ClusterProcess,
} from '../testing/cluster.ts';
import { client, signUp } from '../testing/accounts.ts';

const DATABASE_URL = process.env.TEST_DATABASE_URL;
const PHOTOS = 200;

if (!DATABASE_URL) {
  console.warn('scale-out kill test SKIPPED: set TEST_DATABASE_URL=postgres://... to run it (CI does)');
}

describe.skipIf(!DATABASE_URL)('batch jobs across processes on PostgreSQL', () => {
  const procs: ClusterProcess[] = [];
  afterAll(() => stopAll(procs));

  it(`two servers, two workers, ${PHOTOS} photos, one worker SIGKILLed halfway: every photo stored exactly once`, async () => {
    expect(builtForCluster(), 'run `npm run build:node` first').toBe(true);
    const url = DATABASE_URL!;
    // Each is kept as it starts, so afterAll stops it even when another fails to start.
    const kept = <T extends ClusterProcess>(p: Promise<T>) => p.then((x) => (procs.push(x), x));
    // A queue of their own: other test servers on this database take no photo of this job.
    const schema = uniqueQueueSchema('kill_test');
    const [a, b, w1, w2] = await Promise.all([
      kept(startServerProcess(url, { queueSchema: schema })),
      kept(startServerProcess(url, { queueSchema: schema })),
      kept(startWorkerProcess(url, 1, schema)),
      kept(startWorkerProcess(url, 1, schema)),
    ]);
    const db = new pg.Client({ connectionString: url });
    await db.connect();
    try {
      const token = (await signUp(client(a))).accessToken;
      // The photos from halfway on are large for a while: the kill finds both workers inside one.
      const photos = await smallPhotos(PHOTOS, 240, { from: PHOTOS / 2 - 10, to: PHOTOS / 2 + 30, slowSide: 1600 });
      const started = Date.now();
      const id = await submitJob(a.url, token, photos, { method: 'classical' });

      // Followed on the other instance: progress comes from the database, not from a process.
      let halfway = false;
      const following = followJob(b.url, id, token, (p: JobProgress) => {
        if (p.done + p.failed >= PHOTOS / 2) halfway = true;
      });
      while (!halfway) await new Promise((r) => setTimeout(r, 20));
      const { killedAt, held } = await killMidPhoto(db, schema, id, w1);
      expect(held, 'both workers were seen holding a photo before the kill').toBe(true);
      const end = await following;
      expect(w1.proc.signalCode).toBe('SIGKILL');
      expect(end).toMatchObject({ id, state: 'done', total: PHOTOS, done: PHOTOS, failed: 0 });

      const items = await db.query<{ position: number; n: string }>(
        'select position, count(*) as n from run_items where run_id = $1 group by position order by position',
        [end.run_id],
      );
      expect(items.rows.map((r) => r.position)).toEqual([...Array(PHOTOS).keys()]);
      expect(items.rows.every((r) => Number(r.n) === 1)).toBe(true);
      // The killed worker held a photo: pg-boss retried it (retry_count > 0) once its heartbeat stopped.
      // When the worker died after storing that photo's result but before telling pg-boss, the job was
      // already done without it: the retry comes after, finds the result and stores nothing. Wait for
      // the retry to complete, then count the items again.
      const doneAt = Date.now();
      let retried = await retriedPhotos(db, schema, id);
      for (let i = 0; !retried.some((r) => r.completedOn) && i < 120; i++) {
        await new Promise((r) => setTimeout(r, 500));
        retried = await retriedPhotos(db, schema, id);
      }
      expect(retried.filter((r) => r.completedOn).length).toBeGreaterThanOrEqual(1);
      const again = await db.query<{ n: string }>(
        'select count(*) as n from run_items where run_id = $1 group by position having count(*) > 1',
        [end.run_id],
      );
      expect(again.rows).toEqual([]);
      const recoveredS = (Math.max(...retried.map((r) => r.completedOn?.getTime() ?? 0)) - killedAt) / 1000;
      console.log(
        `kill test: ${PHOTOS} photos in ${((doneAt - started) / 1000).toFixed(1)} s; the killed worker's photo ` +
          `(position ${retried.map((r) => r.position).join(', ')}) retried and done ${recoveredS.toFixed(1)} s after the kill`,
      );
      const left = await db.query('select count(*)::int as n from job_files where job_id = $1', [id]);
      expect(left.rows[0].n).toBe(0);
      // The other worker is still well.
      expect(w2.proc.exitCode).toBeNull();
    } finally {
      await stopAll(procs);
      await dropQueueSchema(db, schema);
      await db.end();
    }
  }, 180_000);
});
