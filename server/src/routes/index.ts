/** One router per feature, mounted here. */
import type { Hono } from 'hono';
import type { ServerContext } from '../context.ts';
import { apiPyRoutes } from './api-py/index.ts';

export function mountRoutes(app: Hono, ctx: ServerContext): void {
  app.route('/api-py', apiPyRoutes(ctx));
}
