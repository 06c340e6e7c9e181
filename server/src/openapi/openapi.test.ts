import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { z } from 'zod';
import { runKinds } from '@mango/core';
import { registry } from '@mango/plugins';
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

  it("describes the stored run and job shapes once, by name: a run item's result is any JSON object", () => {
    const ref = (name: string) => ({ $ref: `#/components/schemas/${name}` });
    expect(doc.components.schemas.RunPage).toMatchObject({ properties: { runs: { items: ref('Run') } } });
    expect(doc.components.schemas.StoredRun).toMatchObject({ properties: { items: { items: ref('RunItem') } } });
    expect(doc.components.schemas.RunItem).toMatchObject({
      properties: { result: { type: 'object', additionalProperties: {} } },
    });
    const job = doc.paths['/api-node/jobs/{id}'].get.responses['200'];
    expect(job).toMatchObject({ content: { 'application/json': { schema: ref('JobProgress') } } });
  });

  it("describes a results file's photo result by the schemas the plugins declare with their runs, in the registry's order", () => {
    const file = doc.components.schemas.ResultsFile as {
      properties: { photos: { items: { properties: { result: { anyOf: { properties?: object }[] } } } } };
    };
    const declared = runKinds(registry).filter(({ runs }) => runs.result);
    expect(declared.map((k) => k.runs.operation)).toEqual(['bruise', 'analyze']);
    const anyOf = file.properties.photos.items.properties.result.anyOf;
    expect(anyOf).toHaveLength(declared.length + 1);
    declared.forEach(({ runs }, i) =>
      expect(Object.keys(anyOf[i].properties ?? {})).toEqual(Object.keys((runs.result as z.ZodObject).shape)),
    );
    expect(anyOf[0].properties).toHaveProperty('total_mango_pixels');
    expect(anyOf[0].properties).not.toHaveProperty('overlay_img');
    expect(anyOf[1].properties).toHaveProperty('image_name');
    expect(anyOf.at(-1)).toMatchObject({ type: 'object', additionalProperties: {} });
  });

  it('lists the multipart fields of /api-py and the media type of its files', () => {
    const analyze = doc.paths['/api-py/python/analyze'].post as unknown as {
      requestBody: { content: Record<string, { schema: { properties: Record<string, unknown> } }> };
    };
    expect(Object.keys(analyze.requestBody.content['multipart/form-data'].schema.properties)).toEqual([
      'images',
      'features',
      'isolate',
      'per_fruit',
      'px_per_cm',
      'reference_mm',
      'meta',
      'meta_csv',
    ]);
    expect(doc.paths['/api-py/python/remove_background'].post.responses['200']).toMatchObject({
      content: { 'image/png': {} },
    });
  });

  it('documents every route the app registers, with its path parameters', () => {
    const app = createApp(server.ctx);
    const registered = app.routes
      .filter((r) => r.method !== 'ALL' && !r.path.includes('*'))
      .map((r) => [r.method.toLowerCase(), r.path.replace(/:(\w+)/g, '{$1}')] as const);
    expect(registered.length).toBeGreaterThan(10);
    const missing = registered.filter(([method, path]) => !doc.paths[path]?.[method]);
    expect(missing, 'routes registered without described(...) (server/src/openapi/describe.ts)').toEqual([]);
    const run = doc.paths['/api-node/runs/{id}/export'].get as unknown as {
      parameters: { name: string; in: string }[];
    };
    expect(run.parameters.filter((p) => p.in === 'path').map((p) => p.name)).toEqual(['id']);
  });

  it('gives every operation at least one documented response', () => {
    for (const [path, ops] of Object.entries(doc.paths)) {
      for (const [method, op] of Object.entries(ops)) {
        expect(Object.keys(op.responses).length, `${method} ${path}`).toBeGreaterThan(0);
      }
    }
  });
});
