import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApp } from '../app.ts';
import { startTestServer, type TestServer } from '../testing/index.ts';

interface Doc {
  openapi: string;
  paths: Record<string, Record<string, { responses: Record<string, unknown>; security?: unknown[] }>>;
  components: { schemas: Record<string, unknown>; securitySchemes: Record<string, unknown> };
}

describe('GET /api/openapi.json', () => {
  let server: TestServer;
  let doc: Doc;
  beforeAll(async () => {
    server = await startTestServer();
    const res = await fetch(`${server.url}/api/openapi.json`);
    expect(res.status).toBe(200);
    doc = (await res.json()) as Doc;
  });
  afterAll(() => server.close());

  it('is an OpenAPI 3 document built from the zod schemas', () => {
    expect(doc.openapi).toMatch(/^3\./);
    for (const name of ['RegisterRequest', 'LoginRequest', 'TokenPair', 'Profile', 'ProfileUpdate', 'HistoryRecord']) {
      expect(doc.components.schemas, name).toHaveProperty(name);
    }
    for (const name of ['ActionRequest', 'ApiError', 'DetailError', 'FeatureResultItem', 'BruiseResultItem']) {
      expect(doc.components.schemas, name).toHaveProperty(name);
    }
    expect(doc.components.schemas.RegisterRequest).toMatchObject({
      required: ['username', 'email', 'organization', 'password'],
      properties: { password: { minLength: 8 } },
    });
    expect(Object.keys(doc.components.securitySchemes).sort()).toEqual(['apiKey', 'bearerAuth']);
  });

  it('lists every endpoint of product-spec.md section 7 and the added ones', () => {
    const expected: [string, string][] = [
      ['get', '/api-node/user/history'],
      ['get', '/api-node/user/profile'],
      ['put', '/api-node/user/profile'],
      ['post', '/api-node/change-password'],
      ['post', '/api-node/user/action'],
      ['get', '/api-node/protected'],
      ['post', '/api-py/python/bruise_detection/DeepLearning'],
      ['post', '/api-py/python/bruise_detection/Classical'],
      ['post', '/api-py/python/analyze'],
      ['post', '/api-py/python/remove_background'],
      ['post', '/api-node/register'],
      ['post', '/api-node/login'],
      ['post', '/api-node/refresh'],
      ['post', '/api-node/logout'],
      ['post', '/api-node/forgot-password'],
      ['post', '/api-node/verify-code'],
      ['get', '/api-node/api-keys'],
      ['post', '/api-node/api-keys'],
      ['delete', '/api-node/api-keys/{id}'],
      ['get', '/api-node/runs'],
      ['get', '/api-node/runs/{id}'],
      ['get', '/api-node/runs/{id}/export'],
      ['delete', '/api-node/runs/{id}'],
      ['get', '/api/openapi.json'],
    ];
    for (const [method, path] of expected) expect(doc.paths[path]?.[method], `${method} ${path}`).toBeDefined();
    const analyze = doc.paths['/api-py/python/analyze'].post as unknown as {
      requestBody: { content: Record<string, { schema: { properties: Record<string, unknown> } }> };
    };
    expect(Object.keys(analyze.requestBody.content['multipart/form-data'].schema.properties)).toEqual([
      'images',
      'features',
      'isolate',
    ]);
    expect(doc.paths['/api-py/python/remove_background'].post.responses['200']).toMatchObject({
      content: { 'image/png': {} },
    });
  });

  it('documents every route the app registers', () => {
    const app = createApp(server.ctx);
    const registered = app.routes
      .filter((r) => r.method !== 'ALL' && !r.path.includes('*'))
      .map((r) => [r.method.toLowerCase(), r.path.replace(/:(\w+)/g, '{$1}')] as const);
    expect(registered.length).toBeGreaterThan(10);
    const missing = registered.filter(([method, path]) => !doc.paths[path]?.[method]);
    expect(missing, 'routes missing from server/src/openapi/document.ts').toEqual([]);
  });

  it('gives every operation at least one documented response', () => {
    for (const [path, ops] of Object.entries(doc.paths)) {
      for (const [method, op] of Object.entries(ops)) {
        expect(Object.keys(op.responses).length, `${method} ${path}`).toBeGreaterThan(0);
      }
    }
  });
});
