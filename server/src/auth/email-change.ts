/**
 * Changing the e-mail of an account (the address password recovery goes to): the profile asks for the
 * current password, a random 6-digit code goes to the new address (stored as an HMAC with the server
 * key, valid 15 minutes and 5 attempts), and the address changes only when the code comes back.
 * The old address is told. An address that belongs to another account gets the same answer but no
 * code, so the answer says nothing about which addresses have accounts.
 */
import type { Needs } from '../context.ts';
import { isUniqueViolation, now } from '../db/index.ts';
import { sendMail } from './mail.ts';
import { codeHash, codeMatches, newCode } from './codes.ts';

export const EMAIL_CODE_MINUTES = 15;
export const EMAIL_CODE_ATTEMPTS = 5;

function mailLater(
  ctx: Needs<'config' | 'logger'>,
  what: string,
  message: Parameters<typeof sendMail>[1],
): Promise<void> {
  const sent = sendMail(ctx, message).then(
    (where) => ctx.logger.info(`${what} sent (${where})`),
    (err: unknown) => ctx.logger.error(`${what} failed`, err),
  );
  // The outbox file is quick to write; SMTP is not awaited (its timing would tell whether the address is free).
  return ctx.config.smtpUrl ? Promise.resolve() : sent;
}

/** Records a requested change to `newEmail` (lower-cased) and mails the code; the old address is told. */
export async function startEmailChange(
  ctx: Needs<'config' | 'db' | 'jwtKey' | 'logger'>,
  user: { id: number; username: string; email: string },
  newEmail: string,
): Promise<void> {
  const t = now();
  // A new request replaces any earlier one.
  await ctx.db
    .updateTable('email_changes')
    .set({ used_at: t })
    .where('user_id', '=', user.id)
    .where('used_at', 'is', null)
    .execute();
  const code = newCode();
  await ctx.db
    .insertInto('email_changes')
    .values({
      user_id: user.id,
      new_email: newEmail,
      code_hash: codeHash(ctx, 'email-change', [user.id, newEmail], code),
      expires_at: new Date(Date.now() + EMAIL_CODE_MINUTES * 60_000).toISOString(),
      created_at: t,
    })
    .execute();
  const taken = await ctx.db.selectFrom('users').select('id').where('email', '=', newEmail).executeTakeFirst();
  const mails: Promise<void>[] = [
    mailLater(ctx, `e-mail change notice for user ${user.id}`, {
      to: user.email,
      subject: 'Your Mango Bruise Tracker e-mail address is being changed',
      text: [
        `Hello ${user.username},`,
        '',
        `Someone signed in to your Mango Bruise Tracker account asked to change its e-mail address to ${newEmail}.`,
        'The change takes effect only when the code sent to that address is entered.',
        '',
        'If this was not you, change your password now.',
      ].join('\n'),
    }),
  ];
  if (!taken) {
    mails.push(
      mailLater(ctx, `e-mail change code for user ${user.id}`, {
        to: newEmail,
        subject: 'Confirm your new Mango Bruise Tracker e-mail address',
        text: [
          `Hello ${user.username},`,
          '',
          'Enter this code on your profile page to make this the e-mail address of your account.',
          '',
          `Verification code: ${code}`,
          '',
          `The code is valid for ${EMAIL_CODE_MINUTES} minutes. If you did not ask for it, ignore this message.`,
        ].join('\n'),
      }),
    );
  }
  await Promise.all(mails);
}

/**
 * Checks the code of the user's pending change; a correct one makes the new address the account's and
 * tells the old one. Returns the new address, or null (wrong, expired, used up, or the address was taken).
 */
export async function confirmEmailChange(
  ctx: Needs<'config' | 'db' | 'jwtKey' | 'logger'>,
  userId: number,
  code: string,
): Promise<string | null> {
  const row = await ctx.db
    .selectFrom('email_changes')
    .innerJoin('users', 'users.id', 'email_changes.user_id')
    .select([
      'email_changes.id',
      'email_changes.new_email',
      'email_changes.code_hash',
      'email_changes.expires_at',
      'email_changes.attempts',
      'users.email',
      'users.username',
    ])
    .where('email_changes.user_id', '=', userId)
    .where('email_changes.used_at', 'is', null)
    .orderBy('email_changes.id', 'desc')
    .limit(1)
    .executeTakeFirst();
  if (!row || row.expires_at <= now() || row.attempts >= EMAIL_CODE_ATTEMPTS) return null;
  const counted = await ctx.db
    .updateTable('email_changes')
    .set((eb) => ({ attempts: eb('attempts', '+', 1) }))
    .where('id', '=', row.id)
    .where('attempts', '<', EMAIL_CODE_ATTEMPTS)
    .where('used_at', 'is', null)
    .executeTakeFirst();
  if (Number(counted.numUpdatedRows) !== 1) return null;
  if (!codeMatches(ctx, row.code_hash, 'email-change', [userId, row.new_email], code)) return null;
  const used = await ctx.db
    .updateTable('email_changes')
    .set({ used_at: now() })
    .where('id', '=', row.id)
    .where('used_at', 'is', null)
    .executeTakeFirst();
  if (Number(used.numUpdatedRows) !== 1) return null;
  try {
    await ctx.db.updateTable('users').set({ email: row.new_email }).where('id', '=', userId).execute();
  } catch (err) {
    if (isUniqueViolation(err)) return null;
    throw err;
  }
  await mailLater(ctx, `e-mail changed notice for user ${userId}`, {
    to: row.email,
    subject: 'Your Mango Bruise Tracker e-mail address was changed',
    text: [
      `Hello ${row.username},`,
      '',
      `The e-mail address of your Mango Bruise Tracker account is now ${row.new_email}.`,
      'Password recovery goes to the new address from now on.',
      '',
      'If this was not you, contact support at once.',
    ].join('\n'),
  });
  return row.new_email;
}
