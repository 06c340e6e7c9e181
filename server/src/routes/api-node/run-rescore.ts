/**
 * POST /api-node/runs/{id}/rescore {model_id} (issue 28 item 4): re-scores one of the caller's stored
 * runs with another model version, from the photos the run kept, as a batch job on the same queue as
 * POST /api-node/jobs, answered the same way (202 {id}; the job's progress at GET /api-node/jobs/{id},
 * also named by Location). The job writes a new run whose `rescored_from` is the first; the first
 * lists it in `rescores`. The decisions are the run service's (runs/rescore.ts).
 */
import { Hono } from 'hono';
import { z } from 'zod';
import type { Needs } from '../../context.ts';
import { requireUserOrServerKey, type CallerEnv } from '../../auth/caller.ts';
import { jobView } from '../../jobs/store.ts';
import { planRescore, RescoreRefused } from '../../runs/rescore.ts';
import { describer } from '../../openapi/describe.ts';
import { err, json, jsonBody, CALLER_REFUSALS, JSON_BODY_ERRORS, USER_OR_KEY } from '../../openapi/components.ts';
import { queueCapRefusal, startJob } from './jobs.ts';
import { readJson } from './validate.ts';

export const RescoreRequest = z
  .object({
    model_id: z.string().min(1).max(200).meta({
      description: 'a model version of GET /api-node/models (built in or trained here)',
      example: 'bruise-unet-320',
    }),
  })
  .meta({ id: 'RescoreRequest' });

export function runRescoreRoutes(
  ctx: Needs<'config' | 'db' | 'dialect' | 'jobs' | 'jwtKey' | 'logger' | 'pool' | 'registry'>,
): Hono<CallerEnv> {
  const app = new Hono<CallerEnv>();
  // Authenticated once: the run routes' own middleware (mounted with them) may have done it already.
  const auth = requireUserOrServerKey(ctx);
  app.use('/runs/:id/rescore', (c, next) => (c.get('caller') ? next() : auth(c, next)));
  const route = describer({ tags: ['Runs'], security: USER_OR_KEY });

  const rescore = route({
    summary:
      'Re-score one of your runs with another model version, for comparison: a batch job (as POST /api-node/jobs) ' +
      "scores the run's kept photos again with the run's own options and that model, and writes a new run whose " +
      '`rescored_from` is this one (listed in its `rescores`). Deleting either run leaves the other',
    request: { body: jsonBody(RescoreRequest) },
    responses: {
      202: json(
        z.object({ id: z.string().meta({ description: 'the job: GET /api-node/jobs/{id} (also in Location)' }) }),
        'The job was accepted',
      ),
      400: err(
        'A malformed body, a model_id the registry does not know (the error lists the known ones, details.known), ' +
          'a run that used no model (its method is not a model) or a model of another task',
      ),
      ...CALLER_REFUSALS,
      404: err('No such run of yours'),
      409: err(
        'The photos of the run were not kept (a run made before runs kept them, or with KEEP_RUN_PHOTOS=0): the reason, and details.missing',
      ),
      413: JSON_BODY_ERRORS[413],
      415: JSON_BODY_ERRORS[415],
      429: err(
        'More than MAX_QUEUED_PHOTOS_PER_USER of your photos would be waiting (see Retry-After), or over the API key’s limit',
      ),
    },
  });
  app.post('/runs/:id/rescore', rescore, async (c) => {
    const body = await readJson(c, RescoreRequest);
    if (!body.ok) return body.response;
    const caller = c.get('caller');
    let planned;
    try {
      planned = await planRescore(
        { db: ctx.db, registry: ctx.registry, models: ctx.jobs.models },
        caller.userId,
        c.req.param('id'),
        body.data.model_id,
      );
    } catch (e) {
      if (!(e instanceof RescoreRefused)) throw e;
      return c.json({ error: e.message, ...(e.details ? { details: e.details } : {}) }, e.status);
    }
    const over = await queueCapRefusal(ctx, c, planned.photos.length);
    if (over) return over;
    const id = await startJob(ctx, caller, planned.job, planned.photos);
    // The new run names its model from the start (its photos' results say the same when they are in).
    const view = await jobView(ctx.db, id);
    if (view?.run_id)
      await ctx.db
        .updateTable('runs')
        .set({ model_id: planned.model.id, model_sha256: planned.model.sha256 })
        .where('id', '=', view.run_id)
        .where('model_id', 'is', null)
        .execute();
    c.header('Location', `/api-node/jobs/${id}`);
    return c.json({ id }, 202);
  });

  return app;
}
