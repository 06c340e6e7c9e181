import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { silentLogger } from '@mango/core';
import { startTestServer, type TestServer } from '../testing/index.ts';
import { client, signUp } from '../testing/accounts.ts';
import { createJob, jobView, stuckJobs } from './store.ts';
import { giveUpPhoto } from './work.ts';
import { planRun } from '../runs/service.ts';
import { registry } from '@mango/plugins';

describe('a photo out of retries, and stuck jobs', () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer({ workerThreads: 1 });
  });
  afterAll(() => server.close());

  it('stores the given-up photo as failed with the reason, counts it once, and reports the idle job as stuck', async () => {
    const { db, jobs, pool } = server.ctx;
    const alice = await signUp(client(server));
    const user = await db
      .selectFrom('users')
      .select('id')
      .where('username', '=', alice.username)
      .executeTakeFirstOrThrow();
    const spooled = join(server.dataDir, 'spooled-photo');
    writeFileSync(spooled, 'bytes of a photo');
    // Created, not handed to the queue: nothing scores it while the test looks.
    const job = { operation: 'bruise', ...planRun(registry, 'bruise', {}) };
    const id = await createJob(db, jobs.store, { userId: user.id, organization: 'Lab' }, job, [
      { name: 'crate-7.jpg', path: spooled, size: 16 },
    ]);
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
