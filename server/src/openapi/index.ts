/** GET /api/openapi.json: the document of the routes the app serves, made once on the first request. */
import { Hono } from 'hono';
import { media } from './components.ts';
import { describer } from './describe.ts';
import { openApiDocument, type OpenApiDocument } from './document.ts';

export { openApiDocument, type OpenApiDocument } from './document.ts';

/** `app`: the app whose routes the document describes (this router is mounted in it). */
export function openApiRoutes(app: Pick<Hono, 'routes'>): Hono {
  const router = new Hono();
  const route = describer({ tags: ['Service'] });
  let doc: OpenApiDocument | undefined;
  const document = route({
    summary: 'This document',
    responses: {
      200: media('application/json', 'OpenAPI 3.1 document', {
        type: 'object',
        required: ['openapi', 'info', 'paths'],
        properties: Object.fromEntries([
          ['openapi', { type: 'string', pattern: '^3\\.1\\.' }],
          ...['info', 'paths', 'components', 'webhooks'].map((k) => [k, { type: 'object' }]),
          ['servers', { type: 'array' }],
        ]),
      }),
    },
  });
  router.get('/openapi.json', document, (c) => c.json((doc ??= openApiDocument(app))));
  return router;
}
