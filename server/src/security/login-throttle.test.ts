import { createHmac } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { migrateToLatest, openDatabase, type OpenedDatabase } from '../db/index.ts';
import { TEST_DATABASES } from '../testing/index.ts';
import { KNOWN_ADDRESSES, LoginThrottle } from './login-throttle.ts';
import { memoryStore, type CounterStore } from './rate-limit.ts';
import { postgresStore } from './shared-limits.ts';

if (!process.env.TEST_DATABASE_URL) {
  console.warn('login throttle test on PostgreSQL SKIPPED: set TEST_DATABASE_URL=postgres://... to run it');
}

describe.each(TEST_DATABASES)('LoginThrottle on %s', (database) => {
  let opened: OpenedDatabase;
  let store: CounterStore;
  let dataDir: string;
  let pool: pg.Pool | undefined;
  beforeAll(async () => {
    dataDir = mkdtempSync(join(tmpdir(), 'mango-throttle-'));
    const databaseUrl = database === 'postgres' ? process.env.TEST_DATABASE_URL : undefined;
    opened = openDatabase({ databaseUrl, dataDir });
    await migrateToLatest(opened);
    if (databaseUrl) pool = new pg.Pool({ connectionString: databaseUrl, max: 3 });
  });
  afterAll(async () => {
    await pool?.end();
    await opened.close();
    rmSync(dataDir, { recursive: true, force: true });
  });

  // A fresh namespace and hash key per test: runs on a shared PostgreSQL database never meet.
  let secret: string;
  beforeEach(() => {
    vi.useFakeTimers({ toFake: ['Date'], now: Date.now() });
    secret = `throttle-test-${Math.random().toString(36).slice(2)}`;
    store = pool ? postgresStore(pool, secret) : memoryStore();
  });
  afterEach(() => vi.useRealTimers());

  const make = () => new LoginThrottle({ limits: { pair: 2, address: 4, account: 3 }, store, db: opened.db, secret });
  const advance = (ms: number) => vi.setSystemTime(Date.now() + ms);

  it('refuses an (account, address) after its failures, for the rest of the window only', async () => {
    const throttle = make();
    expect(await throttle.check('acct', 'a')).toEqual({ ok: true, retryAfter: 0 });
    await throttle.fail('acct', 'a');
    await throttle.fail('acct', 'a');
    expect(await throttle.check('acct', 'a')).toEqual({ ok: false, retryAfter: 60 });
    advance(45_000);
    expect(await throttle.check('acct', 'a')).toEqual({ ok: false, retryAfter: 15 });
    advance(15_000);
    expect(await throttle.check('acct', 'a')).toEqual({ ok: true, retryAfter: 0 });
  });

  it('counts an attempt before the password is checked: of 10 parallel attempts exactly the limit go on', async () => {
    const throttle = make();
    const decisions = await Promise.all(Array.from({ length: 10 }, () => throttle.attempt('acct', 'a')));
    expect(decisions.filter((d) => d.ok)).toHaveLength(2);
    expect(decisions.filter((d) => !d.ok).every((d) => !d.ok && d.retryAfter === 60)).toBe(true);
  });

  it('takes a successful attempt back: an owner signing in often from one address is never refused', async () => {
    const throttle = make();
    for (let i = 0; i < 8; i++) {
      expect(await throttle.attempt('acct', 'home')).toEqual({ ok: true, retryAfter: 0 });
      await throttle.succeed('acct', 'home', true);
    }
    // The address limit (4) and the pair limit (2) still hold for failures.
    for (let i = 0; i < 2; i++) expect((await throttle.attempt('acct', 'home')).ok).toBe(true);
    expect((await throttle.attempt('acct', 'home')).ok).toBe(false);
  });

  it('refuses unknown addresses once the account has its looser limit of failures, never a known one', async () => {
    const throttle = make();
    await throttle.succeed('acct', 'home');
    for (const addr of ['x', 'y', 'z']) await throttle.fail('acct', addr);
    expect((await throttle.check('acct', 'w')).ok).toBe(false);
    expect(await throttle.check('acct', 'home')).toEqual({ ok: true, retryAfter: 0 });
    expect(await throttle.check('other', 'w')).toEqual({ ok: true, retryAfter: 0 });
  });

  it('refuses an address spraying many accounts', async () => {
    const throttle = make();
    for (const acct of ['p', 'q', 'r', 's']) await throttle.fail(acct, 'sprayer');
    expect((await throttle.check('t', 'sprayer')).ok).toBe(false);
    expect(await throttle.check('t', 'elsewhere')).toEqual({ ok: true, retryAfter: 0 });
  });

  it('clears the pair on success and the account, from every address, on clear()', async () => {
    const throttle = make();
    await throttle.fail('acct', 'a');
    await throttle.fail('acct', 'a');
    await throttle.succeed('acct', 'a');
    expect(await throttle.check('acct', 'a')).toEqual({ ok: true, retryAfter: 0 });
    for (const addr of ['x', 'y', 'y']) await throttle.fail('acct', addr);
    await throttle.fail('other', 'q');
    await throttle.fail('other', 'q');
    expect((await throttle.check('acct', 'y')).ok).toBe(false);
    expect((await throttle.check('acct', 'new')).ok).toBe(false);
    await throttle.clear('acct');
    expect(await throttle.check('acct', 'y')).toEqual({ ok: true, retryAfter: 0 });
    expect(await throttle.check('acct', 'new')).toEqual({ ok: true, retryAfter: 0 });
    // Another account's failures stay.
    expect((await throttle.check('other', 'q')).ok).toBe(false);
  });

  it('counts the same failures in every throttle on the same store and database', async () => {
    const a = make();
    const b = make();
    await a.fail('acct', 'a');
    await a.fail('acct', 'a');
    expect(await b.check('acct', 'a')).toEqual({ ok: false, retryAfter: 60 });
    await a.succeed('acct', 'home');
    for (const addr of ['x', 'y', 'z']) await a.fail('acct', addr);
    expect(await b.check('acct', 'home')).toEqual({ ok: true, retryAfter: 0 });
    expect((await b.check('acct', 'w')).ok).toBe(false);
  });

  it(`remembers at most ${KNOWN_ADDRESSES} addresses per account, hashed, forgetting the least recently used`, async () => {
    const throttle = make();
    for (let i = 0; i <= KNOWN_ADDRESSES; i++) {
      await throttle.succeed('acct', `10.0.0.${i}`);
      advance(1);
    }
    // 10.0.0.1 signs in again: now 10.0.0.2 is the least recently used.
    await throttle.succeed('acct', '10.0.0.1');
    advance(1);
    await throttle.succeed('acct', 'newest');
    for (const addr of ['x', 'y', 'z']) await throttle.fail('acct', addr);
    expect((await throttle.check('acct', '10.0.0.0')).ok).toBe(false);
    expect((await throttle.check('acct', '10.0.0.2')).ok).toBe(false);
    for (const addr of ['10.0.0.1', '10.0.0.3', `10.0.0.${KNOWN_ADDRESSES}`, 'newest']) {
      expect(await throttle.check('acct', addr)).toEqual({ ok: true, retryAfter: 0 });
    }
    const hmac = (s: string) => createHmac('sha256', secret).update(s).digest('base64url');
    const rows = await opened.db
      .selectFrom('login_known_addresses')
      .selectAll()
      .where('account', '=', hmac('acct'))
      .execute();
    expect(rows).toHaveLength(KNOWN_ADDRESSES);
    expect(rows.map((r) => r.address)).toEqual(expect.arrayContaining([hmac('10.0.0.1'), hmac('newest')]));
    expect(rows.map((r) => r.address)).not.toContain(hmac('10.0.0.2'));
  });
});
