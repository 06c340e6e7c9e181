/** Test helpers: a real server on a random port with a real database in a temporary directory. */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadConfig, type ServerConfig } from '../config.ts';
import { startServer, type RunningServer } from '../server.ts';
import { silentLogger, type Logger } from '@mango/core';
import { client, signUp } from './accounts.ts';

export interface TestServer extends RunningServer {
  dataDir: string;
}

/**
 * Starts a server on 127.0.0.1:random with SQLite in a fresh temp dir, or on the PostgreSQL database of
 * TEST_DATABASE_URL when `database: 'postgres'` (shared between servers and runs: tests use unique names).
 */
export async function startTestServer(
  overrides: Partial<ServerConfig> = {},
  opts: { database?: 'sqlite' | 'postgres'; logger?: Logger } = {},
): Promise<TestServer> {
  const dataDir = overrides.dataDir ?? mkdtempSync(join(tmpdir(), 'mango-test-'));
  const databaseUrl = opts.database === 'postgres' ? process.env.TEST_DATABASE_URL : undefined;
  if (opts.database === 'postgres' && !databaseUrl) throw new Error('TEST_DATABASE_URL is not set');
  const config = loadConfig(
    {},
    {
      port: 0,
      host: '127.0.0.1',
      dataDir,
      databaseUrl,
      logRequests: false,
      loginLimitPerMinute: 1000,
      recoveryPerAddressPerDay: 1000,
      // only the tests of the backfill run it (config.ts overlayBackfill)
      overlayBackfill: false,
      ...overrides,
    },
  );
  const running = await startServer(config, { logger: opts.logger ?? silentLogger });
  return {
    ...running,
    dataDir,
    close: async () => {
      await running.close();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

/**
 * A test server (`startTestServer`) with one signed-up user, and `call(path, init)`: a request to it
 * with that user's access token.
 */
export async function startWithUser(database: 'sqlite' | 'postgres', organization = 'Alice Farms') {
  const server = await startTestServer({}, { database });
  const user = await signUp(client(server), organization);
  const call = (path: string, init: RequestInit = {}) =>
    fetch(server.url + path, { ...init, headers: { Authorization: `Bearer ${user.accessToken}`, ...init.headers } });
  return { server, user, call };
}

/** The databases the suite runs on: SQLite always, PostgreSQL when TEST_DATABASE_URL is set. */
export const TEST_DATABASES: ('sqlite' | 'postgres')[] = process.env.TEST_DATABASE_URL
  ? ['sqlite', 'postgres']
  : ['sqlite'];

export * from './cluster.ts';
export * from './accounts.ts';
export * from './runs.ts';
export * from './annotations.ts';
export * from './models.ts';
