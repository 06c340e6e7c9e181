/** One router per feature, mounted here. */
import type { Hono } from 'hono';
import type { ServerContext } from '../context.ts';

export function mountRoutes(app: Hono, ctx: ServerContext): void {
  void app;
  void ctx;
}
