/**
 * The OpenAPI 3.1 document of the whole HTTP API, generated from the zod schemas the server
 * validates with (@mango/core's contracts plus the account schemas in auth/schemas.ts).
 * Every route the app registers must be listed here; openapi.test.ts walks app.routes to check.
 */
import { OpenAPIRegistry, OpenApiGeneratorV31, type RouteConfig } from '@asteasolutions/zod-to-openapi';
import { z } from 'zod';
import {
  ActionRequest,
  ApiError,
  BruiseResultItem,
  DetailError,
  FeatureResultItem,
  HistoryRecord,
  LoginRequest,
  OPERATION_TYPES,
  OperationType,
  RegisterRequest,
  TokenPair,
} from '@mango/core';
import {
  ApiKeyView,
  ChangePasswordRequest,
  CreateApiKeyRequest,
  CreatedApiKey,
  ForgotPasswordRequest,
  Message,
  ProfileResponse,
  ProfileUpdateRequest,
  ProfileUpdateResponse,
  ConfirmEmailRequest,
  RefreshRequest,
  RegisterResponse,
  ResetTokenResponse,
  VerifyCodeRequest,
} from '../auth/schemas.ts';
import { ANALYZE_FIELDS, BRUISE_FIELDS, fieldProperties } from '../routes/api-py/fields.ts';
import { Provenance, ResultsFile, ResultsPhoto } from '@mango/core/results';
import { RunExportQuery, RunListQuery } from '../routes/api-node/runs.ts';

type Responses = RouteConfig['responses'];

function buildRegistry(): OpenAPIRegistry {
  const r = new OpenAPIRegistry();
  const bearer = r.registerComponent('securitySchemes', 'bearerAuth', {
    type: 'http',
    scheme: 'bearer',
    bearerFormat: 'JWT',
    description: 'Access token from POST /api-node/login (15 minutes; renew with POST /api-node/refresh).',
  });
  const apiKey = r.registerComponent('securitySchemes', 'apiKey', {
    type: 'http',
    scheme: 'bearer',
    description:
      'Partner API key (mbt_...) from POST /api-node/api-keys, sent as Authorization: Bearer <key>. ' +
      'A browser key is accepted only with an Origin from its allowed origins; a server key only without an Origin. ' +
      'Each key has its own per-minute limit.',
  });
  const userOnly = [{ [bearer.name]: [] }];
  const userOrKey = [{ [bearer.name]: [] }, { [apiKey.name]: [] }];

  // Named components through zod's own metadata (the global registry is shared by zod's ESM and
  // CommonJS builds, which this library and the server load side by side).
  const named = <T extends z.ZodType>(id: string, schema: T): T => schema.meta({ id }) as T;
  const schemas = {
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
    FeatureResultItem: named('FeatureResultItem', FeatureResultItem),
    BruiseResultItem: named('BruiseResultItem', BruiseResultItem),
  };

  const json = (schema: z.ZodType, description: string) => ({
    description,
    content: { 'application/json': { schema } },
  });
  const jsonBody = (schema: z.ZodType) => ({ required: true, content: { 'application/json': { schema } } });
  const err = (description: string) => json(schemas.ApiError, description);
  const detail = (description: string) => json(schemas.DetailError, description);
  const common: Responses = {
    400: err('Malformed body: {error, details}'),
    413: err('Request body too large'),
  };
  const signedIn: Responses = { 401: err('Missing, invalid or expired access token') };
  const limited: Responses = { 429: err('Too many attempts (see Retry-After)') };

  const node = (route: Omit<RouteConfig, 'tags'>) => r.registerPath({ tags: ['Accounts'], ...route });

  node({
    method: 'post',
    path: '/api-node/register',
    summary: 'Create an account',
    request: { body: jsonBody(schemas.RegisterRequest) },
    responses: {
      201: json(schemas.RegisterResponse, 'Account created'),
      ...common,
      409: err('Username or e-mail already registered; details.field names which'),
      ...limited,
    },
  });
  node({
    method: 'post',
    path: '/api-node/login',
    summary: 'Sign in with username or e-mail (in `email`; `username` is an alias)',
    request: { body: jsonBody(schemas.LoginRequest) },
    responses: {
      200: json(schemas.TokenPair, 'Access token (15 min) and refresh token (14 days)'),
      ...common,
      401: err("'Invalid username/email or password' (same answer for unknown accounts)"),
      ...limited,
    },
  });
  node({
    method: 'post',
    path: '/api-node/refresh',
    summary: 'Exchange a refresh token for a new pair (the old one is revoked)',
    request: { body: jsonBody(schemas.RefreshRequest) },
    responses: {
      200: json(schemas.TokenPair, 'New pair'),
      ...common,
      401: err('Unknown, expired or revoked refresh token (reuse revokes the whole sign-in)'),
    },
  });
  node({
    method: 'post',
    path: '/api-node/logout',
    summary: 'Revoke a refresh token',
    request: { body: jsonBody(schemas.RefreshRequest) },
    responses: { 200: json(schemas.Message, 'Signed out'), ...common },
  });
  node({
    method: 'get',
    path: '/api-node/protected',
    summary: 'Check an access token',
    security: userOnly,
    responses: { 200: json(schemas.Message, '`Hello {username}, your token is valid`'), ...signedIn },
  });
  node({
    method: 'get',
    path: '/api-node/user/profile',
    summary: "The signed-in user's profile",
    security: userOnly,
    responses: { 200: json(schemas.Profile, 'Profile'), ...signedIn },
  });
  node({
    method: 'put',
    path: '/api-node/user/profile',
    summary:
      'Update name, e-mail, phone and country. A new e-mail needs currentPassword and takes effect only ' +
      'after POST /api-node/user/email/confirm with the code mailed to it (the answer then has pendingEmail; ' +
      'an address of another account gets the same answer and no code)',
    security: userOnly,
    request: { body: jsonBody(schemas.ProfileUpdate) },
    responses: {
      200: json(schemas.ProfileUpdateResponse, "'Profile updated successfully' and the new profile"),
      ...common,
      ...signedIn,
    },
  });
  node({
    method: 'post',
    path: '/api-node/user/email/confirm',
    summary: 'Confirm a new e-mail with the code sent to it; the old address is told',
    security: userOnly,
    request: { body: jsonBody(schemas.ConfirmEmailRequest) },
    responses: {
      200: json(schemas.ProfileUpdateResponse, "'Profile updated successfully' and the profile with the new e-mail"),
      400: err("'Incorrect verification code. Please try again.' (also for an expired or used-up code)"),
      ...signedIn,
      ...limited,
    },
  });
  node({
    method: 'get',
    path: '/api-node/user/history',
    summary: "The signed-in user's operations, newest first (at most 1000)",
    security: userOnly,
    responses: { 200: json(z.array(schemas.HistoryRecord), 'History records'), ...signedIn },
  });
  node({
    method: 'post',
    path: '/api-node/user/action',
    summary: 'Record an operation in the history',
    security: userOnly,
    request: { body: jsonBody(schemas.ActionRequest) },
    responses: { 201: json(schemas.Message, 'Recorded'), ...common, ...signedIn },
  });
  node({
    method: 'post',
    path: '/api-node/forgot-password',
    summary: 'Send a 6-digit verification code (valid 15 minutes, 5 attempts) to the address',
    request: { body: jsonBody(schemas.ForgotPasswordRequest) },
    responses: {
      200: json(schemas.Message, 'Same answer whether or not an account has this address'),
      ...common,
      ...limited,
    },
  });
  node({
    method: 'post',
    path: '/api-node/verify-code',
    summary: 'Exchange the verification code for a single-use reset token (15 minutes)',
    request: { body: jsonBody(schemas.VerifyCodeRequest) },
    responses: {
      200: json(schemas.ResetTokenResponse, 'Reset token for POST /api-node/change-password'),
      400: err("'Incorrect verification code. Please try again.' (also for an expired or used-up code)"),
      ...limited,
    },
  });
  node({
    method: 'post',
    path: '/api-node/change-password',
    summary:
      'Set a new password: Bearer <resetToken> with {newPassword}, or Bearer <accessToken> with ' +
      "{currentPassword, newPassword}. Revokes the user's other sessions.",
    security: [{ [bearer.name]: [] }],
    request: { body: jsonBody(schemas.ChangePasswordRequest) },
    responses: {
      200: json(schemas.Message, "'Password updated successfully'"),
      400: err("Malformed body, or 'Current password is incorrect'"),
      401: err('Missing, invalid, expired or already used token'),
      ...limited,
    },
  });
  const keys = (route: Omit<RouteConfig, 'tags' | 'security'>) =>
    r.registerPath({ tags: ['API keys'], security: userOnly, ...route });
  keys({
    method: 'get',
    path: '/api-node/api-keys',
    summary: "The signed-in user's partner API keys (never the keys themselves)",
    responses: { 200: json(z.array(schemas.ApiKey), 'Keys, newest first'), ...signedIn },
  });
  keys({
    method: 'post',
    path: '/api-node/api-keys',
    summary: 'Create a partner API key; the key is shown only in this answer',
    request: { body: jsonBody(schemas.CreateApiKeyRequest) },
    responses: { 201: json(schemas.CreatedApiKey, 'Created'), ...common, ...signedIn },
  });
  keys({
    method: 'delete',
    path: '/api-node/api-keys/{id}',
    summary: 'Revoke one of your keys',
    request: { params: z.object({ id: z.string().regex(/^\d+$/) }) },
    responses: { 200: json(schemas.Message, 'Revoked'), ...signedIn, 404: err('No such key of yours') },
  });

  // Plugin endpoints (routes/api-py): multipart uploads, errors as {detail}.
  const imagesField = {
    type: 'array' as const,
    items: { type: 'string' as const, format: 'binary', contentMediaType: 'application/octet-stream' },
    description: 'Image files (.jpg, .jpeg, .png); repeat the field for several images',
  };
  const multipart = (properties: Record<string, object>, required: string[]) => ({
    required: true,
    content: { 'multipart/form-data': { schema: { type: 'object' as const, properties, required } } },
  });
  const pluginErrors: Responses = {
    400: detail('Missing or invalid field'),
    401: detail('Missing or invalid token or API key'),
    403: detail("Origin not allowed for the API key's kind (browser: from its allowed origins; server: none)"),
    413: detail('File or image too large'),
    415: detail('Not a supported image'),
    422: detail('Corrupt image or no fruit found'),
    429: detail("Over the API key's per-minute limit"),
  };
  const py = (route: Omit<RouteConfig, 'tags' | 'security' | 'method'>) =>
    r.registerPath({ tags: ['Imaging'], method: 'post', security: userOrKey, ...route });
  py({
    path: '/api-py/python/analyze',
    summary: 'Feature analysis of each image',
    request: {
      body: multipart({ images: imagesField, ...fieldProperties(ANALYZE_FIELDS) }, ['images', 'features']),
    },
    responses: { 200: json(z.array(schemas.FeatureResultItem), 'One item per image'), ...pluginErrors },
  });
  for (const [method, what] of [
    ['DeepLearning', 'with the segmentation model (falls back to the classical method when no model is installed)'],
    ['Classical', 'with the classical colour method'],
  ] as const) {
    py({
      path: `/api-py/python/bruise_detection/${method}`,
      summary: `Bruised area of each image, ${what}`,
      request: {
        body: multipart({ images: imagesField, ...fieldProperties(BRUISE_FIELDS) }, ['images']),
      },
      responses: { 200: json(z.array(schemas.BruiseResultItem), 'One item per image'), ...pluginErrors },
    });
  }
  py({
    path: '/api-py/python/remove_background',
    summary: 'Remove the background of one image',
    request: {
      body: multipart(
        {
          images: { ...imagesField, description: 'One image file (`image` and `file` are accepted too)', maxItems: 1 },
        },
        ['images'],
      ),
    },
    responses: {
      200: {
        description: 'The fruit on a transparent background',
        content: { 'image/png': { schema: { type: 'string', format: 'binary' } } },
      },
      ...pluginErrors,
    },
  });

  r.registerPath({
    tags: ['Service'],
    method: 'get',
    path: '/api/openapi.json',
    summary: 'This document',
    responses: { 200: { description: 'OpenAPI 3.1 document', content: { 'application/json': { schema: {} } } } },
  });
  r.registerPath({
    tags: ['Service'],
    method: 'get',
    path: '/healthz',
    summary: 'Liveness check',
    responses: { 200: json(z.object({ ok: z.boolean() }), '{ok: true}') },
  });
  r.registerPath({
    tags: ['Widget'],
    method: 'get',
    path: '/widget/ort/{file}',
    summary:
      "onnxruntime-web's WebAssembly build (file: ort.wasm.bundle.min.mjs or ort-wasm-simd-threaded.wasm), fetched by the widget's local mode from any origin",
    responses: {
      200: {
        description: 'The file',
        content: { 'application/octet-stream': { schema: { type: 'string', format: 'binary' } } },
      },
      404: { description: 'Not one of the runtime files' },
    },
  });
  r.registerPath({
    tags: ['Widget'],
    method: 'get',
    path: '/widget/models/manifest.json',
    summary: 'The installed bruise-segmentation models (models/manifest.json entries, sha256 verified)',
    responses: { 200: { description: '{ models: [...] }', content: { 'application/json': { schema: {} } } } },
  });
  r.registerPath({
    tags: ['Widget'],
    method: 'get',
    path: '/widget/models/{file}',
    summary: 'A model file named in that manifest (the widget checks its sha256)',
    responses: {
      200: {
        description: 'The ONNX file',
        content: { 'application/octet-stream': { schema: { type: 'string', format: 'binary' } } },
      },
      404: { description: 'Not an installed model' },
    },
  });

  // Stored runs (routes/api-node/runs.ts): the caller's own only (access token or API key).
  const RunSummary = named(
    'Run',
    Provenance.pick({
      operation: true,
      method: true,
      method_used: true,
      plugin_version: true,
      model_id: true,
      model_sha256: true,
      options: true,
      app_version: true,
      created_at: true,
    }).extend({
      id: z.string(),
      username: z.string(),
      organization: z.string(),
      item_count: z.number().int(),
      summary: z.record(z.string(), z.number().nullable()),
    }),
  );
  const RunItem = named(
    'RunItem',
    ResultsPhoto.extend({
      id: z.number().int(),
      position: z.number().int(),
      full_overlay: z.boolean().meta({ description: 'the full-size overlay is kept (a job with keep_overlays)' }),
    }),
  );
  named('Provenance', Provenance);
  const runs = (route: Omit<RouteConfig, 'tags' | 'security'>) =>
    r.registerPath({ tags: ['Runs'], security: userOrKey, ...route });
  const runId = z.object({ id: z.string() });
  runs({
    method: 'get',
    path: '/api-node/runs',
    summary: 'Your stored runs, newest first: filters by operation and date, search in file names, cursor pages',
    request: { query: RunListQuery },
    responses: {
      200: json(z.object({ runs: z.array(RunSummary), next_cursor: z.string().nullable() }), 'One page of runs'),
      400: err('Invalid query'),
      ...signedIn,
    },
  });
  runs({
    method: 'get',
    path: '/api-node/runs/{id}',
    summary: 'One of your runs with its items (file name, sha256, size, result, overlay thumbnail)',
    request: { params: runId },
    responses: {
      200: json(RunSummary.extend({ items: z.array(RunItem) }), 'The run'),
      ...signedIn,
      404: err('No such run of yours'),
    },
  });
  runs({
    method: 'get',
    path: '/api-node/runs/{id}/items/{position}/overlay',
    summary:
      "A photo's overlay at full size (as /api-py answers it), kept when its job was sent with keep_overlays=true",
    request: { params: runId.extend({ position: z.string().meta({ description: 'the photo, from 0' }) }) },
    responses: {
      200: {
        description: 'The overlay as its plugin encoded it',
        content: {
          'image/jpeg': { schema: { type: 'string', format: 'binary' } },
          'image/png': { schema: { type: 'string', format: 'binary' } },
        },
      },
      ...signedIn,
      404: err('No such run of yours, no such photo, or its overlay was not kept'),
    },
  });
  runs({
    method: 'get',
    path: '/api-node/runs/{id}/export',
    summary:
      'Export a run: csv (per-fruit table; table=images for the per-image one), json (the results file, ' +
      'same schema as `mango bruise --out results.json`), zip (both tables, overlays, provenance.json), ' +
      'html (the report), provenance (the sidecar of the CSV)',
    request: { params: runId, query: RunExportQuery },
    responses: {
      200: {
        description: 'The file, as an attachment',
        content: {
          'text/csv': { schema: { type: 'string' } },
          'application/json': { schema: named('ResultsFile', ResultsFile) },
          'application/zip': { schema: { type: 'string', format: 'binary' } },
          'text/html': { schema: { type: 'string' } },
        },
      },
      400: err('Invalid query'),
      ...signedIn,
      404: err('No such run of yours'),
    },
  });
  runs({
    method: 'delete',
    path: '/api-node/runs/{id}',
    summary:
      'Delete one of your runs and its items; a job still filling the run is cancelled and its waiting photos removed',
    request: { params: runId },
    responses: { 200: json(schemas.Message, 'Deleted'), ...signedIn, 404: err('No such run of yours') },
  });

  // Batch jobs (routes/api-node/jobs.ts).
  const JobProgress = named(
    'JobProgress',
    z.object({
      id: z.string(),
      state: z.enum(['queued', 'running', 'done', 'failed', 'cancelled']),
      total: z.number().int(),
      done: z.number().int(),
      failed: z.number().int(),
      run_id: z.string().nullable(),
    }),
  );
  const jobs = (route: Omit<RouteConfig, 'tags' | 'security'>) =>
    r.registerPath({ tags: ['Jobs'], security: userOrKey, ...route });
  jobs({
    method: 'post',
    path: '/api-node/jobs',
    summary:
      'Start a batch job: multipart `operation` (bruise | features), `options` (JSON, the plugin options; ' +
      'features jobs may add isolate: true; a key the plugin does not know is refused), repeated `images` or one `zip`, up to MAX_JOB_FILES photos. ' +
      'Answers at once; the results land in the stored run `run_id` as they are produced',
    request: {
      body: {
        content: {
          'multipart/form-data': {
            schema: z.object({
              operation: z.enum(['bruise', 'features']),
              options: z
                .string()
                .optional()
                .meta({
                  description:
                    'JSON object of the plugin options, named in snake_case as /api-py names them (px_per_cm, reference_mm, max_side). ' +
                    'Alias: the camelCase name of each option (pxPerCm, referenceMm, maxSide), the earlier spelling of this API, is accepted too; ' +
                    'both spellings of one option with different values is a 400',
                }),
              keep_overlays: z
                .enum(['true', 'false'])
                .optional()
                .meta({
                  description:
                    "true: each photo's full-size overlay is kept with the run (GET /api-node/runs/{id}/items/{position}/overlay); " +
                    'only for runs with an overlay (bruise)',
                }),
              images: z.array(z.string().meta({ format: 'binary' })).optional(),
              zip: z.string().meta({ format: 'binary' }).optional(),
            }),
          },
        },
      },
    },
    responses: {
      202: json(z.object({ id: z.string() }), 'The job was accepted'),
      400: err('Bad operation, options or photos'),
      413: err('A photo or the upload is too large'),
      429: err(
        'Too many requests or uploads at once, or more than MAX_QUEUED_PHOTOS_PER_USER of your photos would be waiting ' +
          '(refused before the photos are stored; see Retry-After)',
      ),
      ...signedIn,
    },
  });
  jobs({
    method: 'get',
    path: '/api-node/jobs/{id}',
    summary: 'The progress of one of your jobs (done + failed = total once it is done)',
    request: { params: runId },
    responses: { 200: json(JobProgress, 'The job'), ...signedIn, 404: err('No such job of yours') },
  });
  jobs({
    method: 'get',
    path: '/api-node/jobs/{id}/events',
    summary: 'Server-Sent Events: a `progress` event (JobProgress) on every change, until the job ends',
    request: { params: runId },
    responses: {
      200: { description: 'text/event-stream', content: { 'text/event-stream': { schema: { type: 'string' } } } },
      ...signedIn,
      404: err('No such job of yours'),
    },
  });
  jobs({
    method: 'delete',
    path: '/api-node/jobs/{id}',
    summary: 'Cancel one of your jobs: no more photos are scored; the ones done stay in its run',
    request: { params: runId },
    responses: { 200: json(JobProgress, 'The job, cancelled'), ...signedIn, 404: err('No such job of yours') },
  });
  return r;
}

let cached: object | undefined;

export function openApiDocument(): object {
  cached ??= new OpenApiGeneratorV31(buildRegistry().definitions).generateDocument({
    openapi: '3.1.0',
    info: {
      title: 'Mango Bruise Tracker API',
      version: '1.0.0',
      description:
        'Accounts, profile and history under /api-node (errors as {error, details?}); imaging under /api-py ' +
        '(multipart uploads, errors as {detail}), callable with an access token or a partner API key.',
    },
    servers: [{ url: '/' }],
  });
  return cached;
}
