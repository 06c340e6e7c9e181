/**
 * Sign-in throttling that stops guessing without locking the owner out (issue 16 item 5). Only failed
 * sign-ins count. Three limits, each per window:
 * - per (account, address), strict: one address guessing one account;
 * - per address, across accounts: one address spraying many accounts;
 * - per account, looser, across addresses: many addresses guessing one account. Addresses that have
 *   signed in to that account before are exempt, so a distributed attack does not lock the owner out.
 * A successful sign-in clears its (account, address) failures and remembers the address; a password
 * reset clears the account's failures. In memory, like the other limits: a restart forgets both the
 * failures and the known addresses. Keys are stored hashed and every map is bounded.
 */
import { createHash } from 'node:crypto';

export interface LoginThrottleLimits {
  /** failures per (account, address) */
  pair: number;
  /** failures per address, all accounts */
  address: number;
  /** failures per account from addresses that never signed in to it */
  account: number;
}

export type ThrottleDecision = { ok: true } | { ok: false; retryAfter: number };

interface Window {
  count: number;
  resetAt: number;
}

interface AccountState {
  failures?: Window;
  pairs: Map<string, Window>;
  known: Set<string>;
}

/** Addresses remembered per account (the oldest is forgotten first). */
const KNOWN_ADDRESSES = 32;
/** Addresses with failures kept per account. */
const PAIRS_PER_ACCOUNT = 1024;

const hash = (s: string) => createHash('sha256').update(s).digest('base64url');

/** Adds to a bounded Map, dropping the oldest entry when full (a Map iterates in insertion order). */
function boundedSet<K, V>(map: Map<K, V>, key: K, value: V, max: number): void {
  map.delete(key);
  if (map.size >= max) map.delete(map.keys().next().value as K);
  map.set(key, value);
}

export class LoginThrottle {
  private readonly accounts = new Map<string, AccountState>();
  private readonly addresses = new Map<string, Window>();

  constructor(
    private readonly limits: LoginThrottleLimits,
    private readonly windowMs = 60_000,
    private readonly clock: () => number = Date.now,
    private readonly maxEntries = 100_000,
  ) {}

  /** Whether a sign-in to `account` from `address` may be tried now (nothing is counted). */
  check(account: string, address: string): ThrottleDecision {
    const t = this.clock();
    const a = this.accounts.get(hash(account));
    const addr = hash(address);
    const over = [
      this.live(this.addresses.get(addr), t, this.limits.address),
      this.live(a?.pairs.get(addr), t, this.limits.pair),
      a && !a.known.has(addr) ? this.live(a.failures, t, this.limits.account) : undefined,
    ].filter((w): w is Window => w !== undefined);
    if (over.length === 0) return { ok: true };
    return { ok: false, retryAfter: Math.max(...over.map((w) => Math.max(1, Math.ceil((w.resetAt - t) / 1000)))) };
  }

  /** Counts a failed sign-in. */
  fail(account: string, address: string): void {
    const t = this.clock();
    const addr = hash(address);
    const a = this.account(account);
    a.failures = this.count(a.failures, t);
    boundedSet(a.pairs, addr, this.count(a.pairs.get(addr), t), PAIRS_PER_ACCOUNT);
    boundedSet(this.addresses, addr, this.count(this.addresses.get(addr), t), this.maxEntries);
  }

  /** A successful sign-in: the address becomes known to the account and its failures there are cleared. */
  succeed(account: string, address: string): void {
    const addr = hash(address);
    const a = this.account(account);
    a.pairs.delete(addr);
    a.known.delete(addr);
    if (a.known.size >= KNOWN_ADDRESSES) a.known.delete(a.known.values().next().value as string);
    a.known.add(addr);
  }

  /** After a password reset: the account's failures go (its known addresses stay). */
  clear(account: string): void {
    const a = this.accounts.get(hash(account));
    if (!a) return;
    a.failures = undefined;
    a.pairs.clear();
  }

  private account(account: string): AccountState {
    const key = hash(account);
    let a = this.accounts.get(key);
    if (!a) {
      a = { pairs: new Map(), known: new Set() };
      boundedSet(this.accounts, key, a, this.maxEntries);
    }
    return a;
  }

  /** The window when it is current and at its limit. */
  private live(w: Window | undefined, t: number, limit: number): Window | undefined {
    return w && w.resetAt > t && w.count >= limit ? w : undefined;
  }

  private count(w: Window | undefined, t: number): Window {
    if (!w || w.resetAt <= t) return { count: 1, resetAt: t + this.windowMs };
    w.count += 1;
    return w;
  }
}
