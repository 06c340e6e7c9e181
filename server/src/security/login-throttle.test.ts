import { describe, expect, it } from 'vitest';
import { LoginThrottle } from './login-throttle.ts';

describe('LoginThrottle', () => {
  const make = () => {
    let t = 0;
    const throttle = new LoginThrottle({ pair: 2, address: 4, account: 3 }, 60_000, () => t, 5);
    return { throttle, advance: (ms: number) => (t += ms) };
  };

  it('refuses an (account, address) after its failures, for the rest of the window only', () => {
    const { throttle, advance } = make();
    expect(throttle.check('acct', 'a')).toEqual({ ok: true });
    throttle.fail('acct', 'a');
    throttle.fail('acct', 'a');
    expect(throttle.check('acct', 'a')).toEqual({ ok: false, retryAfter: 60 });
    advance(45_000);
    expect(throttle.check('acct', 'a')).toEqual({ ok: false, retryAfter: 15 });
    advance(15_000);
    expect(throttle.check('acct', 'a')).toEqual({ ok: true });
  });

  it('refuses unknown addresses once the account has its looser limit of failures, never a known one', () => {
    const { throttle } = make();
    throttle.succeed('acct', 'home');
    for (const addr of ['x', 'y', 'z']) throttle.fail('acct', addr);
    expect(throttle.check('acct', 'w').ok).toBe(false);
    expect(throttle.check('acct', 'home')).toEqual({ ok: true });
    expect(throttle.check('other', 'w')).toEqual({ ok: true });
  });

  it('refuses an address spraying many accounts', () => {
    const { throttle } = make();
    for (const acct of ['p', 'q', 'r', 's']) throttle.fail(acct, 'sprayer');
    expect(throttle.check('t', 'sprayer').ok).toBe(false);
    expect(throttle.check('t', 'elsewhere')).toEqual({ ok: true });
  });

  it('clears the pair on success and the account on clear()', () => {
    const { throttle } = make();
    throttle.fail('acct', 'a');
    throttle.fail('acct', 'a');
    throttle.succeed('acct', 'a');
    expect(throttle.check('acct', 'a')).toEqual({ ok: true });
    for (const addr of ['x', 'y', 'y']) throttle.fail('acct', addr);
    expect(throttle.check('acct', 'y').ok).toBe(false);
    throttle.clear('acct');
    expect(throttle.check('acct', 'y')).toEqual({ ok: true });
    expect(throttle.check('acct', 'new')).toEqual({ ok: true });
  });

  it('keeps at most maxEntries accounts (the oldest go first)', () => {
    const { throttle } = make();
    throttle.fail('first', 'a');
    throttle.fail('first', 'a');
    for (let i = 0; i < 5; i++) throttle.fail(`acct${i}`, `addr${i}`);
    // 'first' was dropped to make room; the address window of 'a' is still there but under its limit.
    expect(throttle.check('first', 'a')).toEqual({ ok: true });
  });
});
