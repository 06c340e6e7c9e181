/** Partner API keys of the signed-in user: /api-node/api-keys (list, create, revoke). */
import { Hono } from 'hono';
import type { ServerContext } from '../../context.ts';
import { now } from '../../db/index.ts';
import { requireUser, type CallerEnv } from '../../auth/caller.ts';
import { apiKeyView, forgetKeyOrigins, generateApiKey } from '../../auth/api-keys.ts';
import { CreateApiKeyRequest } from '../../auth/schemas.ts';
import { readJson } from './validate.ts';

/** A user may hold this many active keys. */
export const MAX_ACTIVE_KEYS = 20;

export function apiKeyRoutes(ctx: ServerContext): Hono<CallerEnv> {
  const app = new Hono<CallerEnv>();
  app.use('/api-keys', requireUser(ctx));
  app.use('/api-keys/*', requireUser(ctx));

  const columns = [
    'id',
    'user_id',
    'organization',
    'name',
    'prefix',
    'key_hash',
    'allowed_origins',
    'rate_limit_per_minute',
    'kind',
    'created_at',
    'revoked_at',
    'last_used_at',
  ] as const;

  app.get('/api-keys', async (c) => {
    const rows = await ctx.db
      .selectFrom('api_keys')
      .select(columns)
      .where('user_id', '=', c.get('caller').userId)
      .orderBy('id', 'desc')
      .execute();
    return c.json(rows.map(apiKeyView));
  });

  app.post('/api-keys', async (c) => {
    const parsed = await readJson(c, CreateApiKeyRequest);
    if (!parsed.ok) return parsed.response;
    const caller = c.get('caller');
    const { key, prefix, hash } = generateApiKey();
    // Counted and inserted in one transaction that locks the user row (PostgreSQL; SQLite runs one
    // write transaction at a time): parallel requests, on one instance or several, cannot all pass the count.
    const row = await ctx.db.transaction().execute(async (trx) => {
      const lock = trx.selectFrom('users').select('id').where('id', '=', caller.userId);
      await (ctx.dialect === 'postgres' ? lock.forUpdate() : lock).execute();
      const active = await trx
        .selectFrom('api_keys')
        .select((eb) => eb.fn.countAll<string | number>().as('n'))
        .where('user_id', '=', caller.userId)
        .where('revoked_at', 'is', null)
        .executeTakeFirstOrThrow();
      if (Number(active.n) >= MAX_ACTIVE_KEYS) return null;
      return trx
        .insertInto('api_keys')
        .values({
          user_id: caller.userId,
          organization: caller.organization,
          name: parsed.data.name,
          prefix,
          key_hash: hash,
          allowed_origins: JSON.stringify(parsed.data.allowedOrigins),
          rate_limit_per_minute: parsed.data.rateLimitPerMinute,
          kind: parsed.data.kind,
          created_at: now(),
        })
        .returning(columns)
        .executeTakeFirstOrThrow();
    });
    if (!row) return c.json({ error: `At most ${MAX_ACTIVE_KEYS} active API keys; revoke one first` }, 400);
    forgetKeyOrigins(ctx);
    return c.json({ ...apiKeyView(row), key }, 201);
  });

  app.delete('/api-keys/:id', async (c) => {
    const id = Number(c.req.param('id'));
    if (!Number.isSafeInteger(id) || id <= 0) return c.json({ error: 'API key not found' }, 404);
    const row = await ctx.db
      .selectFrom('api_keys')
      .select(['id', 'revoked_at'])
      .where('id', '=', id)
      .where('user_id', '=', c.get('caller').userId)
      .executeTakeFirst();
    // Someone else's key answers exactly like a missing one.
    if (!row) return c.json({ error: 'API key not found' }, 404);
    if (row.revoked_at === null) {
      await ctx.db.updateTable('api_keys').set({ revoked_at: now() }).where('id', '=', id).execute();
      forgetKeyOrigins(ctx);
    }
    return c.json({ message: 'API key revoked' }, 200);
  });

  return app;
}
