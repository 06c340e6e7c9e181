import { describe, expect, it } from 'vitest';
import { renderToStaticMarkup } from 'react-dom/server';
import { constraints, SchemaView, schemaName } from './schema.tsx';

describe('API reference schema rendering', () => {
  it('names types in one line', () => {
    expect(schemaName({ $ref: '#/components/schemas/BruiseResultItem' })).toBe('BruiseResultItem');
    expect(schemaName({ type: 'array', items: { $ref: '#/components/schemas/BruiseResultItem' } })).toBe(
      'BruiseResultItem[]',
    );
    expect(schemaName({ type: ['string', 'null'] })).toBe('string | null');
    expect(schemaName({ type: 'string', format: 'binary' })).toBe('string (binary)');
    expect(schemaName({ enum: ['classical', 'model'] })).toBe('"classical" | "model"');
    expect(schemaName({ type: 'object', additionalProperties: { type: 'number' } })).toBe('map of number');
    expect(schemaName({ anyOf: [{ type: 'integer' }, { type: 'null' }] })).toBe('integer | null');
  });

  it('states limits and defaults', () => {
    expect(constraints({ type: 'integer', minimum: 1, maximum: 10000, default: 60 })).toBe('≥ 1, ≤ 10000, default 60');
    expect(constraints({ type: 'string' })).toBe('');
  });

  it('lists properties with required marks and links to components', () => {
    const html = renderToStaticMarkup(
      <SchemaView
        schema={{
          type: 'object',
          required: ['name'],
          properties: {
            name: { type: 'string', maxLength: 100 },
            items: { type: 'array', items: { $ref: '#/components/schemas/BruiseFruit' } },
          },
        }}
      />,
    );
    expect(html).toContain('<code>name</code>');
    expect(html).toContain('<span class="required">required</span>');
    expect(html).toContain('(max length 100)');
    expect(html).toContain('<a href="#schema-BruiseFruit">BruiseFruit</a>[]');
    expect(html).toContain('<span class="optional">optional</span>');
  });
});

describe('endpoint grouping', () => {
  it('groups operations by first tag, else first path segment, with stable anchors', async () => {
    const { anchor, groupEndpoints } = await import('./endpoints.ts');
    const groups = groupEndpoints({
      openapi: '3.1.0',
      info: { title: 't' },
      paths: {
        '/api-node/api-keys': { get: { tags: ['API Keys'] }, post: { tags: ['API Keys'] } },
        '/api-node/api-keys/{id}': { delete: { tags: ['API Keys'] } },
        '/healthz': { get: {} },
      },
    });
    expect(groups.map(([g, e]) => [g, e.map((x) => `${x.method} ${x.path}`)])).toEqual([
      ['API Keys', ['get /api-node/api-keys', 'post /api-node/api-keys', 'delete /api-node/api-keys/{id}']],
      ['healthz', ['get /healthz']],
    ]);
    expect(anchor(groups[0][1][2])).toBe('delete-api-node-api-keys-id');
  });
});
