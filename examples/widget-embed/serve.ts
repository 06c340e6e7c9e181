/**
 * A partner's page on another origin that embeds the widget from the product server, in both modes.
 * A tiny static server on node:http; the product server URL and the API key are filled into the page.
 *
 *   node --import tsx examples/widget-embed/serve.ts --server http://localhost:8080 --key mbt_... [--port 5174]
 */
import { readFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';

export interface EmbedServerOptions {
  /** the product server, e.g. http://localhost:8080 (serves /widget/ and the API) */
  productUrl: string;
  /** a partner API key whose allowed origins include this server's origin */
  apiKey?: string;
  port?: number;
  host?: string;
}

export interface EmbedServer {
  url: string;
  close(): Promise<void>;
}

const PAGES: Record<string, string> = {
  '/': 'index.html',
  '/index.html': 'index.html',
  '/module.html': 'module.html',
};

const escapeHtml = (s: string) =>
  s.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]!);

/** The page with the product server and key filled in (both HTML-escaped). */
export function renderPage(file: string, o: Pick<EmbedServerOptions, 'productUrl' | 'apiKey'>): string {
  const template = readFileSync(join(import.meta.dirname, file), 'utf8');
  return template
    .replaceAll('%MANGO_SERVER%', escapeHtml(o.productUrl.replace(/\/+$/, '')))
    .replaceAll('%MANGO_API_KEY%', escapeHtml(o.apiKey ?? ''));
}

export function startEmbedServer(o: EmbedServerOptions): Promise<EmbedServer> {
  const server: Server = createServer((req, res) => {
    const path = new URL(req.url ?? '/', 'http://x').pathname;
    const file = PAGES[path];
    if (req.method !== 'GET' || !file) {
      res.writeHead(404, { 'Content-Type': 'text/plain' }).end('Not found');
      return;
    }
    res
      .writeHead(200, { 'Content-Type': 'text/html; charset=utf-8', 'Cache-Control': 'no-store' })
      .end(renderPage(file, o));
  });
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(o.port ?? 0, o.host ?? '127.0.0.1', () => {
      const addr = server.address();
      const port = typeof addr === 'object' && addr ? addr.port : o.port;
      resolve({
        url: `http://${o.host ?? '127.0.0.1'}:${port}`,
        close: () => new Promise<void>((done) => server.close(() => done())),
      });
    });
  });
}

async function main() {
  const { values } = parseArgs({
    options: {
      server: { type: 'string', default: process.env.MANGO_SERVER ?? 'http://localhost:8080' },
      key: { type: 'string', default: process.env.MANGO_API_KEY ?? '' },
      port: { type: 'string', default: process.env.PORT ?? '5174' },
      host: { type: 'string', default: '127.0.0.1' },
    },
  });
  const embed = await startEmbedServer({
    productUrl: values.server,
    apiKey: values.key,
    port: Number(values.port),
    host: values.host,
  });
  console.log(`Partner page:        ${embed.url}/  (classic script)`);
  console.log(`ES module page:      ${embed.url}/module.html`);
  console.log(`Widget and API from: ${values.server}`);
  if (!values.key) console.log('No --key given: server mode will report a missing key; local mode works without one.');
  const stop = () => void embed.close().then(() => process.exit(0));
  process.once('SIGINT', stop);
  process.once('SIGTERM', stop);
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  main().catch((e: unknown) => {
    console.error(e instanceof Error ? e.message : e);
    process.exit(1);
  });
}
