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
import { allOf, current, retryAfter, type CounterStore, type RateDecision } from './rate-limit.ts';

export interface LoginThrottleLimits {
  /** failures per (account, address) */
  pair: number;
  /** failures per address, all accounts */
  address: number;
  /** failures per account from addresses that never signed in to it */
  account: number;
}

export type ThrottleDecision = RateDecision;

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
    const counts = await Promise.all([
      this.pairs.get(pairKey(acct, addr)),
      this.addresses.get(addr),
      this.accounts.get(acct),
    ]);
    return this.decide(acct, addr, counts.map(current), (n, limit) => n >= limit);
  }

  /**
   * Counts a sign-in attempt before its password is checked, and says whether it may go on. Counting
   * first closes the race of `check()` then `fail()`: requests sent in parallel would all pass the
   * check while the first ones are still hashing their passwords. The counts are atomic increments in
   * the store, so each parallel attempt sees its own number. A refused attempt is counted too. A
   * successful one takes its count back (`succeed`), so only failures stay counted.
   */
  async attempt(account: string, address: string): Promise<ThrottleDecision> {
    const acct = this.hash(account);
    const addr = this.hash(address);
    return this.decide(acct, addr, await this.count(acct, addr), (n, limit) => n > limit);
  }

  /**
   * The decision on the counts per pair, per address and per account: refused when one of them is
   * `over` its limit (the account's only for an address that never signed in to it).
   */
  private async decide(
    acct: string,
    addr: string,
    [perPair, perAddress, perAccount]: (RateLimiterRes | null)[],
    over: (count: number, limit: number) => boolean,
  ): Promise<ThrottleDecision> {
    const past = (res: RateLimiterRes | null, limit: number) => (res && over(res.consumedPoints, limit) ? res : null);
    const refused = [past(perPair, this.limits.pair), past(perAddress, this.limits.address)];
    const accountOver = past(perAccount, this.limits.account);
    if (accountOver && !(await this.isKnown(acct, addr))) refused.push(accountOver);
    return allOf(refused.flatMap((r) => (r ? [{ ok: false, retryAfter: retryAfter(r) }] : [])));
  }

  /** Counts a failed sign-in (or an attempt); the counts after it: per pair, per address, per account. */
  async fail(account: string, address: string): Promise<RateLimiterRes[]> {
    return this.count(this.hash(account), this.hash(address));
  }

  /** One more on the counts of a (hashed) pair, address and account; the counts after it. */
  private count(acct: string, addr: string): Promise<RateLimiterRes[]> {
    return Promise.all([
      this.pairs.penalty(pairKey(acct, addr)),
      this.addresses.penalty(addr),
      this.accounts.penalty(acct),
    ]);
  }

  /**
   * A successful sign-in: the address becomes known to the account and its failures there are cleared.
   * With `counted` (the attempt was counted by `attempt()`), the address's and the account's counts
   * are taken back by one.
   */
  async succeed(account: string, address: string, counted = false): Promise<void> {
    const acct = this.hash(account);
    const addr = this.hash(address);
    await Promise.all([
      this.pairs.delete(pairKey(acct, addr)),
      this.remember(acct, addr),
      counted ? this.addresses.reward(addr) : undefined,
      counted ? this.accounts.reward(acct) : undefined,
    ]);
  }

  /** After a password reset: the account's failures go, from every address (its known addresses stay). */
  async clear(account: string): Promise<void> {
    const acct = this.hash(account);
    await Promise.all([this.accounts.delete(acct), this.store.deleteStartingWith('login-pair', pairKey(acct, ''))]);
  }

  /** Whether `address` has signed in to `account` (it is one of the account's known addresses). */
  knows(account: string, address: string): Promise<boolean> {
    return this.isKnown(this.hash(account), this.hash(address));
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
