/**
 * Password recovery on the server: a random 6-digit code (crypto.randomInt) stored as an HMAC with
 * the server key, valid 15 minutes and 5 attempts; a correct code buys a single-use reset token
 * (`rst_` + 32 random bytes, stored as sha256, valid 15 minutes). Per account and rolling day: at
 * most CODES_PER_DAY codes are made (further requests mail nothing), and after FAILED_CODES_PER_DAY
 * wrong codes every code is refused until the day has passed. Both are counted in the database, so
 * they hold across restarts and instances.
 */
import { randomBytes } from 'node:crypto';
import type { ServerContext } from '../context.ts';
import { now, type DB } from '../db/index.ts';
import { sha256 } from './api-keys.ts';
import { sendMail } from './mail.ts';
import { codeHash, codeMatches, newCode } from './codes.ts';

export const CODE_MINUTES = 15;
export const CODE_ATTEMPTS = 5;
export const RESET_TOKEN_MINUTES = 15;
export const RESET_TOKEN_PREFIX = 'rst_';
export const CODES_PER_DAY = 5;
export const FAILED_CODES_PER_DAY = 10;

const dayAgo = () => new Date(Date.now() - 86_400_000).toISOString();

/** The account's codes of the last 24 hours: how many, and how many wrong codes were tried. */
async function recoveryToday(db: DB, userId: number) {
  const rows = await db
    .selectFrom('password_resets')
    .select(['attempts', 'verified_at'])
    .where('user_id', '=', userId)
    .where('created_at', '>', dayAgo())
    .execute();
  // A verified code's last attempt was the right one.
  const failed = rows.reduce((n, r) => n + r.attempts - (r.verified_at ? 1 : 0), 0);
  return { codes: rows.length, failed };
}

const minutesFromNow = (m: number) => new Date(Date.now() + m * 60_000).toISOString();

const findUserByEmail = (ctx: ServerContext, email: string) =>
  ctx.db
    .selectFrom('users')
    .select(['id', 'email', 'username'])
    .where('email', '=', email.trim().toLowerCase())
    .executeTakeFirst();

/** Makes and sends a code when the address belongs to an account; does nothing visible otherwise. */
export async function startRecovery(ctx: ServerContext, email: string): Promise<void> {
  const user = await findUserByEmail(ctx, email);
  if (!user) return;
  const code = newCode();
  // Counted and inserted in one transaction that locks the user row (PostgreSQL; SQLite runs one
  // transaction at a time): concurrent requests cannot both take the last code of the day.
  const made = await ctx.db.transaction().execute(async (trx) => {
    const lock = trx.selectFrom('users').select('id').where('id', '=', user.id);
    await (ctx.dialect === 'postgres' ? lock.forUpdate() : lock).execute();
    const today = await recoveryToday(trx, user.id);
    if (today.codes >= CODES_PER_DAY || today.failed >= FAILED_CODES_PER_DAY) return false;
    const t = now();
    // A new code replaces any earlier one.
    await trx
      .updateTable('password_resets')
      .set({ used_at: t })
      .where('user_id', '=', user.id)
      .where('used_at', 'is', null)
      .execute();
    await trx
      .insertInto('password_resets')
      .values({
        user_id: user.id,
        code_hash: codeHash(ctx, 'password-reset', [user.id], code),
        code_expires_at: minutesFromNow(CODE_MINUTES),
        created_at: t,
      })
      .execute();
    return true;
  });
  if (!made) {
    ctx.logger.info(`password recovery for user ${user.id}: daily limit reached, no code sent`);
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

/** Checks a code; a correct one returns a reset token, anything else null (and uses up an attempt). */
export async function verifyRecoveryCode(ctx: ServerContext, email: string, code: string): Promise<string | null> {
  const user = await findUserByEmail(ctx, email);
  if (!user) return null;
  if ((await recoveryToday(ctx.db, user.id)).failed >= FAILED_CODES_PER_DAY) return null;
  const row = await ctx.db
    .selectFrom('password_resets')
    .select(['id', 'code_hash', 'code_expires_at', 'attempts'])
    .where('user_id', '=', user.id)
    .where('used_at', 'is', null)
    .where('verified_at', 'is', null)
    .orderBy('id', 'desc')
    .limit(1)
    .executeTakeFirst();
  if (!row || row.code_expires_at <= now() || row.attempts >= CODE_ATTEMPTS) return null;
  const counted = await ctx.db
    .updateTable('password_resets')
    .set((eb) => ({ attempts: eb('attempts', '+', 1) }))
    .where('id', '=', row.id)
    .where('attempts', '<', CODE_ATTEMPTS)
    .where('verified_at', 'is', null)
    .executeTakeFirst();
  if (Number(counted.numUpdatedRows) !== 1) return null;
  if (!codeMatches(ctx, row.code_hash, 'password-reset', [user.id], code)) return null;
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
export async function consumeResetToken(ctx: ServerContext, token: string): Promise<number | null> {
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
