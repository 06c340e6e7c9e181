/** The signed-in user's own data: /api-node/user/profile, /user/history, /user/action. */
import { Hono } from 'hono';
import { ActionRequest, ProfileUpdate } from '@mango/core';
import type { ServerContext } from '../../context.ts';
import { isUniqueViolation } from '../../db/index.ts';
import { logAction, requireUser, type CallerEnv } from '../../auth/caller.ts';
import { readJson } from './validate.ts';

/** The history answer is capped; the dashboard shows recent work. */
export const HISTORY_LIMIT = 1000;

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
    const parsed = await readJson(c, ProfileUpdate);
    if (!parsed.ok) return parsed.response;
    const { userId } = c.get('caller');
    const update = { ...parsed.data, email: parsed.data.email.toLowerCase() };
    const clash = await ctx.db
      .selectFrom('users')
      .select('id')
      .where('email', '=', update.email)
      .where('id', '!=', userId)
      .executeTakeFirst();
    const emailTaken = () => c.json({ error: 'Email is already registered', details: { field: 'email' } }, 409);
    if (clash) return emailTaken();
    try {
      await ctx.db.updateTable('users').set(update).where('id', '=', userId).execute();
    } catch (err) {
      if (isUniqueViolation(err)) return emailTaken();
      throw err;
    }
    return c.json({ message: 'Profile updated successfully', profile: await profileOf(ctx, userId) });
  });

  app.get('/user/history', async (c) => {
    const rows = await ctx.db
      .selectFrom('actions')
      .innerJoin('users', 'users.id', 'actions.user_id')
      .select(['actions.operation_type', 'users.username', 'users.organization', 'actions.created_at'])
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
      })),
    );
  });

  app.post('/user/action', async (c) => {
    const parsed = await readJson(c, ActionRequest);
    if (!parsed.ok) return parsed.response;
    await logAction(ctx, c.get('caller'), parsed.data.operationType);
    return c.json({ message: 'Action logged successfully' }, 201);
  });

  return app;
}
