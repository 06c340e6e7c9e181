/**
 * What the widget's local mode fetches, lazily and only when a visitor uses it (CORS: any origin,
 * like the bundle):
 * - /widget/ort/<file>: onnxruntime-web's WebAssembly build (the ES module and its .wasm), from the
 *   installed onnxruntime-web package, never from a CDN;
 * - /widget/models/manifest.json: the installed bruise-segmentation models (sha256 verified);
 * - /widget/models/<file>: their .onnx files.
 */
import { readFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Hono } from 'hono';
import { z } from 'zod';
import type { Needs } from '../../context.ts';
import { describer } from '../../openapi/describe.ts';
import { json, media } from '../../openapi/components.ts';

/** A manifest entry as local mode reads it (models/manifest.json's fields; `file` is its bare name). */
const ModelEntry = z.looseObject({ id: z.string(), task: z.string(), file: z.string(), sha256: z.string() });

/** The onnxruntime-web files local mode needs (WebAssembly CPU build, single-threaded in a worker). */
export const ORT_WEB_FILES: Record<string, string> = {
  'ort.wasm.bundle.min.mjs': 'text/javascript; charset=utf-8',
  'ort-wasm-simd-threaded.wasm': 'application/wasm',
};

function ortDist(): string {
  return dirname(fileURLToPath(import.meta.resolve('onnxruntime-web/wasm')));
}

export function widgetRuntimeRoutes(ctx: Needs<'jobs'>): Hono {
  const app = new Hono();
  const cache = 'public, max-age=86400';
  // The versions in force (the registry's; the shipped model until an operator activates another).
  const models = async () =>
    (await ctx.jobs.models.inForce()).filter((m) => m.task === 'bruise-segmentation' && m.file.endsWith('.onnx'));
  const fileName = (f: string) => f.split(/[\\/]/).pop()!;

  const route = describer({ tags: ['Widget'] });
  const notFound = (what: string) => media('text/plain', what, { type: 'string' });

  const ort = route({
    summary: `onnxruntime-web's WebAssembly build (file: ${Object.keys(ORT_WEB_FILES).join(' or ')}), fetched by the widget's local mode from any origin`,
    request: { params: z.object({ file: z.enum(Object.keys(ORT_WEB_FILES)) }) },
    responses: {
      200: {
        description: 'The file',
        content: Object.fromEntries(
          Object.values(ORT_WEB_FILES).map((t) => [t.split(';')[0], { schema: { type: 'string', format: 'binary' } }]),
        ),
      },
      404: notFound('Not one of the runtime files'),
    },
  });
  app.get('/ort/:file', ort, async (c) => {
    const file = c.req.param('file');
    const type = ORT_WEB_FILES[file];
    if (!type) return c.text('Not found', 404);
    const body = await readFile(join(ortDist(), file));
    return c.body(body, 200, { 'Content-Type': type, 'Cache-Control': cache });
  });

  const manifest = route({
    summary: 'The installed bruise-segmentation models (models/manifest.json entries, sha256 verified)',
    responses: { 200: json(z.object({ models: z.array(ModelEntry) }), '{ models: [...] }') },
  });
  app.get('/models/manifest.json', manifest, async (c) => {
    const list = (await models()).map((m) => ({ ...m, file: fileName(m.file) }));
    return c.json({ models: list }, 200, { 'Cache-Control': 'no-cache' });
  });

  const model = route({
    summary: 'A model file named in that manifest (the widget checks its sha256)',
    responses: { 200: media('application/octet-stream', 'The ONNX file'), 404: notFound('Not an installed model') },
  });
  app.get('/models/:file', model, async (c) => {
    const entry = (await models()).find((m) => fileName(m.file) === c.req.param('file'));
    if (!entry) return c.text('Not found', 404);
    const body = await readFile(entry.file);
    return c.body(body, 200, {
      'Content-Type': 'application/octet-stream',
      'Cache-Control': cache,
      ETag: `"${entry.sha256}"`,
    });
  });
  return app;
}
