import { z } from 'zod';

export class UsageError extends Error {}

/** Validates options with a plugin schema; a failure is a usage error with zod's readable message. */
export function parseOrExit<S extends z.ZodType>(schema: S, value: unknown): z.output<S> {
  const r = schema.safeParse(value);
  if (!r.success) throw new UsageError(z.prettifyError(r.error));
  return r.data;
}
