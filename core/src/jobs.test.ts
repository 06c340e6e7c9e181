import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { followJob, type JobProgress } from './jobs.ts';

/** A real HTTP server with one job's event stream: 401 unless the bearer is `fresh`, then two events. */
describe('followJob', () => {
  let server: Server;
  let base = '';
  let opened = 0;
  beforeAll(async () => {
    server = createServer((req, res) => {
      if (req.headers.authorization !== 'Bearer fresh') {
        res
          .writeHead(401, { 'content-type': 'application/json' })
          .end(JSON.stringify({ error: 'Invalid or expired token' }));
        return;
      }
      opened++;
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      const p = (done: number, state: string) =>
        `event: progress\ndata: ${JSON.stringify({ id: 'j1', state, total: 2, done, failed: 0, run_id: 'r1' })}\n\n`;
      // The first stream drops before the end: the follower opens it again.
      if (opened === 1) res.end(p(1, 'running'));
      else res.end(p(1, 'running') + p(2, 'done'));
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(() => new Promise<void>((r) => server.close(() => r())));

  it('refreshes an expired token once refused, reconnects a dropped stream, and answers the last progress', async () => {
    let token = 'expired';
    const seen: JobProgress[] = [];
    const end = await followJob(
      base,
      'j1',
      () => token,
      (p) => seen.push(p),
      undefined,
      async () => {
        token = 'fresh';
        return true;
      },
    );
    expect(end).toMatchObject({ state: 'done', done: 2, run_id: 'r1' });
    expect(seen.map((p) => p.done)).toEqual([1, 1, 2]);
    expect(opened).toBe(2);
  });

  it('gives up on a 401 it cannot cure, with the server error', async () => {
    await expect(followJob(base, 'j1', 'expired')).rejects.toThrow('job j1: Invalid or expired token');
  });
});
