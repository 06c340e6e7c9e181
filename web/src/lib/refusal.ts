/**
 * Why the server refused a request (issue 23 item 1): its reason and, for 429 and 503, how long to
 * wait. /api-py answers `{detail}`, /api-node `{error, details?}`; a refusal of too many uploads at
 * once, a full queue or too many queued photos carries `Retry-After` (seconds, or an HTTP date).
 * One reader for every page and the job path: fetch answers and XMLHttpRequest answers alike.
 */

export interface Refusal {
  status: number;
  /** the server's reason (`detail` or `error`), null when the body holds none */
  reason: string | null;
  /** whole seconds to wait before trying again (Retry-After), null when the answer has none */
  retryAfter: number | null;
}

/** An answer to read: a fetch Response, or an upload's status, headers and body. */
export interface Answer {
  status: number;
  headers: Headers;
}

/** The reason in a JSON error body: `detail` (/api-py) or `error` (/api-node); null otherwise. */
export function reasonOf(text: string): string | null {
  let data: unknown;
  try {
    data = JSON.parse(text);
  } catch {
    return null; // not JSON: no reason
  }
  if (!data || typeof data !== 'object') return null;
  for (const key of ['detail', 'error'] as const) {
    if (!(key in data)) continue;
    const value = (data as Record<string, unknown>)[key];
    if (typeof value === 'string' && value) return value;
    if (value != null && typeof value !== 'string') return JSON.stringify(value);
  }
  return null;
}

/** Seconds from a Retry-After value (delay-seconds or an HTTP date, RFC 9110 10.2.3), at least 0. */
export function retryAfterSeconds(value: string | null, now = Date.now()): number | null {
  const text = value?.trim();
  if (!text) return null;
  if (/^\d+$/.test(text)) return Number(text);
  // an HTTP date names its day and month ('-5' would parse as a year)
  const at = /^[A-Za-z]{3},/.test(text) ? Date.parse(text) : NaN;
  return Number.isNaN(at) ? null : Math.max(0, Math.ceil((at - now) / 1000));
}

/** The refusal of an answer whose body is `text`. */
export function refusalOf(answer: Answer, text: string): Refusal {
  return {
    status: answer.status,
    reason: reasonOf(text),
    retryAfter: retryAfterSeconds(answer.headers.get('Retry-After')),
  };
}

/** Reads the refusal of a fetch Response (its body is consumed). */
export async function readRefusal(res: Response): Promise<Refusal> {
  return refusalOf(res, await res.text().catch(() => ''));
}

/** The refusal has something to tell: a reason or a time to wait. */
export const tellsWhy = (r: Refusal | null | undefined): r is Refusal => !!r && (!!r.reason || r.retryAfter !== null);

/** A job (or another request) the server refused, with its refusal; the message is the reason. */
export class RefusedError extends Error {
  constructor(
    readonly refusal: Refusal,
    fallback: string,
  ) {
    super(refusal.reason ?? fallback);
    this.name = 'RefusedError';
  }
}

/** The refusal an error carries, if it is a refusal. */
export const refusalIn = (e: unknown): Refusal | null => (e instanceof RefusedError ? e.refusal : null);
