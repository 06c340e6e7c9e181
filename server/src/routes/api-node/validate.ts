/** JSON body validation with zod: 400 {error, details} for anything that does not fit the schema. */
import type { Context } from 'hono';
import type { z } from 'zod';
import { PASSWORD_TOO_SHORT } from '../../auth/schemas.ts';

export interface IssueDetail {
  path: string;
  message: string;
}

type Parsed<T> = { ok: true; data: T } | { ok: false; response: Response };

export async function readJson<S extends z.ZodType>(c: Context, schema: S): Promise<Parsed<z.output<S>>> {
  let body: unknown;
  try {
    body = await c.req.json();
  } catch {
    return { ok: false, response: c.json({ error: 'The request body must be JSON' }, 400) };
  }
  const result = schema.safeParse(body);
  if (result.success) return { ok: true, data: result.data };
  const details: IssueDetail[] = result.error.issues.map((i) => ({
    path: i.path.map(String).join('.'),
    message: i.message,
  }));
  // The password rule has a fixed text the pages show as is.
  const password = details.find((d) => d.message === PASSWORD_TOO_SHORT);
  const error = password ? PASSWORD_TOO_SHORT : describeIssue(details[0]);
  return { ok: false, response: c.json({ error, details }, 400) };
}

const describeIssue = (d: IssueDetail) =>
  d.path ? `Invalid ${d.path}: ${d.message}` : `Invalid request: ${d.message}`;
