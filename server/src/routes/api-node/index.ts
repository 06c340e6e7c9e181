/** Every /api-node router (accounts, user data, recovery, API keys). */
import { Hono } from 'hono';
import type { Needs } from '../../context.ts';
import type { CallerEnv } from '../../auth/caller.ts';
import { accountRoutes } from './accounts.ts';
import { apiKeyRoutes } from './api-keys.ts';
import { jobRoutes } from './jobs.ts';
import { modelRoutes } from './models.ts';
import { recoveryRoutes } from './recovery.ts';
import { runRoutes } from './runs.ts';
import { runRescoreRoutes } from './run-rescore.ts';
import { runTruthRoutes } from './run-truth.ts';
import { userRoutes } from './user.ts';

export function apiNodeRoutes(
  ctx: Needs<'config' | 'db' | 'dialect' | 'images' | 'jobs' | 'jwtKey' | 'logger' | 'pool' | 'registry'>,
): Hono<CallerEnv> {
  const app = new Hono<CallerEnv>();
  app.route('/', accountRoutes(ctx));
  app.route('/', userRoutes(ctx));
  app.route('/', recoveryRoutes(ctx));
  app.route('/', apiKeyRoutes(ctx));
  app.route('/', runRoutes(ctx));
  app.route('/', runTruthRoutes(ctx));
  app.route('/', runRescoreRoutes(ctx));
  app.route('/', jobRoutes(ctx));
  app.route('/', modelRoutes(ctx));
  return app;
}
