import { createServer } from 'node:net';
import { afterAll, describe, expect, it, vi } from 'vitest';
import { createPgPool, PG_CONNECT_TIMEOUT_MS } from './index.ts';

describe('the PostgreSQL pool the server opens', () => {
  // A TCP server that accepts connections and never answers: a database that hangs.
  const sockets = new Set<import('node:net').Socket>();
  const silent = createServer((socket) => sockets.add(socket));
  afterAll(() => {
    for (const s of sockets) s.destroy();
    return new Promise<void>((done) => silent.close(() => done()));
  });

  it('logs an error on an idle connection instead of ending the process', () => {
    const pool = createPgPool('postgres://mango:mango@127.0.0.1:1/none', { max: 1 });
    const log = vi.spyOn(console, 'error').mockImplementation(() => {});
    // Without a listener, EventEmitter throws on 'error' (in production: an uncaught exception).
    expect(() => pool.emit('error', new Error('terminating connection due to administrator command'))).not.toThrow();
    expect(log).toHaveBeenCalledWith(expect.stringMatching(/administrator command.*replaced/));
    log.mockRestore();
    return pool.end();
  });

  it(`gives up on a database that does not answer after ${PG_CONNECT_TIMEOUT_MS / 1000} s`, async () => {
    await new Promise<void>((done) => silent.listen(0, '127.0.0.1', () => done()));
    const port = (silent.address() as { port: number }).port;
    const pool = createPgPool(`postgres://mango:mango@127.0.0.1:${port}/none`, { max: 1 });
    const t = performance.now();
    await expect(pool.query('select 1')).rejects.toThrow(/timeout/i);
    const ms = performance.now() - t;
    expect(ms).toBeGreaterThanOrEqual(PG_CONNECT_TIMEOUT_MS - 100);
    expect(ms).toBeLessThan(PG_CONNECT_TIMEOUT_MS + 3000);
    await pool.end();
  }, 15_000);
});
