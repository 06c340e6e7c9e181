/**
 * A bruise job of one photo for tests of the job store: made by a new user, its photo spooled, and not
 * handed to the queue, so nothing scores it while the test looks and the test stores its result itself.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { registry } from '@mango/plugins';
import { createJob } from '../jobs/store.ts';
import { planRun } from '../runs/service.ts';
import { client, signUp } from './accounts.ts';
import type { TestServer } from './index.ts';

/** Answers the job's id; its one photo is `name`. */
export async function unqueuedJob(server: TestServer, name: string): Promise<string> {
  const { db, jobs } = server.ctx;
  const alice = await signUp(client(server));
  const user = await db
    .selectFrom('users')
    .select('id')
    .where('username', '=', alice.username)
    .executeTakeFirstOrThrow();
  const spooled = join(server.dataDir, `spooled-${name}`);
  writeFileSync(spooled, 'bytes of a photo');
  const job = { operation: 'bruise', ...planRun(registry, 'bruise', {}) };
  return createJob(db, jobs.store, { userId: user.id, organization: 'Lab' }, job, [{ name, path: spooled, size: 16 }]);
}
