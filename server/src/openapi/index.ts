/** GET /api/openapi.json */
import { Hono } from 'hono';
import type { ServerContext } from '../context.ts';
import { openApiDocument } from './document.ts';

export { openApiDocument } from './document.ts';

export function openApiRoutes(_ctx: ServerContext): Hono {
  const app = new Hono();
  app.get('/openapi.json', (c) => c.json(openApiDocument()));
  return app;
}
