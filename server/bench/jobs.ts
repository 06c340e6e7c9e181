/**
 * Batch-job throughput on PostgreSQL with 1 and with 2 `mango worker` processes, and the time to
 * recover a killed worker's photo (issue 14). Real processes on 127.0.0.1: one server instance
 * (JOB_WORKER=0, so only the workers score) and the workers, each with one thread.
 *
 *   DATABASE_URL=postgres://mango:mango@127.0.0.1:5432/mango_jobs npm run bench:jobs [-- --photos 200 --side 240]
 */
import { parseArgs } from 'node:util';
import pg from 'pg';
import { followJob } from '@mango/core/jobs';
import {
  benchDatabaseUrl,
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
} from '../src/testing/cluster.ts';
import { client, signUp } from '../src/testing/accounts.ts';

const { values } = parseArgs({
  options: { photos: { type: 'string', default: '200' }, side: { type: 'string', default: '240' } },
});
const PHOTOS = Number(values.photos);
const SIDE = Number(values.side);
const url = benchDatabaseUrl();

const photos = await smallPhotos(PHOTOS, SIDE);
const db = new pg.Client({ connectionString: url });
await db.connect();
// The benchmark's queue is its own: nothing else on the database takes its photos.
const schema = uniqueQueueSchema('bench_jobs');

/** Runs one job of PHOTOS photos with `workers` workers; with `kill`, SIGKILLs one halfway. */
async function run(workers: number, kill = false) {
  const procs: ClusterProcess[] = [];
  try {
    const server = await startServerProcess(url!, { queueSchema: schema });
    procs.push(server);
    const ws = await Promise.all(Array.from({ length: workers }, () => startWorkerProcess(url!, 1, schema)));
    procs.push(...ws);
    const token = (await signUp(client(server))).accessToken;
    const t0 = performance.now();
    const id = await submitJob(server.url, token, photos, { method: 'classical' });
    const uploaded = performance.now();
    let halfway = false;
    const following = followJob(server.url, id, token, (p) => {
      if (p.done + p.failed >= PHOTOS / 2) halfway = true;
    });
    let recoveredS: number | null = null;
    if (kill) {
      while (!halfway) await new Promise((r) => setTimeout(r, 20));
      const { killedAt } = await killMidPhoto(db, schema, id, ws[0], workers);
      await following;
      // A retry not completed yet (the killed worker had stored its photo) gives no recovery time.
      const done = (await retriedPhotos(db, schema, id)).flatMap((r) =>
        r.completedOn ? [r.completedOn.getTime()] : [],
      );
      if (done.length) recoveredS = (Math.max(...done) - killedAt) / 1000;
    }
    const end = await following;
    const seconds = (performance.now() - uploaded) / 1000;
    if (end.state !== 'done' || end.done !== PHOTOS) throw new Error(`job ended ${JSON.stringify(end)}`);
    return { upload: (uploaded - t0) / 1000, seconds, perSecond: PHOTOS / seconds, recoveredS };
  } finally {
    await stopAll(procs);
  }
}

try {
  const one = await run(1);
  const two = await run(2);
  const killed = await run(2, true);
  const f = (v: number) => v.toFixed(2);
  console.log(
    `${PHOTOS} photos of ${photos[0].length} bytes (${SIDE} px JPEG), classical bruise, one thread per worker`,
  );
  console.log(`1 worker : ${f(one.perSecond)} photos/s (${f(one.seconds)} s after the upload of ${f(one.upload)} s)`);
  console.log(`2 workers: ${f(two.perSecond)} photos/s (${f(two.seconds)} s), x${f(two.perSecond / one.perSecond)}`);
  console.log(
    `2 workers, one SIGKILLed mid-photo halfway: ${f(killed.seconds)} s in all; the killed worker's photo stored ` +
      `${killed.recoveredS === null ? '(none was held)' : `${f(killed.recoveredS)} s`} after the kill`,
  );
} finally {
  await dropQueueSchema(db, schema);
  await db.end();
}
