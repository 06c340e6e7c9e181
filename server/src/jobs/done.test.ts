import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../testing/index.ts';
import { unqueuedJob } from '../testing/jobs.ts';
import { jobView, recordPhoto } from './store.ts';
import { registry } from '@mango/plugins';

describe('a job seen done', () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer({ workerThreads: 1 });
  });
  afterAll(() => server.close());

  it('has its run finished in the same step: the figures of what ran are there before the photos are cleaned up', async () => {
    const { db } = server.ctx;
    const id = await unqueuedJob(server, 'crate-8.jpg');
    const runId = (await jobView(db, id))!.run_id!;
    const result = { filename: 'crate-8.jpg', method: 'classical', version: '9.9.9', bruise_percent: 2.5 };
    const item = {
      run_id: runId,
      position: 0,
      filename: 'crate-8.jpg',
      sha256: '0'.repeat(64),
      width: 10,
      height: 10,
      result: JSON.stringify(result),
      overlay: null,
      photo: null,
      overlay_image: null,
      overlay_image_type: null,
    };
    expect(await recordPhoto(db, id, item, false, null, registry)).toBe(true);
    // closeJob has not run: what a client reads once the job says done
    expect(await jobView(db, id)).toMatchObject({ state: 'done', total: 1, done: 1, failed: 0 });
    const run = await db
      .selectFrom('runs')
      .select(['method_used', 'plugin_version', 'item_count'])
      .where('id', '=', runId)
      .executeTakeFirstOrThrow();
    expect(run).toEqual({ method_used: 'classical', plugin_version: '9.9.9', item_count: 1 });
  });
});
