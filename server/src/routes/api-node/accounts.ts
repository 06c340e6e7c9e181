/** Sign-up, sign-in, token refresh and sign-out: /api-node/register, login, refresh, logout, protected. */
import { Hono } from 'hono';
import { sql } from 'kysely';
import { LoginRequest, RegisterRequest } from '@mango/core';
import type { Needs } from '../../context.ts';
import { isUniqueViolation, now } from '../../db/index.ts';
import { requireUser, type CallerEnv } from '../../auth/caller.ts';
import { RefreshRequest } from '../../auth/schemas.ts';
import { issueTokenPair, revokeRefreshToken, rotateRefreshToken } from '../../auth/tokens.ts';
import {
  addressKey,
  clientAddress,
  hashPassword,
  loginAccount,
  rateLimit,
  tooManyAttempts,
  verifyAgainstDummy,
  verifyPassword,
} from '../../security/index.ts';
import { securityState } from '../../security/state.ts';
import { readJson } from './validate.ts';
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

export const INVALID_LOGIN = 'Invalid username/email or password';

/** Which of username/email is already taken (case-insensitively), if any. */
async function takenField(ctx: Needs<'db'>, username: string, email: string) {
  const rows = await ctx.db
    .selectFrom('users')
    .select(['username', 'email'])
    .where((eb) => eb.or([eb(sql<string>`lower(username)`, '=', username.toLowerCase()), eb('email', '=', email)]))
    .execute();
  if (rows.some((r) => r.username.toLowerCase() === username.toLowerCase())) {
    return { error: 'Username is already taken', details: { field: 'username' } };
  }
  if (rows.some((r) => r.email === email)) return { error: 'Email is already registered', details: { field: 'email' } };
  return null;
}

export function accountRoutes(ctx: Needs<'config' | 'db' | 'dialect' | 'jwtKey'>): Hono<CallerEnv> {
  const app = new Hono<CallerEnv>();
  const limit = () => ctx.config.loginLimitPerMinute;
  const route = describer({ tags: ['Accounts'] });

  const register = route({
    summary: 'Create an account',
    request: { body: jsonBody(schemas.RegisterRequest) },
    responses: {
      201: json(schemas.RegisterResponse, 'Account created'),
      ...JSON_BODY_ERRORS,
      409: err('Username or e-mail already registered; details.field names which'),
      ...LIMITED,
    },
  });
  app.post('/register', register, async (c) => {
    const limited = await rateLimit(c, ctx, [{ key: addressKey(c, ctx, 'register'), limit: limit() }]);
    if (limited) return limited;
    const parsed = await readJson(c, RegisterRequest);
    if (!parsed.ok) return parsed.response;
    const { username, organization, password } = parsed.data;
    const email = parsed.data.email.toLowerCase();
    const taken = await takenField(ctx, username, email);
    if (taken) return c.json(taken, 409);
    const passwordHash = await hashPassword(password);
    try {
      await ctx.db
        .insertInto('users')
        .values({
          username,
          email,
          organization,
          password_hash: passwordHash,
          name: '',
          phone: '',
          country: '',
          created_at: now(),
        })
        .execute();
    } catch (err) {
      if (!isUniqueViolation(err)) throw err;
      return c.json((await takenField(ctx, username, email)) ?? { error: 'Account already exists' }, 409);
    }
    return c.json({ message: 'User registered successfully', user: { username, email, organization } }, 201);
  });

  const login = route({
    summary: 'Sign in with username or e-mail (in `email`; `username` is an alias)',
    request: { body: jsonBody(schemas.LoginRequest) },
    responses: {
      200: json(schemas.TokenPair, 'Access token (15 min) and refresh token (14 days)'),
      ...JSON_BODY_ERRORS,
      401: err("'Invalid username/email or password' (same answer for unknown accounts)"),
      ...LIMITED,
    },
  });
  app.post('/login', login, async (c) => {
    const parsed = await readJson(c, LoginRequest);
    if (!parsed.ok) return parsed.response;
    const identifier = (parsed.data.email ?? parsed.data.username ?? '').trim().toLowerCase();
    const user = await ctx.db
      .selectFrom('users')
      .select(['id', 'username', 'password_hash', 'token_version'])
      .where(identifier.includes('@') ? sql<string>`email` : sql<string>`lower(username)`, '=', identifier)
      .executeTakeFirst();
    // Only failures count, per account (username and e-mail alike) and address, on every instance:
    // see login-throttle.ts.
    const throttle = securityState(ctx).loginThrottle;
    const account = loginAccount(user, identifier);
    const address = clientAddress(c, ctx.config.trustProxy);
    // Counted before the password is checked: parallel guesses cannot all slip past the limit.
    const decision = await throttle.attempt(account, address);
    if (!decision.ok) return tooManyAttempts(c, decision.retryAfter);
    const ok = user
      ? await verifyPassword(parsed.data.password, user.password_hash)
      : await verifyAgainstDummy(parsed.data.password);
    if (!user || !ok) return c.json({ error: INVALID_LOGIN }, 401);
    // The password was right: a failure to clear the counts must not refuse the sign-in.
    await throttle.succeed(account, address, true).catch((e: unknown) => {
      console.error('sign-in throttle: could not clear the counts after a successful sign-in', e);
    });
    return c.json(await issueTokenPair(ctx, user), 200);
  });

  const refresh = route({
    summary: 'Exchange a refresh token for a new pair (the old one is revoked)',
    request: { body: jsonBody(schemas.RefreshRequest) },
    responses: {
      200: json(schemas.TokenPair, 'New pair'),
      ...JSON_BODY_ERRORS,
      401: err('Unknown, expired or revoked refresh token (reuse revokes the whole sign-in)'),
    },
  });
  app.post('/refresh', refresh, async (c) => {
    const parsed = await readJson(c, RefreshRequest);
    if (!parsed.ok) return parsed.response;
    const pair = await rotateRefreshToken(ctx, parsed.data.refreshToken);
    if (!pair) return c.json({ error: 'Invalid or expired refresh token' }, 401);
    return c.json(pair, 200);
  });

  const logout = route({
    summary: 'Revoke a refresh token',
    request: { body: jsonBody(schemas.RefreshRequest) },
    responses: { 200: json(schemas.Message, 'Signed out'), ...JSON_BODY_ERRORS },
  });
  app.post('/logout', logout, async (c) => {
    const parsed = await readJson(c, RefreshRequest);
    if (!parsed.ok) return parsed.response;
    await revokeRefreshToken(ctx, parsed.data.refreshToken);
    return c.json({ message: 'Logged out successfully' }, 200);
  });

  const tokenCheck = route({
    summary: 'Check an access token',
    security: USER_ONLY,
    responses: { 200: json(schemas.Message, '`Hello {username}, your token is valid`'), ...SIGNED_IN },
  });
  app.get('/protected', tokenCheck, requireUser(ctx), (c) =>
    c.json({ message: `Hello ${c.get('caller').username}, your token is valid` }),
  );

  return app;
}
