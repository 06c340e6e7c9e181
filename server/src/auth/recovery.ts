/**
 * Password recovery on the server: a random 6-digit code (crypto.randomInt) stored as an HMAC with
 * the server key, valid 15 minutes; a correct code buys a single-use reset token (`rst_` + 32 random
 * bytes, stored as sha256, valid 15 minutes).
 *
 * Limits a stranger cannot use up (issue 23): each code records who asked for it (a keyed hash of the
 * client address) and whether the owner did (a signed-in session of the account, or an address that
 * signed in to it before: the sign-in throttle's known addresses). Per rolling day:
 * - per (address, account): at most CODES_PER_DAY codes, and after FAILED_CODES_PER_DAY wrong codes
 *   tried on that address's codes, no more codes or guesses for that pair;
 * - per account, from addresses that are not the owner's: at most UNKNOWN_CODES_PER_DAY codes, and
 *   FAILED_CODES_PER_DAY wrong codes tried on codes others asked for;
 * - a signed-in session of the account is not limited by these.
 * A new code replaces only the earlier one of the same address, and a code has two sets of
 * CODE_ATTEMPTS attempts: one for its requester and the owner's addresses, one for everyone else; so
 * another address's requests and wrong guesses never spend the owner's code or the owner's day.
 * Everything is counted in the database, so it holds across restarts and instances.
 */
import { createHmac, randomBytes } from 'node:crypto';
import type { Needs } from '../context.ts';
import { now, type DB } from '../db/index.ts';
import { loginAccount } from '../security/index.ts';
import { securityState } from '../security/state.ts';
import { sha256 } from './api-keys.ts';
import { sendMail } from './mail.ts';
import { codeHash, codeMatches, newCode } from './codes.ts';

export const CODE_MINUTES = 15;
export const CODE_ATTEMPTS = 5;
export const RESET_TOKEN_MINUTES = 15;
export const RESET_TOKEN_PREFIX = 'rst_';
/** codes per (address, account) and day */
export const CODES_PER_DAY = 5;
/** codes per account and day asked for from addresses that are not the owner's */
export const UNKNOWN_CODES_PER_DAY = 10;
/** wrong codes per (address, account) and day; and per account on codes others asked for */
export const FAILED_CODES_PER_DAY = 10;

/** Who asks: the client address, and whether a signed-in session of some user does. */
export interface Requester {
  address: string;
  /** the user id of a valid access token sent with the request */
  signedInAs?: number;
}

const dayAgo = () => new Date(Date.now() - 86_400_000).toISOString();

const addressHash = (ctx: Needs<'jwtKey'>, address: string) =>
  createHmac('sha256', ctx.jwtKey).update(`recovery-address:${address}`).digest('base64url');

/** Whether `address` signed in to the user's account before (the sign-in throttle's known addresses). */
const knownAddress = (ctx: Needs<'config' | 'db' | 'dialect' | 'jwtKey'>, userId: number, address: string) =>
  securityState(ctx).loginThrottle.knows(loginAccount({ id: userId }, ''), address);

/** The account's codes of the last 24 hours, with what the limits need. */
async function recoveryToday(db: DB, userId: number) {
  return db
    .selectFrom('password_resets')
    .select(['requested_from', 'trusted', 'attempts', 'other_attempts', 'verified_at'])
    .where('user_id', '=', userId)
    .where('created_at', '>', dayAgo())
    .execute();
}

type TodayRow = Awaited<ReturnType<typeof recoveryToday>>[number];

/** Wrong codes tried by the requester's side on the codes `from` asked for (a verified code's last attempt was right). */
const pairFailures = (rows: TodayRow[], from: string) =>
  rows.filter((r) => r.requested_from === from).reduce((n, r) => n + r.attempts - (r.verified_at ? 1 : 0), 0);

/** Wrong codes tried from addresses other than the requester's and the owner's. */
const otherFailures = (rows: TodayRow[]) => rows.reduce((n, r) => n + r.other_attempts, 0);

const minutesFromNow = (m: number) => new Date(Date.now() + m * 60_000).toISOString();

const findUserByEmail = (ctx: Needs<'db'>, email: string) =>
  ctx.db
    .selectFrom('users')
    .select(['id', 'email', 'username'])
    .where('email', '=', email.trim().toLowerCase())
    .executeTakeFirst();

/** Makes and sends a code when the address belongs to an account; does nothing visible otherwise. */
export async function startRecovery(
  ctx: Needs<'config' | 'db' | 'dialect' | 'jwtKey' | 'logger'>,
  email: string,
  requester: Requester,
): Promise<void> {
  const user = await findUserByEmail(ctx, email);
  if (!user) return;
  const signedIn = requester.signedInAs === user.id;
  const trusted = signedIn || (await knownAddress(ctx, user.id, requester.address));
  const from = addressHash(ctx, requester.address);
  const code = newCode();
  // Counted and inserted in one transaction that locks the user row (PostgreSQL; SQLite runs one
  // transaction at a time): concurrent requests cannot both take the last code of the day.
  const made = await ctx.db.transaction().execute(async (trx) => {
    const lock = trx.selectFrom('users').select('id').where('id', '=', user.id);
    await (ctx.dialect === 'postgres' ? lock.forUpdate() : lock).execute();
    if (!signedIn) {
      const today = await recoveryToday(trx, user.id);
      const fromHere = today.filter((r) => r.requested_from === from).length;
      if (fromHere >= CODES_PER_DAY || pairFailures(today, from) >= FAILED_CODES_PER_DAY) return false;
      if (!trusted && today.filter((r) => !r.trusted).length >= UNKNOWN_CODES_PER_DAY) return false;
    }
    const t = now();
    // A new code replaces the earlier one of the same address (another address's code stays).
    await trx
      .updateTable('password_resets')
      .set({ used_at: t })
      .where('user_id', '=', user.id)
      .where('requested_from', '=', from)
      .where('used_at', 'is', null)
      .execute();
    await trx
      .insertInto('password_resets')
      .values({
        user_id: user.id,
        code_hash: codeHash(ctx, 'password-reset', [user.id], code),
        code_expires_at: minutesFromNow(CODE_MINUTES),
        created_at: t,
        requested_from: from,
        trusted: trusted ? 1 : 0,
      })
      .execute();
    return true;
  });
  if (!made) {
    ctx.logger.info(`password recovery for user ${user.id}: daily limit reached for this requester, no code sent`);
    return;
  }
  const message = {
    to: user.email,
    subject: 'Your Mango Bruise Tracker verification code',
    text: [
      `Hello ${user.username},`,
      '',
      'Someone (hopefully you) asked to reset the password of your Mango Bruise Tracker account.',
      '',
      `Verification code: ${code}`,
      '',
      `The code is valid for ${CODE_MINUTES} minutes. If you did not ask for it, ignore this message.`,
    ].join('\n'),
  };
  const sent = sendMail(ctx, message).then(
    (where) => ctx.logger.info(`password recovery mail for user ${user.id} sent (${where})`),
    (err: unknown) => ctx.logger.error(`password recovery mail for user ${user.id} failed`, err),
  );
  // Writing the outbox file is quick and lets a local user find the code at once; SMTP can be slow
  // and its timing would tell whether the account exists, so it is not awaited.
  if (!ctx.config.smtpUrl) await sent;
}

/**
 * Whether a code check comes from the owner's side of the account of `email`: a signed-in session of
 * it, an address that signed in to it, or the address that asked for one of its live codes. Such
 * checks are not counted against the account's per-minute limit, which only strangers can fill.
 */
export async function ownersSide(
  ctx: Needs<'config' | 'db' | 'dialect' | 'jwtKey'>,
  email: string,
  requester: Requester,
): Promise<boolean> {
  const user = await findUserByEmail(ctx, email);
  if (!user) return false;
  if (requester.signedInAs === user.id) return true;
  const live = await ctx.db
    .selectFrom('password_resets')
    .select('id')
    .where('user_id', '=', user.id)
    .where('requested_from', '=', addressHash(ctx, requester.address))
    .where('used_at', 'is', null)
    .where('code_expires_at', '>', now())
    .limit(1)
    .executeTakeFirst();
  return live !== undefined || (await knownAddress(ctx, user.id, requester.address));
}

/**
 * Checks a code; a correct one returns a reset token, anything else null (and uses up an attempt).
 * The guess is tried on one code: the latest one asked for from this address (the requester's
 * attempts); else, from an address that signed in to the account, the owner's latest code (the
 * requester's attempts too); else the latest code, on the attempts kept for other addresses.
 */
export async function verifyRecoveryCode(
  ctx: Needs<'config' | 'db' | 'dialect' | 'jwtKey'>,
  email: string,
  code: string,
  requester: Requester,
): Promise<string | null> {
  const user = await findUserByEmail(ctx, email);
  if (!user) return null;
  const from = addressHash(ctx, requester.address);
  const live = await ctx.db
    .selectFrom('password_resets')
    .select(['id', 'code_hash', 'requested_from', 'trusted', 'attempts', 'other_attempts'])
    .where('user_id', '=', user.id)
    .where('used_at', 'is', null)
    .where('verified_at', 'is', null)
    .where('code_expires_at', '>', now())
    .orderBy('id', 'desc')
    .limit(UNKNOWN_CODES_PER_DAY + CODES_PER_DAY)
    .execute();
  if (live.length === 0) return null;
  const today = await recoveryToday(ctx.db, user.id);
  let row = live.find((r) => r.requested_from === from);
  let own = row !== undefined;
  if (!row && (requester.signedInAs === user.id || (await knownAddress(ctx, user.id, requester.address)))) {
    row = live.find((r) => r.trusted && r.attempts < CODE_ATTEMPTS) ?? live.find((r) => r.attempts < CODE_ATTEMPTS);
    own = row !== undefined;
  }
  if (!row) row = live[0];
  if (own) {
    if (row.requested_from === from && pairFailures(today, from) >= FAILED_CODES_PER_DAY) return null;
    if (row.attempts >= CODE_ATTEMPTS) return null;
  } else if (otherFailures(today) >= FAILED_CODES_PER_DAY || row.other_attempts >= CODE_ATTEMPTS) return null;
  const counted = await ctx.db
    .updateTable('password_resets')
    .set((eb) => (own ? { attempts: eb('attempts', '+', 1) } : { other_attempts: eb('other_attempts', '+', 1) }))
    .where('id', '=', row.id)
    .where(own ? 'attempts' : 'other_attempts', '<', CODE_ATTEMPTS)
    .where('verified_at', 'is', null)
    .executeTakeFirst();
  if (Number(counted.numUpdatedRows) !== 1) return null;
  if (!codeMatches(ctx, row.code_hash, 'password-reset', [user.id], code)) return null;
  if (!own) {
    // The right code from elsewhere: counted with the requester's attempts, not as a wrong one.
    await ctx.db
      .updateTable('password_resets')
      .set((eb) => ({ other_attempts: eb('other_attempts', '-', 1), attempts: eb('attempts', '+', 1) }))
      .where('id', '=', row.id)
      .execute();
  }
  const token = RESET_TOKEN_PREFIX + randomBytes(32).toString('base64url');
  const verified = await ctx.db
    .updateTable('password_resets')
    .set({ verified_at: now(), reset_token_hash: sha256(token), reset_expires_at: minutesFromNow(RESET_TOKEN_MINUTES) })
    .where('id', '=', row.id)
    .where('verified_at', 'is', null)
    .executeTakeFirst();
  return Number(verified.numUpdatedRows) === 1 ? token : null;
}

/** Uses up a reset token; returns its user id, or null if it is unknown, expired or already used. */
export async function consumeResetToken(ctx: Needs<'db'>, token: string): Promise<number | null> {
  const row = await ctx.db
    .selectFrom('password_resets')
    .select(['id', 'user_id', 'reset_expires_at'])
    .where('reset_token_hash', '=', sha256(token))
    .where('used_at', 'is', null)
    .executeTakeFirst();
  if (!row || !row.reset_expires_at || row.reset_expires_at <= now()) return null;
  const used = await ctx.db
    .updateTable('password_resets')
    .set({ used_at: now() })
    .where('id', '=', row.id)
    .where('used_at', 'is', null)
    .executeTakeFirst();
  return Number(used.numUpdatedRows) === 1 ? row.user_id : null;
}
