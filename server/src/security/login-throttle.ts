/**
 * Sign-in throttling that stops guessing without locking the owner out (issue 16 item 5). Only failed
 * sign-ins count. Three limits, each per window:
 * - per (account, address), strict: one address guessing one account;
 * - per address, across accounts: one address spraying many accounts;
 * - per account, looser, across addresses: many addresses guessing one account. Addresses that have
 *   signed in to that account before are exempt, so a distributed attack does not lock the owner out.
 * A successful sign-in clears its (account, address) failures and remembers the address; a password
 * reset clears the account's failures.
 *
 * The failures are counted by rate-limiter-flexible in the same store as the other limits: in memory
 * on SQLite (one process), in the shared table `rate_limits` on PostgreSQL, so every instance counts
 * the same failures. The known addresses are in the database (table `login_known_addresses`, migration
 * 0011): shared by the instances, kept across restarts, at most KNOWN_ADDRESSES per account (the
 * least recently used goes). Accounts and addresses are stored only as keyed hashes (HMAC-SHA256 with
 * a key derived from JWT_SECRET, which the instances of one deployment share).
 */
import { createHmac } from 'node:crypto';
import type { RateLimiterAbstract, RateLimiterRes } from 'rate-limiter-flexible';
import { now, type DB } from '../db/index.ts';
import { current, retryAfter, type CounterStore } from './rate-limit.ts';

export interface LoginThrottleLimits {
  /** failures per (account, address) */
  pair: number;
  /** failures per address, all accounts */
  address: number;
  /** failures per account from addresses that never signed in to it */
  account: number;
}

export type ThrottleDecision = { ok: true } | { ok: false; retryAfter: number };

/** Addresses remembered per account (the least recently used is forgotten first). */
export const KNOWN_ADDRESSES = 32;

export interface LoginThrottleOptions {
  limits: LoginThrottleLimits;
  /** where the failures are counted (shared-limits.ts) */
  store: CounterStore;
  /** where the known addresses are kept */
  db: DB;
  /** keys the hashes of accounts and addresses */
  secret: string | Uint8Array;
  windowSeconds?: number;
}

export class LoginThrottle {
  private readonly limits: LoginThrottleLimits;
  private readonly store: CounterStore;
  private readonly db: DB;
  private readonly secret: string | Uint8Array;
  private readonly pairs: RateLimiterAbstract;
  private readonly addresses: RateLimiterAbstract;
  private readonly accounts: RateLimiterAbstract;

  constructor(options: LoginThrottleOptions) {
    this.limits = options.limits;
    this.store = options.store;
    this.db = options.db;
    this.secret = options.secret;
    const seconds = options.windowSeconds ?? 60;
    this.pairs = this.store.counter('login-pair', seconds);
    this.addresses = this.store.counter('login-address', seconds);
    this.accounts = this.store.counter('login-account', seconds);
  }

  /** Whether a sign-in to `account` from `address` may be tried now (nothing is counted). */
  async check(account: string, address: string): Promise<ThrottleDecision> {
    const acct = this.hash(account);
    const addr = this.hash(address);
    const [perAddress, perPair, perAccount] = await Promise.all([
      this.addresses.get(addr),
      this.pairs.get(pairKey(acct, addr)),
      this.accounts.get(acct),
    ]);
    const over = [atLimit(perAddress, this.limits.address), atLimit(perPair, this.limits.pair)];
    const accountOver = atLimit(perAccount, this.limits.account);
    if (accountOver && !(await this.isKnown(acct, addr))) over.push(accountOver);
    const refused = over.filter((r): r is RateLimiterRes => r !== null);
    if (refused.length === 0) return { ok: true };
    return { ok: false, retryAfter: Math.max(...refused.map(retryAfter)) };
  }

  /** Counts a failed sign-in. */
  async fail(account: string, address: string): Promise<void> {
    const acct = this.hash(account);
    const addr = this.hash(address);
    await Promise.all([
      this.pairs.penalty(pairKey(acct, addr)),
      this.addresses.penalty(addr),
      this.accounts.penalty(acct),
    ]);
  }

  /** A successful sign-in: the address becomes known to the account and its failures there are cleared. */
  async succeed(account: string, address: string): Promise<void> {
    const acct = this.hash(account);
    const addr = this.hash(address);
    await Promise.all([this.pairs.delete(pairKey(acct, addr)), this.remember(acct, addr)]);
  }

  /** After a password reset: the account's failures go, from every address (its known addresses stay). */
  async clear(account: string): Promise<void> {
    const acct = this.hash(account);
    await Promise.all([this.accounts.delete(acct), this.store.deleteStartingWith('login-pair', pairKey(acct, ''))]);
  }

  private hash(s: string): string {
    return createHmac('sha256', this.secret).update(s).digest('base64url');
  }

  private async isKnown(account: string, address: string): Promise<boolean> {
    const row = await this.db
      .selectFrom('login_known_addresses')
      .select('address')
      .where('account', '=', account)
      .where('address', '=', address)
      .executeTakeFirst();
    return row !== undefined;
  }

  private async remember(account: string, address: string): Promise<void> {
    const lastSeen = now();
    await this.db
      .insertInto('login_known_addresses')
      .values({ account, address, last_seen: lastSeen })
      .onConflict((oc) => oc.columns(['account', 'address']).doUpdateSet({ last_seen: lastSeen }))
      .execute();
    await this.db
      .deleteFrom('login_known_addresses')
      .where('account', '=', account)
      .where('address', 'not in', (eb) =>
        eb
          .selectFrom('login_known_addresses')
          .select('address')
          .where('account', '=', account)
          .orderBy('last_seen', 'desc')
          .limit(KNOWN_ADDRESSES),
      )
      .execute();
  }
}

/** The key of an (account, address) pair; the pairs of one account share the prefix pairKey(account, ''). */
const pairKey = (account: string, address: string) => `${account}.${address}`;

/** A current count that has reached `limit`, or null. */
function atLimit(res: RateLimiterRes | null, limit: number): RateLimiterRes | null {
  const c = current(res);
  return c && c.consumedPoints >= limit ? c : null;
}
