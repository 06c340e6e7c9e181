/**
 * What route descriptions (describe.ts) share: the named schemas of the document
 * (components/schemas, from the zod schemas the server validates and answers with), the security
 * requirements and the common responses.
 */
import { z } from 'zod';
import type { RouteConfig, ZodRequestBody } from '@asteasolutions/zod-to-openapi';
import {
  ActionRequest,
  ApiError,
  DetailError,
  HistoryRecord,
  LoginRequest,
  OPERATION_TYPES,
  OperationType,
  RegisterRequest,
  TokenPair,
} from '@mango/core';
import { JobProgress } from '@mango/core/jobs';
import { runKinds } from '@mango/core';
import { describedResultsFile, Provenance, RunListItem, RunPage, StoredRun, StoredRunItem } from '@mango/core/results';
import { registry } from '@mango/plugins';
import {
  ApiKeyView,
  ChangePasswordRequest,
  ConfirmEmailRequest,
  CreateApiKeyRequest,
  CreatedApiKey,
  ForgotPasswordRequest,
  Message,
  ProfileResponse,
  ProfileUpdateRequest,
  ProfileUpdateResponse,
  RefreshRequest,
  RegisterResponse,
  ResetTokenResponse,
  VerifyCodeRequest,
} from '../auth/schemas.ts';

type Responses = RouteConfig['responses'];

// ---- security ----------------------------------------------------------------------------------

/** The document's security schemes, by name (document.ts registers them). */
export const SECURITY_SCHEMES = {
  bearerAuth: {
    type: 'http',
    scheme: 'bearer',
    bearerFormat: 'JWT',
    description: 'Access token from POST /api-node/login (15 minutes; renew with POST /api-node/refresh).',
  },
  apiKey: {
    type: 'http',
    scheme: 'bearer',
    description:
      'Partner API key (mbt_...) from POST /api-node/api-keys, sent as Authorization: Bearer <key>. ' +
      'A browser key is accepted only with an Origin from its allowed origins; a server key only without an Origin. ' +
      'Each key has its own per-minute limit.',
  },
} as const;

type Security = NonNullable<RouteConfig['security']>;
/** An access token (requireUser). */
export const USER_ONLY: Security = [{ bearerAuth: [] }];
/** An access token or a partner API key (requireCaller, requireUserOrServerKey). */
export const USER_OR_KEY: Security = [{ bearerAuth: [] }, { apiKey: [] }];

// ---- named schemas -----------------------------------------------------------------------------

/**
 * Named components through zod's own metadata (the global registry is shared by zod's ESM and
 * CommonJS builds, which zod-to-openapi and the server load side by side). A named copy: schemas
 * built of the original inline it. The stored run and job schemas, which are built of each other,
 * carry their ids themselves (@mango/core/results, @mango/core/jobs).
 */
/**
 * A schema as the document names it (components/schemas/<id>). The shared schemas are named here;
 * a plugin's result shapes are named by the /api-py routes that answer with them (routes/api-py).
 */
export const named = <T extends z.ZodType>(id: string, schema: T): T => schema.meta({ id }) as T;

export const schemas = {
  ApiError: named('ApiError', ApiError),
  DetailError: named('DetailError', DetailError),
  Message: named('Message', Message),
  RegisterRequest: named('RegisterRequest', RegisterRequest),
  RegisterResponse: named('RegisterResponse', RegisterResponse),
  LoginRequest: named(
    'LoginRequest',
    LoginRequest.meta({ description: '`email` holds the username or the e-mail address; `username` is an alias' }),
  ),
  TokenPair: named('TokenPair', TokenPair),
  RefreshRequest: named('RefreshRequest', RefreshRequest),
  Profile: named('Profile', ProfileResponse),
  ProfileUpdate: named('ProfileUpdate', ProfileUpdateRequest),
  ConfirmEmailRequest: named('ConfirmEmailRequest', ConfirmEmailRequest),
  ProfileUpdateResponse: named('ProfileUpdateResponse', ProfileUpdateResponse),
  HistoryRecord: named('HistoryRecord', HistoryRecord),
  ActionRequest: named(
    'ActionRequest',
    ActionRequest.extend({
      operationType: OperationType.meta({
        description: `One of ${OPERATION_TYPES.map((t) => `'${t}'`).join(', ')}, or 'Features Analysis: ' followed by comma-joined feature ids`,
        examples: ['Resize', 'Features Analysis: rgb,glcm'],
      }),
    }),
  ),
  ForgotPasswordRequest: named('ForgotPasswordRequest', ForgotPasswordRequest),
  VerifyCodeRequest: named('VerifyCodeRequest', VerifyCodeRequest),
  ResetTokenResponse: named('ResetTokenResponse', ResetTokenResponse),
  ChangePasswordRequest: named('ChangePasswordRequest', ChangePasswordRequest),
  CreateApiKeyRequest: named('CreateApiKeyRequest', CreateApiKeyRequest),
  ApiKey: named('ApiKey', ApiKeyView),
  CreatedApiKey: named('CreatedApiKey', CreatedApiKey),
  Run: RunListItem,
  RunItem: StoredRunItem,
  StoredRun,
  RunPage,
  JobProgress,
  // a photo's result: one of the result schemas the plugins declare with their runs, or any object
  ResultsFile: named(
    'ResultsFile',
    describedResultsFile(runKinds(registry).flatMap(({ runs }) => (runs.result ? [runs.result] : []))),
  ),
  Provenance: named('Provenance', Provenance),
};

// ---- bodies and responses ----------------------------------------------------------------------

export const json = (schema: z.ZodType, description: string) => ({
  description,
  content: { 'application/json': { schema } },
});
export const jsonBody = (schema: z.ZodType): ZodRequestBody => ({
  required: true,
  content: { 'application/json': { schema } },
});
/** A response of `type` (a file, a page, a stream), described by its media type. */
export const media = (type: string, description: string, schema: object = { type: 'string', format: 'binary' }) => ({
  description,
  content: { [type]: { schema } },
});
/** An /api-node error: {error, details?}. */
export const err = (description: string) => json(schemas.ApiError, description);
/** An /api-py error: {detail}. */
export const detail = (description: string) => json(schemas.DetailError, description);

/** A JSON body the server reads (validate.ts readJson). */
export const JSON_BODY_ERRORS: Responses = {
  400: err('Malformed body: {error, details}'),
  413: err('Request body too large'),
  415: err('Content-Type must be application/json'),
};
export const SIGNED_IN: Responses = { 401: err('Missing, invalid or expired access token') };
export const LIMITED: Responses = { 429: err('Too many attempts (see Retry-After)') };
/** The refusals of requireUserOrServerKey (stored runs, jobs: the caller's own data). */
export const CALLER_REFUSALS: Responses = {
  401: err('Missing, invalid or expired access token, or an unknown or revoked API key'),
  403: err('A browser API key (a call with an Origin) cannot be used here: use a server key'),
  429: err("Over the API key's per-minute limit (see Retry-After)"),
};
