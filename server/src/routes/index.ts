/** One router per feature, mounted here. */
import type { Hono } from 'hono';
import type { Needs } from '../context.ts';
import { logAction, requireCaller } from '../auth/index.ts';
import { openApiRoutes } from '../openapi/index.ts';
import { apiNodeRoutes } from './api-node/index.ts';
import { apiPyRoutes } from './api-py/index.ts';
import { runOwnerOf } from '../runs/http.ts';

export function mountRoutes(
  app: Hono,
  ctx: Needs<'config' | 'db' | 'dialect' | 'images' | 'jobs' | 'jwtKey' | 'logger' | 'pool' | 'registry'>,
): void {
  app.route('/api-node', apiNodeRoutes(ctx));
  app.route(
    '/api-py',
    apiPyRoutes(ctx, {
      auth: requireCaller(ctx),
      // Web users log their own actions (POST /api-node/user/action); partner keys are logged here.
      onBruise: async (c, _count, runId) => {
        const caller = c.get('caller');
        if (caller?.apiKeyId !== undefined) await logAction(ctx, caller, 'Bruised Area Calculation', runId);
      },
      runOwner: (c) => runOwnerOf(c, c.get('caller')),
    }),
  );
  // The document describes the app it is mounted in, every router included.
  app.route('/api', openApiRoutes(app));
}
