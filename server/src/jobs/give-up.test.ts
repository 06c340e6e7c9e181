import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { silentLogger } from '@mango/core';
import { startTestServer, type TestServer } from '../testing/index.ts';
import { unqueuedJob } from '../testing/jobs.ts';
import { jobView, stuckJobs } from './store.ts';
import { giveUpPhoto } from './work.ts';
import { registry } from '@mango/plugins';

describe('a photo out of retries, and stuck jobs', () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer({ workerThreads: 1 });
  });
  afterAll(() => server.close());

  it('stores the given-up photo as failed with the reason, counts it once, and reports the idle job as stuck', async () => {
    const { db, jobs, pool } = server.ctx;
    // Created, not handed to the queue: nothing scores it while the test looks.
    const id = await unqueuedJob(server, 'crate-7.jpg');
    expect((await stuckJobs(db, 0)).map((j) => j.id)).toContain(id);

    const deps = {
      db,
      store: jobs.store,
      pool,
      registry,
      models: jobs.models,
      logger: silentLogger,
      maxPixels: 1e6,
      maxBytes: 1e6,
    };
    await giveUpPhoto(deps, id, 0, '3 attempts failed or timed out');
    await giveUpPhoto(deps, id, 0, 'again');
    expect(await jobView(db, id)).toMatchObject({ state: 'done', total: 1, done: 0, failed: 1 });
    const item = await db
      .selectFrom('run_items')
      .select(['filename', 'result'])
      .where('run_id', '=', (await jobView(db, id))!.run_id!)
      .execute();
    expect(item).toHaveLength(1);
    expect(JSON.parse(item[0].result).error).toMatch(
      /crate-7\.jpg: not processed after repeated attempts \(3 attempts failed/,
    );
    expect((await stuckJobs(db, 0)).map((j) => j.id)).not.toContain(id);
  });
});
