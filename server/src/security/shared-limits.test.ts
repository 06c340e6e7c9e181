import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../testing/index.ts';
import { client, signUp } from '../routes/api-node/testing.ts';

const PG = process.env.TEST_DATABASE_URL;
if (!PG) console.warn('shared rate limits test SKIPPED: set TEST_DATABASE_URL=postgres://... to run it');

describe.skipIf(!PG)('rate limits shared by the instances of one PostgreSQL deployment', () => {
  let a: TestServer;
  let b: TestServer;
  const jwtSecret = `shared-limits-${Math.random().toString(36).slice(2)}-0123456789abcdef`;
  beforeAll(async () => {
    a = await startTestServer({ jwtSecret }, { database: 'postgres' });
    b = await startTestServer({ jwtSecret }, { database: 'postgres' });
  });
  afterAll(async () => {
    await a?.close();
    await b?.close();
  });

  it("counts an API key's per-minute limit across instances: 3 a minute is 3 in all", async () => {
    const owner = await signUp(client(a));
    const key = await client(a).post<{ key: string }>(
      '/api-node/api-keys',
      { name: 'shared', kind: 'server', allowedOrigins: [], rateLimitPerMinute: 3 },
      owner.accessToken,
    );
    expect(key.status).toBe(201);
    const statuses: number[] = [];
    for (const s of [a, b, a, b]) statuses.push((await client(s).get('/api-node/runs', key.body.key)).status);
    expect(statuses).toEqual([200, 200, 200, 429]);
  });
});
