/**
 * One-time 6-digit codes mailed to a user (password recovery, e-mail change): drawn with
 * crypto.randomInt, stored only as an HMAC (keyed with the server's JWT key) of the purpose, the
 * account and the code, and compared in constant time.
 */
import { createHmac, randomInt, timingSafeEqual } from 'node:crypto';
import type { Needs } from '../context.ts';

export const newCode = () => String(randomInt(0, 1_000_000)).padStart(6, '0');

/** The stored form of a code: HMAC-SHA256 of `purpose:part:...:code`, as hex. */
export const codeHash = (ctx: Needs<'jwtKey'>, purpose: string, parts: (string | number)[], code: string) =>
  createHmac('sha256', ctx.jwtKey)
    .update([purpose, ...parts, code].join(':'))
    .digest('hex');

/** Whether `code` (spaces trimmed) is the one stored as `storedHex`, compared in constant time. */
export function codeMatches(
  ctx: Needs<'db' | 'jwtKey'>,
  storedHex: string,
  purpose: string,
  parts: (string | number)[],
  code: string,
): boolean {
  const expected = Buffer.from(storedHex, 'hex');
  const actual = Buffer.from(codeHash(ctx, purpose, parts, code.trim()), 'hex');
  return expected.length === actual.length && timingSafeEqual(expected, actual);
}
