/**
 * The Hono app: /api-node (accounts, profile, history, actions), /api-py (plugin endpoints with the
 * original paths and payloads), the widget bundle and the built web app with SPA fallback, all on
 * one port. createApp() is also what the tests use.
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { IncomingMessage } from 'node:http';
import { Hono, type Context } from 'hono';
import { z } from 'zod';
import { serveStatic } from '@hono/node-server/serve-static';
import { isMangoError, userMessage } from '@mango/core';
import type { ServerContext } from './context.ts';
import { mountRoutes } from './routes/index.ts';
import { widgetRuntimeRoutes } from './routes/widget/index.ts';
import { applySecurity } from './security/index.ts';
import { answerRefusedBodies } from './security/refused-bodies.ts';
import { estimatedWaitSeconds } from './routes/api-py/guards.ts';
import { described } from './openapi/describe.ts';
import { json } from './openapi/components.ts';

/**
 * Whether the client went away before its request was read: the connection was reset or closed
 * mid-body (a cancelled upload, a closed tab). Nobody receives the answer, and it is no fault of ours.
 */
export function abortedByClient(c: Context): boolean {
  if (c.req.raw.signal.aborted) return true;
  const incoming = (c.env as { incoming?: IncomingMessage } | undefined)?.incoming;
  return !!incoming && !incoming.complete && (incoming.destroyed || !!incoming.errored);
}

const isApiPath = (p: string) => p.startsWith('/api-node') || p.startsWith('/api-py') || p.startsWith('/api/');

export function createApp(ctx: ServerContext): Hono {
  const app = new Hono();

  app.onError((err, c) => {
    if (abortedByClient(c)) {
      // One quiet line (the request log adds it when on), never an error with a stack.
      if (!ctx.config.logRequests) ctx.logger.info(`${c.req.method} ${c.req.path} aborted by the client`);
      return c.body(null, 499 as 400);
    }
    const status = isMangoError(err) ? err.status : 500;
    const busy = isMangoError(err) && err.code === 'BUSY';
    // A full work queue is load, not a fault: the caller is told when to come back.
    if (busy) c.header('Retry-After', String(estimatedWaitSeconds(ctx)));
    else if (status >= 500) ctx.logger.error(`${c.req.method} ${c.req.path} failed`, err);
    const message = status >= 500 && !isMangoError(err) ? 'Internal server error' : userMessage(err);
    const body = c.req.path.startsWith('/api-py') ? { detail: message } : { error: message };
    return c.json(body, status as 400);
  });

  // First: a refused request's unread body is read (bounded) before its answer goes out.
  app.use('*', answerRefusedBodies({ maxBytes: ctx.config.refusedBodyBytes, maxMs: ctx.config.refusedBodyMs }));

  if (ctx.config.logRequests) {
    // Method, path (no query string: it may carry personal data), status and time; never headers.
    app.use('*', async (c, next) => {
      const t0 = performance.now();
      await next();
      const ms = Math.round(performance.now() - t0);
      if (abortedByClient(c)) ctx.logger.info(`${c.req.method} ${c.req.path} aborted by the client after ${ms}ms`);
      else ctx.logger.info(`${c.req.method} ${c.req.path} ${c.res.status} ${ms}ms`);
    });
  }

  // Secure headers, CORS allow-lists and body limits for everything below.
  applySecurity(app, ctx);

  const health = described({
    tags: ['Service'],
    summary: 'Liveness check',
    responses: { 200: json(z.object({ ok: z.boolean() }), '{ok: true}') },
  });
  app.get('/healthz', health, (c) => c.json({ ok: true }));

  mountRoutes(app, ctx);

  app.notFound((c) => {
    if (c.req.path.startsWith('/api-py')) return c.json({ detail: 'Not found' }, 404);
    if (isApiPath(c.req.path)) return c.json({ error: 'Not found' }, 404);
    return c.text('Not found', 404);
  });

  // The widget bundle for partner pages, and what its local mode fetches when it is used.
  app.route('/widget', widgetRuntimeRoutes(ctx));
  app.use(
    '/widget/*',
    serveStatic({ root: ctx.config.widgetDist, rewriteRequestPath: (p) => p.replace(/^\/widget/, '') }),
  );

  // The built web app: static assets, then index.html for every client route (SPA fallback).
  const indexFile = join(ctx.config.webDist, 'index.html');
  app.use('/*', serveStatic({ root: ctx.config.webDist }));
  app.get('*', (c) => {
    if (isApiPath(c.req.path) || c.req.path.startsWith('/widget/')) return c.notFound();
    if (!existsSync(indexFile)) {
      return c.text('The web app is not built yet: run `npm run build` (npm start does it for you).', 503);
    }
    return c.html(readFileSync(indexFile, 'utf8'));
  });

  return app;
}
