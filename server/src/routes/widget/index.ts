/**
 * What the widget's local mode fetches, lazily and only when a visitor uses it (CORS: any origin,
 * like the bundle):
 * - /widget/ort/<file>: onnxruntime-web's WebAssembly build (the ES module and its .wasm), from the
 *   installed onnxruntime-web package, never from a CDN;
 * - /widget/models/manifest.json: the installed bruise-segmentation models (sha256 verified);
 * - /widget/models/<file>: their .onnx files.
 */
import { readFile } from 'node:fs/promises';
import { dirname, isAbsolute, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Hono } from 'hono';
import type { ServerContext } from '../../context.ts';

/** The onnxruntime-web files local mode needs (WebAssembly CPU build, single-threaded in a worker). */
export const ORT_WEB_FILES: Record<string, string> = {
  'ort.wasm.bundle.min.mjs': 'text/javascript; charset=utf-8',
  'ort-wasm-simd-threaded.wasm': 'application/wasm',
};

function ortDist(): string {
  return dirname(fileURLToPath(import.meta.resolve('onnxruntime-web/wasm')));
}

export function widgetRuntimeRoutes(ctx: ServerContext, modelsDir: string): Hono {
  const app = new Hono();
  const cache = 'public, max-age=86400';
  const models = async () =>
    (await ctx.models.available('bruise-segmentation')).filter((m) => m.file.endsWith('.onnx'));
  const fileName = (f: string) => f.split(/[\\/]/).pop()!;

  app.get('/ort/:file', async (c) => {
    const file = c.req.param('file');
    const type = ORT_WEB_FILES[file];
    if (!type) return c.text('Not found', 404);
    const body = await readFile(join(ortDist(), file));
    return c.body(body, 200, { 'Content-Type': type, 'Cache-Control': cache });
  });

  app.get('/models/manifest.json', async (c) => {
    const list = (await models()).map((m) => ({ ...m, file: fileName(m.file) }));
    return c.json({ models: list }, 200, { 'Cache-Control': 'no-cache' });
  });

  app.get('/models/:file', async (c) => {
    const entry = (await models()).find((m) => fileName(m.file) === c.req.param('file'));
    if (!entry) return c.text('Not found', 404);
    const body = await readFile(isAbsolute(entry.file) ? entry.file : join(modelsDir, entry.file));
    return c.body(body, 200, {
      'Content-Type': 'application/octet-stream',
      'Cache-Control': cache,
      ETag: `"${entry.sha256}"`,
    });
  });
  return app;
}
