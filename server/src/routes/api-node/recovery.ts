/**
 * Password recovery and change: /api-node/forgot-password, verify-code, change-password.
 * Nothing secret reaches the browser before the user proves they read the e-mail.
 */
import { Hono, type Context } from 'hono';
import type { Needs } from '../../context.ts';
import { afterAnswer } from '../../background.ts';
import { errorResponse, type CallerEnv } from '../../auth/caller.ts';
import {
  consumeResetToken,
  ownersSide,
  RESET_TOKEN_PREFIX,
  startRecovery,
  verifyRecoveryCode,
  type Requester,
} from '../../auth/recovery.ts';
import { ChangePasswordRequest, ForgotPasswordRequest, VerifyCodeRequest } from '../../auth/schemas.ts';
import { authenticateAccessToken } from '../../auth/caller.ts';
import { revokeApiKeys } from '../../auth/api-keys.ts';
import { endOtherSessions } from '../../auth/tokens.ts';
import {
  addressKey,
  clearLoginFailures,
  clientAddress,
  hashPassword,
  rateLimit,
  verifyPassword,
} from '../../security/index.ts';
import { readJson } from './validate.ts';
import { describer } from '../../openapi/describe.ts';
import { err, json, jsonBody, JSON_BODY_ERRORS, LIMITED, schemas } from '../../openapi/components.ts';

export const RECOVERY_SENT = 'If an account exists for this address, a verification code has been sent.';
export const INCORRECT_CODE = 'Incorrect verification code. Please try again.';
export const PASSWORD_UPDATED = 'Password updated successfully';

export function recoveryRoutes(ctx: Needs<'config' | 'db' | 'dialect' | 'jwtKey' | 'logger'>): Hono<CallerEnv> {
  const app = new Hono<CallerEnv>();
  const limit = () => ctx.config.loginLimitPerMinute;

  /** The client address, and the user of a valid access token sent along (a signed-in session). */
  const requester = async (c: Context): Promise<Requester> => {
    const address = clientAddress(c, ctx.config.trustProxy);
    const m = /^Bearer\s+(\S+)\s*$/i.exec(c.req.header('authorization') ?? '');
    const caller = m && !m[1].startsWith(RESET_TOKEN_PREFIX) ? await authenticateAccessToken(ctx, m[1]) : null;
    return { address, signedInAs: caller?.userId };
  };

  const route = describer({ tags: ['Accounts'] });

  const forgotPassword = route({
    summary: 'Send a 6-digit verification code (valid 15 minutes, 5 attempts) to the address',
    request: { body: jsonBody(schemas.ForgotPasswordRequest) },
    responses: {
      200: json(schemas.Message, 'Same answer whether or not an account has this address'),
      ...JSON_BODY_ERRORS,
      ...LIMITED,
    },
  });
  app.post('/forgot-password', forgotPassword, async (c) => {
    const parsed = await readJson(c, ForgotPasswordRequest);
    if (!parsed.ok) return parsed.response;
    const email = parsed.data.email.toLowerCase();
    const who = await requester(c);
    // Counted per address and per (address, account), never per account alone: a stranger cannot use
    // up the owner's recovery. A signed-in session is counted per user instead of per address.
    const source = who.signedInAs === undefined ? addressKey(c, ctx, 'recovery') : `recovery:user:${who.signedInAs}`;
    const limited = await rateLimit(c, ctx, [
      { key: source, limit: limit() },
      { key: `recovery:pair:${who.address}:${email}`, limit: limit() },
    ]);
    if (limited) return limited;
    const daily = await rateLimit(
      c,
      ctx,
      [{ key: `${source}:day`, limit: ctx.config.recoveryPerAddressPerDay }],
      'day',
    );
    if (daily) return daily;
    // Looked up and mailed after the answer: its timing says nothing about the account.
    afterAnswer(ctx, 'password recovery', () => startRecovery(ctx, email, who), c);
    return c.json({ message: RECOVERY_SENT }, 200);
  });

  const verifyCode = route({
    summary: 'Exchange the verification code for a single-use reset token (15 minutes)',
    request: { body: jsonBody(schemas.VerifyCodeRequest) },
    responses: {
      200: json(schemas.ResetTokenResponse, 'Reset token for POST /api-node/change-password'),
      ...JSON_BODY_ERRORS,
      400: err(
        "Malformed body, or 'Incorrect verification code. Please try again.' (also for an expired or used-up code)",
      ),
      ...LIMITED,
    },
  });
  app.post('/verify-code', verifyCode, async (c) => {
    const parsed = await readJson(c, VerifyCodeRequest);
    if (!parsed.ok) return parsed.response;
    const who = await requester(c);
    // Per address and per (address, account); per account too, but only for checks from outside the
    // owner's side (so strangers cannot fill it for the owner). The wrong codes per day are bounded in
    // verifyRecoveryCode.
    const email = parsed.data.email.toLowerCase();
    const limited = await rateLimit(c, ctx, [
      { key: addressKey(c, ctx, 'verify-code'), limit: limit() },
      { key: `verify-code:pair:${who.address}:${email}`, limit: limit() },
      ...((await ownersSide(ctx, email, who)) ? [] : [{ key: `verify-code:account:${email}`, limit: limit() }]),
    ]);
    if (limited) return limited;
    const resetToken = await verifyRecoveryCode(ctx, parsed.data.email, parsed.data.code, who);
    if (!resetToken) return c.json({ error: INCORRECT_CODE }, 400);
    return c.json({ resetToken }, 200);
  });

  const changePassword = route({
    summary:
      'Set a new password: Bearer <resetToken> with {newPassword}, or Bearer <accessToken> with ' +
      "{currentPassword, newPassword}. Revokes the user's other sessions.",
    security: [{ bearerAuth: [] }],
    request: { body: jsonBody(schemas.ChangePasswordRequest) },
    responses: {
      200: json(schemas.Message, "'Password updated successfully'"),
      ...JSON_BODY_ERRORS,
      400: err("Malformed body, or 'Current password is incorrect'"),
      401: err('Missing, invalid, expired or already used token'),
      ...LIMITED,
    },
  });
  app.post('/change-password', changePassword, async (c) => {
    const m = /^Bearer\s+(\S+)\s*$/i.exec(c.req.header('authorization') ?? '');
    if (!m) return errorResponse(c, 401, 'Authentication required');
    const token = m[1];
    const parsed = await readJson(c, ChangePasswordRequest);
    if (!parsed.ok) return parsed.response;
    const { currentPassword, newPassword } = parsed.data;

    if (token.startsWith(RESET_TOKEN_PREFIX)) {
      const userId = await consumeResetToken(ctx, token);
      if (userId === null) return errorResponse(c, 401, 'This password reset link has expired or was already used');
      await ctx.db
        .updateTable('users')
        .set({ password_hash: await hashPassword(newPassword) })
        .where('id', '=', userId)
        .execute();
      await endOtherSessions(ctx, userId);
      await revokeApiKeys(ctx, userId);
      // The password is changed: a failure to clear the sign-in counts must not report the reset as failed.
      await clearLoginFailures(ctx, userId).catch((e: unknown) => {
        console.error('password reset: could not clear the failed sign-ins', e);
      });
      return c.json({ message: PASSWORD_UPDATED }, 200);
    }

    const caller = await authenticateAccessToken(ctx, token);
    if (!caller) return errorResponse(c, 401, 'Invalid or expired token');
    if (!currentPassword) {
      return c.json(
        { error: 'Current password is required', details: [{ path: 'currentPassword', message: 'Required' }] },
        400,
      );
    }
    const limited = await rateLimit(c, ctx, [{ key: `change-password:user:${caller.userId}`, limit: limit() }]);
    if (limited) return limited;
    const user = await ctx.db
      .selectFrom('users')
      .select(['id', 'password_hash'])
      .where('id', '=', caller.userId)
      .executeTakeFirst();
    if (!user) return errorResponse(c, 401, 'Invalid or expired token');
    if (!(await verifyPassword(currentPassword, user.password_hash))) {
      return c.json({ error: 'Current password is incorrect' }, 400);
    }
    await ctx.db
      .updateTable('users')
      .set({ password_hash: await hashPassword(newPassword) })
      .where('id', '=', user.id)
      .execute();
    // This sign-in stays valid; every other session has to sign in again, and the account's API keys
    // are revoked as on a reset (whoever knew the old password may have made one).
    await endOtherSessions(ctx, user.id, caller.family);
    await revokeApiKeys(ctx, user.id);
    return c.json({ message: PASSWORD_UPDATED }, 200);
  });

  return app;
}
