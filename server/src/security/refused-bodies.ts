/**
 * Refused requests are answered, not reset. When a route answers before it has read the whole body
 * (a 401 before the upload, a 429 for too many uploads at once, a 413 for a file over the limit, too
 * many photos), closing the socket while the client is still sending makes the client see a reset
 * (EPIPE, `fetch failed`) instead of the status and its reason. So the rest of such a body is read
 * and thrown away before the answer goes out, up to `REFUSED_BODY_READ_MB` (default 64) and
 * `REFUSED_BODY_READ_S` (default 30); beyond either bound the answer is sent with
 * `Connection: close` and the connection is closed shortly after (closeAfterAnswer). Nothing read
 * here is kept.
 */
import type { IncomingMessage } from 'node:http';
import type { Context, MiddlewareHandler } from 'hono';

export interface DrainBounds {
  maxBytes: number;
  maxMs: number;
}

export const DEFAULT_REFUSED_BODY_BOUNDS: DrainBounds = { maxBytes: 64 * 1024 * 1024, maxMs: 30_000 };

declare module 'hono' {
  interface ContextVariableMap {
    refusedBodyBounds: DrainBounds;
  }
}

/** Reads and discards `stream` to its end, up to the bounds; true when the end was reached. */
export async function discardRest(stream: ReadableStream<Uint8Array>, bounds: DrainBounds): Promise<boolean> {
  const reader = stream.getReader();
  let read = 0;
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<'timeout'>((resolve) => {
    timer = setTimeout(() => resolve('timeout'), bounds.maxMs);
    timer.unref?.();
  });
  try {
    for (;;) {
      const next = await Promise.race([reader.read(), timeout]);
      if (next === 'timeout') return false;
      if (next.done) return true;
      read += next.value.byteLength;
      if (read > bounds.maxBytes) return false;
    }
  } catch {
    return false;
  } finally {
    clearTimeout(timer);
    reader.cancel().catch(() => {});
  }
}

/** Reads and discards a Node stream to its end, up to the bounds; true when the end was reached. */
export function discardRestOfNodeStream(stream: NodeJS.ReadableStream, bounds: DrainBounds): Promise<boolean> {
  return new Promise((resolve) => {
    let read = 0;
    const done = (ended: boolean) => {
      clearTimeout(timer);
      stream.removeListener('data', onData);
      stream.removeListener('end', onEnd);
      stream.removeListener('error', onError);
      resolve(ended);
    };
    const onData = (chunk: Buffer | string) => {
      read += chunk.length;
      if (read > bounds.maxBytes) done(false);
    };
    const onEnd = () => done(true);
    const onError = () => done(false);
    const timer = setTimeout(() => done(false), bounds.maxMs);
    timer.unref?.();
    stream.on('data', onData);
    stream.on('end', onEnd);
    stream.on('error', onError);
    stream.resume();
  });
}

const incomingOf = (c: Context): IncomingMessage | undefined =>
  (c.env as { incoming?: IncomingMessage } | undefined)?.incoming;

/** True while the request still has body bytes the server has not read. */
function bodyLeft(c: Context): boolean {
  const incoming = incomingOf(c);
  if (!incoming || incoming.readableEnded || incoming.destroyed) return false;
  const m = c.req.method;
  if (m === 'GET' || m === 'HEAD' || m === 'OPTIONS') return false;
  const length = incoming.headers['content-length'];
  return incoming.headers['transfer-encoding'] !== undefined || (length !== undefined && Number(length) > 0);
}

/**
 * How long a connection closed after a refusal stays open once its answer is written: long enough for
 * a client still sending to read the answer.
 */
export const CLOSE_LINGER_MS = 2000;

/**
 * Answers with `Connection: close`, and holds the connection open a little after the answer. Node
 * closes such a connection the moment the answer is written; the next packet of a client still
 * sending then meets a reset, which can reach it before the answer does (`EPIPE` instead of the
 * status). So the answer and the end of the stream are sent, nothing more is read (the client's
 * writes wait while it reads the answer), and the connection is closed CLOSE_LINGER_MS later.
 */
function closeAfterAnswer(c: Context): void {
  c.res.headers.set('Connection', 'close');
  const socket = incomingOf(c)?.socket;
  if (!socket || socket.destroyed) return;
  socket.destroySoon = function lingeringClose(this: typeof socket) {
    if (this.writable) this.end();
    const timer = setTimeout(() => this.destroy(), CLOSE_LINGER_MS);
    timer.unref?.();
    this.once('close', () => clearTimeout(timer));
  };
}

/** The app's first middleware: after the answer is made, reads what is left of an unread body (bounded). */
export function answerRefusedBodies(bounds: DrainBounds): MiddlewareHandler {
  return async (c, next) => {
    c.set('refusedBodyBounds', bounds);
    await next();
    if (!bodyLeft(c)) return;
    const body = c.req.raw.body;
    let ended = false;
    if (body && !body.locked) ended = await discardRest(body, bounds);
    if (!ended) closeAfterAnswer(c);
  };
}
