import { serve, type ServerType } from '@hono/node-server';
import type { ServerConfig } from './config.ts';
import { createApp } from './app.ts';
import { createServerContext, type ServerContext } from './boot.ts';
import { removeStaleSpools, STALE_SPOOL_MS } from './routes/api-py/uploads.ts';

export interface RunningServer {
  port: number;
  url: string;
  ctx: ServerContext;
  close(): Promise<void>;
}

/** Starts the HTTP server; port 0 picks a free port (what the tests use). */
export async function startServer(
  config: ServerConfig,
  extra?: Parameters<typeof createServerContext>[1],
): Promise<RunningServer> {
  const ctx = await createServerContext(config, extra);
  const app = createApp(ctx);
  // Spools of uploads cut by a crash: removed at start, then swept every so often.
  await removeStaleSpools(config.uploadDir, ctx.logger);
  const sweep = setInterval(() => void removeStaleSpools(config.uploadDir, ctx.logger), STALE_SPOOL_MS / 4);
  sweep.unref();
  const server: ServerType = await new Promise((resolve) => {
    const s = serve({ fetch: app.fetch, port: config.port, hostname: config.host }, () => resolve(s));
  });
  const address = server.address();
  const port = typeof address === 'object' && address ? address.port : config.port;
  return {
    port,
    url: `http://127.0.0.1:${port}`,
    ctx,
    close: async () => {
      clearInterval(sweep);
      await new Promise<void>((resolve) => server.close(() => resolve()));
      await ctx.close();
    },
  };
}
