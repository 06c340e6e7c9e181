import { mkdirSync, mkdtempSync, existsSync, utimesSync, writeFileSync } from 'node:fs';
import { request } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Logger } from '@mango/core';
import { startTestServer, TEST_DATABASES, type TestServer } from '../../testing/index.ts';
import { client, signUp, type SignedIn } from '../../testing/accounts.ts';

/** A logger that keeps what it is given, by level. */
function recordingLogger() {
  const lines: { level: keyof Logger; message: string; extra: unknown[] }[] = [];
  const at =
    (level: keyof Logger) =>
    (message: string, ...extra: unknown[]) =>
      lines.push({ level, message, extra });
  const logger: Logger = { debug: at('debug'), info: at('info'), warn: at('warn'), error: at('error') };
  return { logger, lines };
}

describe.each(TEST_DATABASES)('an upload aborted by its client on %s', (database) => {
  let server: TestServer;
  let user: SignedIn;
  const log = recordingLogger();

  beforeAll(async () => {
    // jobWorker off: on PostgreSQL this server must not take photos of other tests' jobs (and log them).
    server = await startTestServer({ logRequests: true, jobWorker: false }, { database, logger: log.logger });
    user = await signUp(client(server), 'Aborting Lab');
  });
  afterAll(() => server.close());

  it('is logged as one quiet info line, without an error or a stack', async () => {
    const boundary = 'mango-abort-boundary';
    const req = request(`${server.url}/api-py/python/bruise_detection/Classical`, {
      method: 'POST',
      headers: {
        authorization: `Bearer ${user.accessToken}`,
        'content-type': `multipart/form-data; boundary=${boundary}`,
        'transfer-encoding': 'chunked',
      },
    });
    req.on('error', () => {}); // the socket is destroyed on purpose
    req.write(
      `--${boundary}\r\ncontent-disposition: form-data; name="images"; filename="big.jpg"\r\n` +
        'content-type: image/jpeg\r\n\r\n',
    );
    for (let i = 0; i < 8; i++) req.write(Buffer.alloc(64 * 1024, 7));
    await sleep(300);
    req.destroy();
    // The server notices the reset and ends the request.
    const deadline = Date.now() + 5000;
    while (
      Date.now() < deadline &&
      !log.lines.some((l) => /\/api-py\/python\/bruise_detection\/Classical/.test(l.message))
    ) {
      await sleep(50);
    }
    await sleep(200);
    const errors = log.lines.filter((l) => l.level === 'error' || l.level === 'warn');
    expect(errors.map((l) => l.message)).toEqual([]);
    const about = log.lines.filter((l) => l.message.includes('/api-py/python/bruise_detection/Classical'));
    expect(about).toHaveLength(1);
    expect(about[0].level).toBe('info');
    expect(about[0].message).toMatch(/aborted/i);
    expect(about[0].message).not.toMatch(/\n\s+at /); // no stack
    expect(about[0].extra).toEqual([]);
  });
});

describe('upload spools left by a crash', () => {
  it('are removed when the server starts; a spool in use is kept', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'mango-spool-'));
    const uploads = join(dataDir, 'uploads');
    const stale = join(uploads, 'b6a1f0c2-left-by-a-crash');
    const live = join(uploads, '0d9e3c1a-still-being-written');
    mkdirSync(stale, { recursive: true });
    mkdirSync(live, { recursive: true });
    writeFileSync(join(stale, '0.jpg'), Buffer.alloc(1024));
    writeFileSync(join(live, '0.jpg'), Buffer.alloc(1024));
    const twoHoursAgo = new Date(Date.now() - 2 * 3_600_000);
    utimesSync(join(stale, '0.jpg'), twoHoursAgo, twoHoursAgo);
    utimesSync(stale, twoHoursAgo, twoHoursAgo);
    const server = await startTestServer({ dataDir });
    try {
      expect(existsSync(stale)).toBe(false);
      expect(existsSync(live)).toBe(true);
    } finally {
      await server.close();
    }
  });
});
