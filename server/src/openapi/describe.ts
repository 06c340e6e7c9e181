/**
 * One definition per route: a router registers each route with Hono as usual, with
 * `described(...)` among its handlers, which records the route's OpenAPI description (summary,
 * request, responses, security). document.ts then walks the app as it is mounted (`app.routes`:
 * full paths, methods) and describes every route registered with one, so a route's method and
 * path are written once, by the router that serves it.
 */
import type { Hono, MiddlewareHandler } from 'hono';
import { COMPOSED_HANDLER } from 'hono/utils/constants';
import type { RouteConfig } from '@asteasolutions/zod-to-openapi';

/** What a route says of itself; its method and path are the ones it is mounted at. */
export type RouteDescription = Omit<RouteConfig, 'method' | 'path'>;

/** Each route's description, keyed by its `described` middleware (Hono keeps a handler when a router is mounted). */
const descriptions = new WeakMap<object, RouteDescription>();

/**
 * The route's description, as a pass-through middleware registered with the route:
 * `app.get('/runs/:id', route({ summary, responses }), handler)`. Its method and path are the
 * route's; `defaults` (a router's tag and security: see `describer`) are filled in.
 */
export function described(description: RouteDescription): MiddlewareHandler {
  const describe: MiddlewareHandler = (_c, next) => next();
  descriptions.set(describe, description);
  return describe;
}

/** `described` with a router's defaults (its tag, its security). */
export function describer(defaults: Pick<RouteDescription, 'tags' | 'security'>) {
  return (description: RouteDescription): MiddlewareHandler => described({ ...defaults, ...description });
}

export type HttpMethod = 'get' | 'post' | 'put' | 'delete' | 'patch';

export interface DescribedRoute {
  method: HttpMethod;
  /** the OpenAPI path: `/api-node/runs/{id}` */
  path: string;
  description: RouteDescription;
}

/** Hono's path `/runs/:id` as OpenAPI writes it (`/runs/{id}`). */
export const openApiPath = (path: string) => path.replace(/:(\w+)(\{[^}]*\})?/g, '{$1}');

/** The routes of `app` registered with a description, in the order they were registered. */
export function describedRoutes(app: Pick<Hono, 'routes'>): DescribedRoute[] {
  const seen = new Set<string>();
  const out: DescribedRoute[] = [];
  for (const r of app.routes) {
    if (r.method === 'ALL') continue;
    // A router with its own error handler is mounted wrapped; the wrapper keeps the handler.
    const handler = r.handler as typeof r.handler & { [COMPOSED_HANDLER]?: object };
    const description = descriptions.get(handler) ?? descriptions.get(handler[COMPOSED_HANDLER] ?? handler);
    if (!description) continue;
    const method = r.method.toLowerCase() as HttpMethod;
    const path = openApiPath(r.path);
    const key = `${method} ${path}`;
    if (seen.has(key)) throw new Error(`${key} is described twice`);
    seen.add(key);
    out.push({ method, path, description });
  }
  return out;
}
