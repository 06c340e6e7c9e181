/**
 * The OpenAPI 3.1 document of the whole HTTP API, assembled from the routes as the app mounts them:
 * each route describes itself where it is registered (describe.ts), from the zod schemas the
 * server validates and answers with (components.ts). This file adds only what is the document's:
 * its info, servers and security schemes, and the path parameters a route's path names.
 */
import { OpenAPIRegistry, OpenApiGeneratorV31 } from '@asteasolutions/zod-to-openapi';
import type { Hono } from 'hono';
import { z } from 'zod';
import { SECURITY_SCHEMES } from './components.ts';
import { describedRoutes, type DescribedRoute } from './describe.ts';

/** The route's request, with a string parameter for each name in its path that it does not describe. */
function withPathParams({ path, description }: DescribedRoute): DescribedRoute['description']['request'] {
  const names = [...path.matchAll(/\{(\w+)\}/g)].map((m) => m[1]);
  const params = description.request?.params;
  const described = params && 'shape' in params ? Object.keys(params.shape) : [];
  const missing = names.filter((n) => !described.includes(n));
  if (missing.length === 0) return description.request;
  const added = z.object(Object.fromEntries(missing.map((n) => [n, z.string()])));
  return { ...description.request, params: params && 'shape' in params ? params.extend(added.shape) : added };
}

/** The document of the routes `app` serves. */
export function openApiDocument(app: Pick<Hono, 'routes'>) {
  const registry = new OpenAPIRegistry();
  for (const [name, scheme] of Object.entries(SECURITY_SCHEMES)) {
    registry.registerComponent('securitySchemes', name, scheme);
  }
  for (const route of describedRoutes(app)) {
    registry.registerPath({
      method: route.method,
      path: route.path,
      ...route.description,
      request: withPathParams(route),
    });
  }
  return new OpenApiGeneratorV31(registry.definitions).generateDocument({
    openapi: '3.1.0',
    info: {
      title: 'Mango Bruise Tracker API',
      version: '1.0.0',
      description:
        'Accounts, profile and history under /api-node (errors as {error, details?}); imaging under /api-py ' +
        '(multipart uploads, errors as {detail}), callable with an access token or a partner API key.',
    },
    servers: [{ url: '/' }],
  });
}

export type OpenApiDocument = ReturnType<typeof openApiDocument>;
