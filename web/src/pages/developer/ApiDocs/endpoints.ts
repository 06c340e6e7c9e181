/** The operations of an OpenAPI document, grouped for the reference page. */
import type { OpenApiDocument, Operation } from './schema.tsx';

const METHODS = ['get', 'post', 'put', 'patch', 'delete'] as const;

export interface Endpoint {
  method: (typeof METHODS)[number];
  path: string;
  op: Operation;
}

/** Endpoints grouped by their first tag (or the first path segment), in document order. */
export function groupEndpoints(doc: OpenApiDocument): [string, Endpoint[]][] {
  const groups = new Map<string, Endpoint[]>();
  for (const [path, item] of Object.entries(doc.paths ?? {})) {
    for (const method of METHODS) {
      const op = item[method];
      if (!op) continue;
      const group = op.tags?.[0] ?? path.split('/')[1] ?? 'other';
      groups.set(group, [...(groups.get(group) ?? []), { method, path, op }]);
    }
  }
  return [...groups];
}

/** A fragment id for an endpoint: post-api-py-python-analyze. */
export const anchor = (e: Endpoint) => `${e.method}-${e.path}`.replace(/[^a-zA-Z0-9]+/g, '-').replace(/^-|-$/g, '');
