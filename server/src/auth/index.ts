/**
 * Authentication for the routers: who is calling (access token or partner API key), history
 * logging, token handling. The /api-py routers use `requireCaller(ctx)` and `logAction()`.
 */
export {
  requireCaller,
  requireUser,
  authenticateAccessToken,
  logAction,
  errorResponse,
  type Caller,
  type CallerEnv,
} from './caller.ts';
export { signAccessToken, verifyAccessToken, issueTokenPair, ACCESS_TOKEN_SECONDS } from './tokens.ts';
export { API_KEY_PREFIX, activeKeyOrigins } from './api-keys.ts';
export * from './schemas.ts';
