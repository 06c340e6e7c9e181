/**
 * Request and response schemas of the account endpoints that product-spec.md does not define
 * (the ones it does are in @mango/core). The routes validate with them and the OpenAPI document
 * is generated from them.
 */
import { z } from 'zod';
import { PASSWORD_MIN_LENGTH, ProfileUpdate } from '@mango/core';

export const PASSWORD_TOO_SHORT = `Password must be at least ${PASSWORD_MIN_LENGTH} characters`;
const newPassword = z.string().min(PASSWORD_MIN_LENGTH, PASSWORD_TOO_SHORT).max(200);

export const Message = z.object({ message: z.string() });

export const RegisterResponse = z.object({
  message: z.string(),
  user: z.object({ username: z.string(), email: z.string(), organization: z.string() }),
});

export const RefreshRequest = z.object({ refreshToken: z.string().min(1).max(200) });

export const ForgotPasswordRequest = z.object({ email: z.string().trim().min(1).max(254) });

export const VerifyCodeRequest = z.object({
  email: z.string().trim().min(1).max(254),
  code: z.string().trim().min(1).max(20),
});

export const ResetTokenResponse = z.object({ resetToken: z.string() });

/** With a reset token only newPassword; with an access token also currentPassword. */
export const ChangePasswordRequest = z.object({
  currentPassword: z.string().min(1).max(200).optional(),
  newPassword,
});

export const ProfileResponse = z.object({
  name: z.string(),
  email: z.string(),
  phone: z.string(),
  country: z.string(),
  organization: z.string(),
  username: z.string(),
});

/** The spec's profile edit; a new e-mail also needs the current password (and then a code, see below). */
export const ProfileUpdateRequest = ProfileUpdate.extend({ currentPassword: z.string().min(1).max(200).optional() });

export const ProfileUpdateResponse = z.object({
  message: z.string(),
  profile: ProfileResponse,
  pendingEmail: z
    .string()
    .optional()
    .describe('set when the e-mail changes: it takes effect once the code sent to it is confirmed'),
});

export const ConfirmEmailRequest = z.object({ code: z.string().trim().min(1).max(20) });

/** scheme://host[:port], exactly as a browser sends it in the Origin header. */
export const Origin = z
  .string()
  .max(200)
  .refine((o) => {
    try {
      const u = new URL(o);
      return (u.protocol === 'https:' || u.protocol === 'http:') && u.origin === o;
    } catch {
      return false;
    }
  }, 'an origin is scheme://host[:port] without a path or trailing slash, e.g. https://shop.example.com');

export const CreateApiKeyRequest = z.object({
  name: z.string().trim().min(1).max(100),
  allowedOrigins: z.array(Origin).max(20).default([]),
  rateLimitPerMinute: z.number().int().min(1).max(10_000).default(60),
  /** browser: called from the allowed origins' pages; server: server-to-server, never from a page */
  kind: z.enum(['browser', 'server']).default('browser'),
});

export const ApiKeyView = z.object({
  id: z.number().int(),
  name: z.string(),
  prefix: z.string(),
  organization: z.string(),
  allowed_origins: z.array(z.string()),
  rate_limit_per_minute: z.number().int(),
  kind: z.enum(['browser', 'server']),
  created_at: z.string(),
  revoked_at: z.string().nullable(),
  last_used_at: z.string().nullable(),
});

export const CreatedApiKey = ApiKeyView.extend({
  key: z.string().describe('the key itself; shown only in this answer'),
});
