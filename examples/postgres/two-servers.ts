/**
 * Two server instances on two ports sharing one PostgreSQL database: a user registered through the
 * first signs in through the second, and the second's token works on the first (accounts and keys live in
 * the database, not in a process; both instances share JWT_SECRET).
 *
 *   DATABASE_URL=postgres://user:pass@localhost/mango node --import tsx examples/postgres/two-servers.ts
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { silentLogger } from '@mango/core';
import { loadConfig, startServer, type RunningServer } from '@mango/server';

export interface TwoServersReport {
  urls: [string, string];
  username: string;
  registeredOn: string;
  signedInOn: string;
  /** the profile A returns for the token B issued */
  profileOnFirst: { username?: string; email?: string };
}

async function post(url: string, body: unknown, token?: string) {
  const res = await fetch(url, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json', ...(token ? { Authorization: `Bearer ${token}` } : {}) },
    body: JSON.stringify(body),
  });
  const json: unknown = await res.json().catch(() => null);
  if (!res.ok) throw new Error(`${url} answered ${res.status}: ${JSON.stringify(json)}`);
  return json;
}

export async function runTwoServers(databaseUrl: string, log: (line: string) => void = console.log) {
  if (!databaseUrl.startsWith('postgres')) throw new Error('DATABASE_URL must be a postgres:// URL');
  const servers: RunningServer[] = [];
  const dirs: string[] = [];
  try {
    for (const _ of [0, 1]) {
      const dataDir = mkdtempSync(join(tmpdir(), 'mango-pg-example-'));
      dirs.push(dataDir);
      const config = loadConfig(process.env, {
        port: 0,
        host: '127.0.0.1',
        dataDir,
        databaseUrl,
        logRequests: false,
        // both instances must sign the same tokens
        jwtSecret: process.env.JWT_SECRET ?? 'example-shared-secret-change-me-0123456789',
      });
      servers.push(await startServer(config, { logger: silentLogger }));
    }
    const [a, b] = servers;
    log(`instance A: ${a.url}`);
    log(`instance B: ${b.url}`);

    const id = `${Date.now().toString(36)}${Math.floor(Math.random() * 1e6).toString(36)}`;
    const user = {
      username: `pg_example_${id}`,
      email: `pg_example_${id}@example.test`,
      organization: 'Mango Lab',
      password: `Example-${id}-pw`,
    };
    await post(`${a.url}/api-node/register`, user);
    log(`registered ${user.username} on A`);
    const tokens = (await post(`${b.url}/api-node/login`, { email: user.username, password: user.password })) as {
      accessToken: string;
    };
    log(`signed in as ${user.username} on B`);
    // With one JWT_SECRET for both, a token from B is good on A too (any instance behind a balancer).
    const profileRes = await fetch(`${a.url}/api-node/user/profile`, {
      headers: { Authorization: `Bearer ${tokens.accessToken}` },
    });
    const profile = (await profileRes.json().catch(() => ({}))) as { username?: string; email?: string };
    if (!profileRes.ok) throw new Error(`A refused B's token: ${profileRes.status}`);
    log(`A accepts B's token: profile of ${profile.email}`);
    const report: TwoServersReport = {
      urls: [a.url, b.url],
      username: user.username,
      registeredOn: a.url,
      signedInOn: b.url,
      profileOnFirst: profile,
    };
    return report;
  } finally {
    for (const s of servers) await s.close();
    for (const d of dirs) rmSync(d, { recursive: true, force: true });
  }
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  runTwoServers(process.env.DATABASE_URL ?? '').then(
    () => console.log('OK: one database, two instances, one account.'),
    (e: unknown) => {
      console.error(e instanceof Error ? e.message : e);
      process.exit(1);
    },
  );
}
