/** The model registry, read only: GET /api-node/models (the versions, and the one in force per task). */
import { Hono } from 'hono';
import { z } from 'zod';
import type { Needs } from '../../context.ts';
import { requireUser, type CallerEnv } from '../../auth/caller.ts';
import { describer } from '../../openapi/describe.ts';
import { json, SIGNED_IN, USER_ONLY } from '../../openapi/components.ts';

const Figures = z.object({ error_p90: z.number(), ccc: z.number() });

export const ModelVersionView = z
  .object({
    id: z.string(),
    task: z.string(),
    sha256: z.string(),
    builtin: z.boolean().describe('a read-only model of MODELS_DIR (the shipped one)'),
    base_id: z.string().nullable().describe('the version it was fine-tuned from'),
    created_at: z.string().nullable(),
    created_by: z.string().nullable(),
    active: z.boolean().describe('in force for its task: new photos are scored with it'),
    evaluation: z
      .object({
        held_out: z.number().int(),
        candidate: Figures,
        baseline: Figures.extend({ model_id: z.string() }),
        split: z.string().optional(),
      })
      .nullable()
      .describe('its figures on held-out corrections beside the model in force when it was trained'),
  })
  .meta({ id: 'ModelVersion' });

export const ModelsView = z
  .object({
    active: z.record(z.string(), z.string()).describe('task -> the version in force'),
    versions: z.array(ModelVersionView),
  })
  .meta({ id: 'Models' });

export function modelRoutes(ctx: Needs<'db' | 'jobs' | 'jwtKey'>): Hono<CallerEnv> {
  const app = new Hono<CallerEnv>();
  app.use('/models', requireUser(ctx));
  const route = describer({ tags: ['Models'], security: USER_ONLY });

  const list = route({
    summary:
      'The model versions (built-in and trained here) and the one in force per task; activation is the operator’s (`mango models activate`)',
    responses: { 200: json(ModelsView, 'Versions, built-in first, then oldest first'), ...SIGNED_IN },
  });
  app.get('/models', list, async (c) => {
    const versions = (await ctx.jobs.models.list()).map(({ card: _card, ...v }) => v);
    const active = Object.fromEntries(versions.filter((v) => v.active).map((v) => [v.task, v.id]));
    return c.json(ModelsView.parse({ active, versions }));
  });
  return app;
}
