/**
 * Request body limits that never hold a body in memory (issue 23). A declared `Content-Length` over
 * the limit is refused with 413 before any of the body is read. A body without one
 * (`Transfer-Encoding: chunked`) is counted as the route reads it, chunk by chunk, and stopped the
 * moment it passes the limit: the route's read fails and the answer is 413. Nothing is read here
 * before the route runs, so a route checks credentials before any of the body is read (hono's
 * bodyLimit copied a chunked body whole into memory first: up to MAX_JOB_MB before a batch job's
 * credentials were checked).
 *
 * After a body stopped at the limit, the rest is read and discarded (bounded, as for any refused
 * body: security/refused-bodies.ts) so that the client, still sending, receives the 413.
 */
import type { Context, MiddlewareHandler } from 'hono';
import { MangoError } from '@mango/core';
import { DEFAULT_REFUSED_BODY_BOUNDS, discardRest } from './refused-bodies.ts';

export const BODY_TOO_LARGE = 'Request body too large';

/** 413 {detail} on /api-py (the original plugin API), {error} elsewhere. */
export const tooLargeResponse = (c: Context): Response =>
  c.req.path.startsWith('/api-py') ? c.json({ detail: BODY_TOO_LARGE }, 413) : c.json({ error: BODY_TOO_LARGE }, 413);

/**
 * Limits every request body to `maxBytesOf(c)` bytes. A chunked body is handed to the route as a
 * stream that counts what passes and errors with a 413 MangoError past the limit.
 */
export function streamingBodyLimit(maxBytesOf: (c: Context) => number): MiddlewareHandler {
  return async (c, next) => {
    const method = c.req.method;
    if (method === 'GET' || method === 'HEAD' || method === 'OPTIONS') return next();
    const maxBytes = maxBytesOf(c);
    const declared = c.req.header('content-length');
    if (declared !== undefined && c.req.header('transfer-encoding') === undefined) {
      return Number(declared) > maxBytes ? tooLargeResponse(c) : next();
    }
    const body = c.req.raw.body;
    if (!body) return next();

    const tooLarge = new MangoError('FILE_TOO_LARGE', BODY_TOO_LARGE);
    const source = body.getReader();
    let counted = 0;
    let overflowed = false;
    // Pulled by the route: one chunk of the request at a time, none kept here.
    const limited = new ReadableStream<Uint8Array>(
      {
        async pull(controller) {
          let chunk: ReadableStreamReadResult<Uint8Array>;
          try {
            chunk = await source.read();
          } catch (e) {
            controller.error(e);
            return;
          }
          if (chunk.done) {
            controller.close();
            return;
          }
          counted += chunk.value.byteLength;
          if (counted > maxBytes) {
            overflowed = true;
            // The rest stays readable, to be discarded below.
            source.releaseLock();
            controller.error(tooLarge);
            return;
          }
          controller.enqueue(chunk.value);
        },
        cancel(reason) {
          return source.cancel(reason);
        },
      },
      { highWaterMark: 0 },
    );
    c.req.raw = new Request(c.req.raw, { body: limited, duplex: 'half' } as RequestInit);

    await next();
    if (!overflowed) return;
    // A route that refused the request for its own reason first (too many files, say) keeps its answer;
    // one that turned the failed read into something else (`The request body must be JSON`) answers 413.
    const ownRefusal = c.error instanceof MangoError && c.error !== tooLarge;
    if (!ownRefusal) c.res = tooLargeResponse(c);
    const ended = await discardRest(body, c.get('refusedBodyBounds') ?? DEFAULT_REFUSED_BODY_BOUNDS);
    if (ended) c.res.headers.delete('Connection');
    else c.res.headers.set('Connection', 'close');
  };
}
