/**
 * The HTTP contracts of product-spec.md section 7 as zod schemas. The server validates with them,
 * the web client and widget type their calls with them, and the OpenAPI document is generated
 * from them. Field names are contracts: keep them exactly. A plugin's result shapes are the plugin's
 * own (`@mango/plugin-bruise/results`, `@mango/plugin-features/results`): core knows a result only
 * as its plugin declares it (core/src/runs.ts).
 */
import { z } from 'zod';

/** Error body of the /api-py endpoints. */
export const DetailError = z.object({ detail: z.string() });
/** Error body of the /api-node endpoints. */
export const ApiError = z.object({ error: z.string(), details: z.unknown().optional() });

export const OPERATION_TYPES = [
  'Bruised Area Calculation',
  'Resize',
  'Crop',
  'Remove Background',
  'Logout',
  'K-Means',
] as const;

/** 'Features Analysis: ' followed by the comma-joined feature ids is also an operation type. */
export const OperationType = z
  .string()
  .min(1)
  .max(300)
  .refine(
    (v) => (OPERATION_TYPES as readonly string[]).includes(v) || v.startsWith('Features Analysis: '),
    'unknown operationType',
  );

export const ActionRequest = z.object({
  operationType: OperationType,
  /** the stored run the operation made (the `run_id` of its bruise or analyze answer) */
  run_id: z.string().min(1).max(64).nullable().optional(),
});

export const HistoryRecord = z.object({
  operation_type: z.string(),
  username: z.string(),
  organization: z.string(),
  time_stamp: z.string(),
  /** the stored run of the operation, when it made one (an addition to the original four fields) */
  run_id: z.string().nullable().optional(),
});
export type HistoryRecord = z.infer<typeof HistoryRecord>;

export const Profile = z.object({
  name: z.string(),
  email: z.string(),
  phone: z.string(),
  country: z.string(),
  organization: z.string(),
});
export type Profile = z.infer<typeof Profile>;

export const ProfileUpdate = z.object({
  name: z.string().trim().min(1).max(100),
  email: z.email().max(254),
  phone: z
    .string()
    .trim()
    .min(1)
    .max(32)
    .regex(/^[+0-9 ()-]+$/, 'phone may hold digits, spaces, +, -, ( and )'),
  country: z.string().trim().min(1).max(100),
});

export const PASSWORD_MIN_LENGTH = 8;

export const RegisterRequest = z.object({
  username: z
    .string()
    .trim()
    .min(3)
    .max(50)
    .regex(/^[A-Za-z0-9_.-]+$/, 'username may hold letters, digits, _, . and -'),
  email: z.email().max(254),
  organization: z.string().trim().min(1).max(100),
  password: z.string().min(PASSWORD_MIN_LENGTH, `Password must be at least ${PASSWORD_MIN_LENGTH} characters`).max(200),
});

/** `email` holds the username or the e-mail address (original client's field); `username` is an alias. */
export const LoginRequest = z
  .object({
    email: z.string().max(254).optional(),
    username: z.string().max(254).optional(),
    password: z.string().min(1).max(200),
  })
  .refine((v) => Boolean(v.email ?? v.username), { message: 'email or username is required' });

export const TokenPair = z.object({ accessToken: z.string(), refreshToken: z.string() });
