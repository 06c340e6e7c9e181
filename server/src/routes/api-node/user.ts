/** The signed-in user's own data: /api-node/user/profile, /user/history, /user/action. */
import { Hono } from 'hono';
import { ActionRequest } from '@mango/core';
import type { ServerContext } from '../../context.ts';
import { logAction, requireUser, type CallerEnv } from '../../auth/caller.ts';
import { confirmEmailChange, startEmailChange } from '../../auth/email-change.ts';
import { ConfirmEmailRequest, ProfileUpdateRequest } from '../../auth/schemas.ts';
import { rateLimit, verifyPassword } from '../../security/index.ts';
import { INCORRECT_CODE } from './recovery.ts';
import { readJson } from './validate.ts';
import { ownsRun } from '../../runs/store.ts';

/** The history answer is capped; the dashboard shows recent work. */
export const HISTORY_LIMIT = 1000;

export const EMAIL_CODE_SENT =
  'Profile updated. Enter the verification code sent to the new email address to confirm the change.';

const profileOf = (ctx: ServerContext, userId: number) =>
  ctx.db
    .selectFrom('users')
    .select(['name', 'email', 'phone', 'country', 'organization', 'username'])
    .where('id', '=', userId)
    .executeTakeFirst();

export function userRoutes(ctx: ServerContext): Hono<CallerEnv> {
  const app = new Hono<CallerEnv>();
  app.use('/user/*', requireUser(ctx));

  app.get('/user/profile', async (c) => {
    const profile = await profileOf(ctx, c.get('caller').userId);
    if (!profile) return c.json({ error: 'User not found' }, 404);
    return c.json(profile);
  });

  app.put('/user/profile', async (c) => {
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

  app.post('/user/email/confirm', async (c) => {
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

  app.get('/user/history', async (c) => {
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

  app.post('/user/action', async (c) => {
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
