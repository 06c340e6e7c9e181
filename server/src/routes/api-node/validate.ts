/**
 * JSON body validation with zod: 415 {error} unless the body is declared `application/json`, 400
 * {error, details} for anything that does not fit the schema.
 */
import type { Context } from 'hono';
import type { z } from 'zod';
import { PASSWORD_TOO_SHORT } from '../../auth/schemas.ts';

export interface IssueDetail {
  path: string;
  message: string;
}

type Parsed<T> = { ok: true; data: T } | { ok: false; response: Response };

export const JSON_REQUIRED = 'Content-Type must be application/json';

/**
 * `application/json`, with parameters (charset) allowed. text/plain, form encodings or no type at all
 * are what a page of any site may send without a CORS preflight, so they are refused.
 */
export const isJsonContentType = (type: string | undefined) => /^application\/json\s*(;|$)/i.test((type ?? '').trim());

export async function readJson<S extends z.ZodType>(c: Context, schema: S): Promise<Parsed<z.output<S>>> {
  if (!isJsonContentType(c.req.header('content-type'))) {
    return { ok: false, response: c.json({ error: JSON_REQUIRED }, 415) };
  }
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
