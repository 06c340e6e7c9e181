/**
 * Access tokens: HS256 JWTs (jose) signed with ctx.jwtKey, 15 minutes, claims sub (user id),
 * username, typ 'access', fam (the refresh-token family of the sign-in) and ver (the user's
 * token_version: a password change bumps it, so every access token issued before stops working).
 * Refresh tokens: 32 random bytes, stored as sha256, 14 days, rotated on every use; a revoked token
 * presented again means it was copied, so its whole family is revoked, except within REFRESH_GRACE_MS
 * of its rotation while the family is alive (two tabs refreshing at once: both keep the session). An access token is accepted
 * only while its family has a live refresh token: logout and a revoked family end it at once.
 */
import { randomBytes, randomUUID } from 'node:crypto';
import { jwtVerify, SignJWT } from 'jose';
import type { Needs } from '../context.ts';
import { now } from '../db/index.ts';
import { sha256 } from './api-keys.ts';

export const ACCESS_TOKEN_SECONDS = 15 * 60;
export const REFRESH_TOKEN_DAYS = 14;

export interface AccessClaims {
  userId: number;
  username: string;
  family?: string;
  /** users.token_version when the token was issued */
  version: number;
}

export async function signAccessToken(ctx: Needs<'jwtKey'>, claims: AccessClaims): Promise<string> {
  const extra = { ver: claims.version, ...(claims.family ? { fam: claims.family } : {}) };
  return new SignJWT({ username: claims.username, typ: 'access', ...extra })
    .setProtectedHeader({ alg: 'HS256', typ: 'JWT' })
    .setSubject(String(claims.userId))
    .setIssuedAt()
    .setExpirationTime(`${ACCESS_TOKEN_SECONDS}s`)
    .sign(ctx.jwtKey);
}

/** The claims of a valid access token, or null (bad signature, other algorithm, no exp or expired, wrong typ). */
export async function verifyAccessToken(ctx: Needs<'jwtKey'>, token: string): Promise<AccessClaims | null> {
  try {
    const { payload } = await jwtVerify(token, ctx.jwtKey, { algorithms: ['HS256'], requiredClaims: ['exp'] });
    const userId = Number(payload.sub);
    if (payload.typ !== 'access' || !Number.isInteger(userId) || typeof payload.username !== 'string') return null;
    return {
      userId,
      username: payload.username,
      family: typeof payload.fam === 'string' ? payload.fam : undefined,
      version: typeof payload.ver === 'number' ? payload.ver : 0,
    };
  } catch {
    return null;
  }
}

async function insertRefreshToken(ctx: Needs<'db'>, userId: number, family: string): Promise<string> {
  const token = randomBytes(32).toString('base64url');
  const expires = new Date(Date.now() + REFRESH_TOKEN_DAYS * 86_400_000).toISOString();
  await ctx.db
    .insertInto('refresh_tokens')
    .values({ user_id: userId, token_hash: sha256(token), expires_at: expires, created_at: now(), family })
    .execute();
  return token;
}

/** A fresh pair for a new sign-in (a new refresh-token family). */
export async function issueTokenPair(
  ctx: Needs<'db' | 'jwtKey'>,
  user: { id: number; username: string; token_version: number },
) {
  const family = randomUUID();
  const refreshToken = await insertRefreshToken(ctx, user.id, family);
  return newPair(
    ctx,
    { user_id: user.id, username: user.username, token_version: user.token_version },
    family,
    refreshToken,
  );
}

/** Exchanges a refresh token for a new pair (rotation), or null when it is unknown, expired or revoked. */
export async function rotateRefreshToken(ctx: Needs<'db' | 'jwtKey'>, refreshToken: string) {
  const row = await ctx.db
    .selectFrom('refresh_tokens')
    .innerJoin('users', 'users.id', 'refresh_tokens.user_id')
    .select([
      'refresh_tokens.id',
      'refresh_tokens.user_id',
      'refresh_tokens.family',
      'refresh_tokens.expires_at',
      'refresh_tokens.revoked_at',
      'users.username',
      'users.token_version',
    ])
    .where('refresh_tokens.token_hash', '=', sha256(refreshToken))
    .executeTakeFirst();
  if (!row) return null;
  const family = row.family ?? randomUUID();
  if (row.revoked_at !== null) {
    // Two tabs refreshing the same token: the later one arrives just after the rotation. Within the
    // grace window, while the sign-in still has a live successor, it gets a pair of its own in the same
    // sign-in; later (or after a logout) it is reuse of a copied token, and the sign-in is revoked.
    if (await justRotated(ctx, row))
      return newPair(ctx, row, family, await insertRefreshToken(ctx, row.user_id, family));
    await revokeFamily(ctx, row.user_id, row.family);
    return null;
  }
  if (row.expires_at <= now()) return null;
  // The successor exists before the token is revoked, so the family is never without a live token
  // (access tokens of the sign-in check that).
  const next = await insertRefreshToken(ctx, row.user_id, family);
  // Only one of two concurrent uses of the same token revokes it; the other is a concurrent refresh
  // (kept, with its own successor) when it comes within the grace window, as it does here.
  const res = await ctx.db
    .updateTable('refresh_tokens')
    .set({ revoked_at: now() })
    .where('id', '=', row.id)
    .where('revoked_at', 'is', null)
    .executeTakeFirst();
  if (Number(res.numUpdatedRows) !== 1) {
    const again = await ctx.db
      .selectFrom('refresh_tokens')
      .select(['id', 'user_id', 'family', 'revoked_at'])
      .where('id', '=', row.id)
      .executeTakeFirst();
    // Its own successor, just inserted, does not count as the proof of a rotation.
    if (!again || !(await justRotated(ctx, again, sha256(next)))) {
      await revokeFamily(ctx, row.user_id, row.family);
      return null;
    }
  }
  return newPair(ctx, row, family, next);
}

/** How long a rotated refresh token still counts as a concurrent refresh rather than reuse (ms). */
export const REFRESH_GRACE_MS = 10_000;

/**
 * Whether a revoked refresh token was rotated moments ago: revoked within REFRESH_GRACE_MS and its
 * sign-in still holds a live token issued after it (a logout, a password change or a detected reuse
 * leaves none).
 */
async function justRotated(
  ctx: Needs<'db'>,
  row: { id: number; user_id: number; family: string | null; revoked_at: string | null },
  exceptHash?: string,
): Promise<boolean> {
  if (row.revoked_at === null || row.family === null) return false;
  if (Date.now() - Date.parse(row.revoked_at) > REFRESH_GRACE_MS) return false;
  let q = ctx.db
    .selectFrom('refresh_tokens')
    .select('id')
    .where('user_id', '=', row.user_id)
    .where('family', '=', row.family)
    .where('id', '>', row.id)
    .where('revoked_at', 'is', null)
    .where('expires_at', '>', now());
  if (exceptHash) q = q.where('token_hash', '!=', exceptHash);
  const successor = await q.limit(1).executeTakeFirst();
  return successor !== undefined;
}

/** An access token signed for the user's refresh-token family, with that family's refresh token. */
async function newPair(
  ctx: Needs<'db' | 'jwtKey'>,
  row: { user_id: number; username: string; token_version: number },
  family: string,
  refreshToken: string,
) {
  const accessToken = await signAccessToken(ctx, {
    userId: row.user_id,
    username: row.username,
    family,
    version: row.token_version,
  });
  return { accessToken, refreshToken };
}

async function revokeFamily(ctx: Needs<'db'>, userId: number, family: string | null): Promise<void> {
  let q = ctx.db
    .updateTable('refresh_tokens')
    .set({ revoked_at: now() })
    .where('user_id', '=', userId)
    .where('revoked_at', 'is', null);
  // Tokens from before families existed: revoke all of the user's tokens.
  if (family !== null) q = q.where('family', '=', family);
  await q.execute();
}

/** Revokes one refresh token (logout); unknown tokens are ignored. */
export async function revokeRefreshToken(ctx: Needs<'db'>, refreshToken: string): Promise<void> {
  await ctx.db
    .updateTable('refresh_tokens')
    .set({ revoked_at: now() })
    .where('token_hash', '=', sha256(refreshToken))
    .where('revoked_at', 'is', null)
    .execute();
}

/**
 * After a password change: refuses the user's access tokens issued until now (the session kept with
 * `keepFamily` gets a new one through its refresh token) and revokes their other refresh tokens.
 */
export async function endOtherSessions(ctx: Needs<'db'>, userId: number, keepFamily?: string): Promise<void> {
  await ctx.db
    .updateTable('users')
    .set((eb) => ({ token_version: eb('token_version', '+', 1) }))
    .where('id', '=', userId)
    .execute();
  await revokeUserTokens(ctx, userId, keepFamily);
}

/** Revokes all of a user's refresh tokens except those of `keepFamily`. */
export async function revokeUserTokens(ctx: Needs<'db'>, userId: number, keepFamily?: string): Promise<void> {
  let q = ctx.db
    .updateTable('refresh_tokens')
    .set({ revoked_at: now() })
    .where('user_id', '=', userId)
    .where('revoked_at', 'is', null);
  if (keepFamily) q = q.where((eb) => eb.or([eb('family', 'is', null), eb('family', '!=', keepFamily)]));
  await q.execute();
}
