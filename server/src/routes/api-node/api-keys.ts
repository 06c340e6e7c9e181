/** Partner API keys of the signed-in user: /api-node/api-keys (list, create, revoke). */
import { Hono } from 'hono';
import { z } from 'zod';
import type { Needs } from '../../context.ts';
import { now } from '../../db/index.ts';
import { requireUser, type CallerEnv } from '../../auth/caller.ts';
import { apiKeyView, forgetKeyOrigins, generateApiKey } from '../../auth/api-keys.ts';
import { CreateApiKeyRequest } from '../../auth/schemas.ts';
import { readJson } from './validate.ts';
import { describer } from '../../openapi/describe.ts';
import { err, json, jsonBody, JSON_BODY_ERRORS, schemas, SIGNED_IN, USER_ONLY } from '../../openapi/components.ts';

/** A user may hold this many active keys. */
export const MAX_ACTIVE_KEYS = 20;

export function apiKeyRoutes(ctx: Needs<'db' | 'dialect' | 'jwtKey'>): Hono<CallerEnv> {
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

  const route = describer({ tags: ['API keys'], security: USER_ONLY });

  const list = route({
    summary: "The signed-in user's partner API keys (never the keys themselves)",
    responses: { 200: json(z.array(schemas.ApiKey), 'Keys, newest first'), ...SIGNED_IN },
  });
  app.get('/api-keys', list, async (c) => {
    const rows = await ctx.db
      .selectFrom('api_keys')
      .select(columns)
      .where('user_id', '=', c.get('caller').userId)
      .orderBy('id', 'desc')
      .execute();
    return c.json(rows.map(apiKeyView));
  });

  const create = route({
    summary: 'Create a partner API key; the key is shown only in this answer',
    request: { body: jsonBody(schemas.CreateApiKeyRequest) },
    responses: {
      201: json(schemas.CreatedApiKey, 'Created'),
      ...JSON_BODY_ERRORS,
      400: err(`Malformed body, or already ${MAX_ACTIVE_KEYS} active keys`),
      ...SIGNED_IN,
    },
  });
  app.post('/api-keys', create, async (c) => {
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

  const revoke = route({
    summary: 'Revoke one of your keys',
    request: { params: z.object({ id: z.string().regex(/^\d+$/) }) },
    responses: { 200: json(schemas.Message, 'Revoked'), ...SIGNED_IN, 404: err('No such key of yours') },
  });
  app.delete('/api-keys/:id', revoke, async (c) => {
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
