/** The signed-in user's own data: /api-node/user/profile, /user/history, /user/action. */
import { Hono } from 'hono';
import { z } from 'zod';
import { ActionRequest } from '@mango/core';
import type { Needs } from '../../context.ts';
import { logAction, requireUser, type CallerEnv } from '../../auth/caller.ts';
import { confirmEmailChange, startEmailChange } from '../../auth/email-change.ts';
import { ConfirmEmailRequest, ProfileUpdateRequest } from '../../auth/schemas.ts';
import { rateLimit, verifyPassword } from '../../security/index.ts';
import { INCORRECT_CODE } from './recovery.ts';
import { readJson } from './validate.ts';
import { ownsRun } from '../../runs/store.ts';
import { describer } from '../../openapi/describe.ts';
import {
  err,
  json,
  jsonBody,
  JSON_BODY_ERRORS,
  LIMITED,
  schemas,
  SIGNED_IN,
  USER_ONLY,
} from '../../openapi/components.ts';

/** The history answer is capped; the dashboard shows recent work. */
export const HISTORY_LIMIT = 1000;

export const EMAIL_CODE_SENT =
  'Profile updated. Enter the verification code sent to the new email address to confirm the change.';

const profileOf = (ctx: Needs<'db'>, userId: number) =>
  ctx.db
    .selectFrom('users')
    .select(['name', 'email', 'phone', 'country', 'organization', 'username'])
    .where('id', '=', userId)
    .executeTakeFirst();

export function userRoutes(ctx: Needs<'config' | 'db' | 'dialect' | 'jwtKey' | 'logger'>): Hono<CallerEnv> {
  const app = new Hono<CallerEnv>();
  app.use('/user/*', requireUser(ctx));
  const route = describer({ tags: ['Accounts'], security: USER_ONLY });
  const noUser = { 404: err("'User not found' (the account was deleted)") };

  const profile = route({
    summary: "The signed-in user's profile",
    responses: { 200: json(schemas.Profile, 'Profile'), ...SIGNED_IN, ...noUser },
  });
  app.get('/user/profile', profile, async (c) => {
    const profile = await profileOf(ctx, c.get('caller').userId);
    if (!profile) return c.json({ error: 'User not found' }, 404);
    return c.json(profile);
  });

  const profileUpdate = route({
    summary:
      'Update name, e-mail, phone and country. A new e-mail needs currentPassword and takes effect only ' +
      'after POST /api-node/user/email/confirm with the code mailed to it (the answer then has pendingEmail; ' +
      'an address of another account gets the same answer and no code)',
    request: { body: jsonBody(schemas.ProfileUpdate) },
    responses: {
      200: json(schemas.ProfileUpdateResponse, "'Profile updated successfully' and the new profile"),
      ...JSON_BODY_ERRORS,
      400: err("Malformed body, a new e-mail without currentPassword, or 'Current password is incorrect'"),
      ...SIGNED_IN,
      ...noUser,
      ...LIMITED,
    },
  });
  app.put('/user/profile', profileUpdate, async (c) => {
    const parsed = await readJson(c, ProfileUpdateRequest);
    if (!parsed.ok) return parsed.response;
    const { userId } = c.get('caller');
    const { currentPassword, ...fields } = parsed.data;
    const email = fields.email.toLowerCase();
    const user = await ctx.db
      .selectFrom('users')
      .select(['id', 'username', 'email', 'password_hash'])
      .where('id', '=', userId)
      .executeTakeFirst();
    if (!user) return c.json({ error: 'User not found' }, 404);
    const update = { name: fields.name, phone: fields.phone, country: fields.country };
    if (email === user.email) {
      await ctx.db.updateTable('users').set(update).where('id', '=', userId).execute();
      return c.json({ message: 'Profile updated successfully', profile: await profileOf(ctx, userId) });
    }
    // A new address is where password recovery goes: it needs the password, then the code mailed to it.
    if (!currentPassword) {
      return c.json(
        {
          error: 'Current password is required to change the email',
          details: [{ path: 'currentPassword', message: 'Required' }],
        },
        400,
      );
    }
    const limited = await rateLimit(c, ctx, [
      { key: `profile-email:user:${userId}`, limit: ctx.config.loginLimitPerMinute },
    ]);
    if (limited) return limited;
    if (!(await verifyPassword(currentPassword, user.password_hash))) {
      return c.json({ error: 'Current password is incorrect' }, 400);
    }
    await ctx.db.updateTable('users').set(update).where('id', '=', userId).execute();
    // Taken or free, the answer is the same (only a free address gets a code).
    await startEmailChange(ctx, user, email);
    return c.json({
      message: EMAIL_CODE_SENT,
      profile: await profileOf(ctx, userId),
      pendingEmail: email,
    });
  });

  const emailConfirm = route({
    summary: 'Confirm a new e-mail with the code sent to it; the old address is told',
    request: { body: jsonBody(schemas.ConfirmEmailRequest) },
    responses: {
      200: json(schemas.ProfileUpdateResponse, "'Profile updated successfully' and the profile with the new e-mail"),
      ...JSON_BODY_ERRORS,
      400: err(
        "Malformed body, or 'Incorrect verification code. Please try again.' (also for an expired or used-up code)",
      ),
      ...SIGNED_IN,
      ...LIMITED,
    },
  });
  app.post('/user/email/confirm', emailConfirm, async (c) => {
    const parsed = await readJson(c, ConfirmEmailRequest);
    if (!parsed.ok) return parsed.response;
    const { userId } = c.get('caller');
    const limited = await rateLimit(c, ctx, [
      { key: `email-confirm:user:${userId}`, limit: ctx.config.loginLimitPerMinute },
    ]);
    if (limited) return limited;
    const email = await confirmEmailChange(ctx, userId, parsed.data.code);
    if (!email) return c.json({ error: INCORRECT_CODE }, 400);
    return c.json({ message: 'Profile updated successfully', profile: await profileOf(ctx, userId) });
  });

  const history = route({
    summary: `The signed-in user's operations, newest first (at most ${HISTORY_LIMIT})`,
    responses: { 200: json(z.array(schemas.HistoryRecord), 'History records'), ...SIGNED_IN },
  });
  app.get('/user/history', history, async (c) => {
    const rows = await ctx.db
      .selectFrom('actions')
      .innerJoin('users', 'users.id', 'actions.user_id')
      .select([
        'actions.operation_type',
        'users.username',
        'users.organization',
        'actions.created_at',
        'actions.run_id',
      ])
      .where('actions.user_id', '=', c.get('caller').userId)
      .orderBy('actions.created_at', 'desc')
      .orderBy('actions.id', 'desc')
      .limit(HISTORY_LIMIT)
      .execute();
    return c.json(
      rows.map((r) => ({
        operation_type: r.operation_type,
        username: r.username,
        organization: r.organization,
        time_stamp: r.created_at,
        run_id: r.run_id,
      })),
    );
  });

  const action = route({
    summary: 'Record an operation in the history',
    request: { body: jsonBody(schemas.ActionRequest) },
    responses: {
      201: json(schemas.Message, 'Recorded'),
      ...JSON_BODY_ERRORS,
      400: err('Malformed body, or a run_id that is not one of your runs'),
      ...SIGNED_IN,
    },
  });
  app.post('/user/action', action, async (c) => {
    const parsed = await readJson(c, ActionRequest);
    if (!parsed.ok) return parsed.response;
    const { operationType, run_id: runId } = parsed.data;
    const caller = c.get('caller');
    // The run the operation made (the bruise and analyze answers carry its id): the caller's own only.
    if (runId && !(await ownsRun(ctx.db, caller.userId, runId))) {
      return c.json(
        { error: 'Invalid run_id: no such run', details: [{ path: 'run_id', message: 'no such run' }] },
        400,
      );
    }
    await logAction(ctx, caller, operationType, runId ?? null);
    return c.json({ message: 'Action logged successfully' }, 201);
  });

  return app;
}
