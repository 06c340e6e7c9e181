/** One router per feature, mounted here. */
import type { Hono } from 'hono';
import type { ServerContext } from '../context.ts';
import { openApiRoutes } from '../openapi/index.ts';
import { apiNodeRoutes } from './api-node/index.ts';

export function mountRoutes(app: Hono, ctx: ServerContext): void {
  app.route('/api-node', apiNodeRoutes(ctx));
  app.route('/api', openApiRoutes(ctx));
}
