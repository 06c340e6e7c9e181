import { describe, expect, it } from 'vitest';
import { Hono } from 'hono';
import { z } from 'zod';
import { described, describedRoutes, describer } from './describe.ts';
import { openApiDocument } from './document.ts';

const ok = { 200: { description: 'ok' } };

describe('routes that describe themselves', () => {
  it('are found at the paths and methods they are mounted at, undescribed ones left out', () => {
    const runs = new Hono();
    const route = describer({ tags: ['Runs'] });
    runs.get('/runs/:id', route({ summary: 'one', responses: ok }), (c) => c.text('run'));
    runs.delete('/runs/:id', route({ summary: 'delete', responses: ok }), (c) => c.text('deleted'));
    runs.get('/hidden', (c) => c.text('no description'));
    // A router with its own error handler is mounted with its handlers wrapped.
    const keys = new Hono();
    keys.onError((_e, c) => c.text('error', 500));
    keys.post('/keys', described({ summary: 'create', responses: ok }), (c) => c.text('key'));
    const api = new Hono();
    api.route('/api-node', runs);
    api.route('/api-node', keys);
    expect(describedRoutes(api).map((r) => [r.method, r.path, r.description.summary, r.description.tags])).toEqual([
      ['get', '/api-node/runs/{id}', 'one', ['Runs']],
      ['delete', '/api-node/runs/{id}', 'delete', ['Runs']],
      ['post', '/api-node/keys', 'create', undefined],
    ]);
  });

  it('refuse one route described twice', () => {
    const app = new Hono();
    app.get('/x', described({ responses: ok }), (c) => c.text('1'));
    app.get('/x', described({ responses: ok }), (c) => c.text('2'));
    expect(() => describedRoutes(app)).toThrow('get /x is described twice');
  });

  it('make a document with a parameter for each name of the path, described or not', () => {
    const app = new Hono();
    const params = z.object({ id: z.string().regex(/^\d+$/) });
    app.get('/a/:id/b/:file', described({ request: { params }, responses: ok }), (c) => c.text('x'));
    const doc = openApiDocument(app);
    const op = doc.paths?.['/a/{id}/b/{file}'].get as { parameters: { name: string; in: string; schema: object }[] };
    expect(op.parameters).toEqual([
      expect.objectContaining({ name: 'id', in: 'path', schema: { type: 'string', pattern: '^\\d+$' } }),
      expect.objectContaining({ name: 'file', in: 'path', schema: { type: 'string' } }),
    ]);
  });
});
