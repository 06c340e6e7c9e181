/**
 * The truth of a stored run's photos (issue 28): GET /api-node/runs/{id}/items/{position}/truth (the
 * latest corrected masks) and PUT (a new version, from the mask editor). Owner only: another user's
 * run answers 404 like a missing one. Saving goes through the run service (runs/truth.ts).
 */
import { Hono, type Context } from 'hono';
import { z } from 'zod';
import { decodeCocoRle, encodeCocoRle, MangoError, type AnnotationInput } from '@mango/core';
import { ownsRun } from '../../runs/store.ts';
import { PhotoTruth } from '@mango/core/results';
import type { Needs } from '../../context.ts';
import { requireUserOrServerKey, type CallerEnv } from '../../auth/caller.ts';
import { modelMasks, saveTruth, TruthConflict, truthMasks } from '../../runs/truth.ts';
import { runWhenFree } from '../../runs/service.ts';
import type { ImageJob } from '@mango/runner';
import { describer } from '../../openapi/describe.ts';
import { err, json, jsonBody, CALLER_REFUSALS, JSON_BODY_ERRORS, USER_OR_KEY } from '../../openapi/components.ts';
import { isJsonContentType, readJson } from './validate.ts';
import { exportAnnotations, importAnnotations } from '../../runs/annotations.ts';
import { zipFilesInMemory } from './job-zip.ts';
import { attachment } from './runs.ts';

/** A mask as COCO RLE (pycocotools' compressed string, or plain counts), at the photo's size. */
const MaskRle = z.object({
  size: z.tuple([z.number().int().min(1).max(100_000), z.number().int().min(1).max(100_000)]),
  counts: z.union([z.string().min(1), z.array(z.number().int().min(0)).min(1)]),
});

export const TruthRequest = z
  .object({
    fruit: MaskRle.meta({ description: 'the fruit mask (COCO RLE, size [height, width] of the photo)' }),
    bruise: MaskRle.meta({ description: 'the bruise mask (COCO RLE, the same size)' }),
    /** the model whose masks the person started from (null: the classical method) */
    model_id: z.string().max(200).nullable().optional(),
  })
  .meta({ id: 'TruthRequest' });

export const TruthResponse = PhotoTruth.extend({
  fruit: MaskRle,
  bruise: MaskRle,
}).meta({ id: 'Truth' });

export const SavedTruth = PhotoTruth.extend({
  result: z.record(z.string(), z.unknown()).meta({
    description: "The photo's figures with these masks (now in force), the model's beside them",
  }),
}).meta({ id: 'SavedTruth' });

export const ModelMasks = z
  .object({
    model_id: z.string().nullable(),
    fruit: MaskRle,
    bruise: MaskRle,
    probability: z.string().startsWith('data:image/png;base64,').optional().meta({
      description:
        "How likely each pixel is a lesion, the mask editor's magic wand's ground: the plugin's `bruise-probability` image (8-bit greyscale PNG at the photo's size, as a data URL; 0 outside the fruit). A learned model's lesion probability (255 x sigmoid of its logit); for a classical run the colour distance from the fruit's healthy peel. Absent when the kind of run declares none",
      example: 'data:image/png;base64,iVBORw0KGgo...',
    }),
  })
  .meta({ id: 'ModelMasks' });

export const AnnotationsQuery = z.object({
  format: z.literal('coco').default('coco').meta({ description: 'the export format: coco (RLE masks)' }),
});

export const ImportedAnnotations = z
  .object({
    source: z
      .string()
      .meta({ description: 'the format read, as the truths record it: import:coco, import:cvat, import:labelstudio' }),
    matched: z
      .array(z.object({ filename: z.string(), position: z.number().int(), version: z.number().int() }))
      .meta({ description: "the run's photos that got a new truth version from the file" }),
    unmatched: z
      .array(z.object({ name: z.string(), reason: z.string() }))
      .meta({ description: 'the entries of the file that gave no truth, with the reason' }),
  })
  .meta({ id: 'ImportedAnnotations' });

/** A COCO file (images, annotations, categories), as the annotations export writes and the import reads. */
const CocoFile = z
  .object({
    info: z.record(z.string(), z.unknown()).optional(),
    images: z.array(
      z.object({ id: z.union([z.number(), z.string()]), file_name: z.string(), width: z.number(), height: z.number() }),
    ),
    annotations: z.array(z.record(z.string(), z.unknown())),
    categories: z.array(z.object({ id: z.union([z.number(), z.string()]), name: z.string() }).passthrough()),
  })
  .meta({ id: 'CocoFile' });

const ZIP_TYPES = /^application\/(zip|x-zip-compressed|octet-stream)$/i;
const isZip = (b: Uint8Array) => b.length >= 4 && b[0] === 0x50 && b[1] === 0x4b && b[2] === 0x03 && b[3] === 0x04;
const ANNOTATION_TYPES =
  'Send the annotations as application/json (a COCO file or a Label Studio JSON export) or application/zip (a CVAT "Segmentation mask 1.1" export)';

const position = (c: Context) => {
  const p = c.req.param('position') ?? '';
  return /^\d{1,9}$/.test(p) ? Number(p) : null;
};

export function runTruthRoutes(
  ctx: Needs<'config' | 'db' | 'dialect' | 'images' | 'jobs' | 'jwtKey' | 'pool' | 'registry'>,
): Hono<CallerEnv> {
  const app = new Hono<CallerEnv>();
  app.use('/runs/:id/items/:position/truth', requireUserOrServerKey(ctx));
  app.use('/runs/:id/items/:position/model-masks', requireUserOrServerKey(ctx));
  app.use('/runs/:id/annotations', requireUserOrServerKey(ctx));
  const route = describer({ tags: ['Runs'], security: USER_OR_KEY });
  const noTruth = { 404: err('No such run of yours, no such photo, or (GET) it was never corrected') };

  const get = route({
    summary:
      "The latest truth of a run's photo: the masks a person corrected in the mask editor (or imported), as COCO RLE at the photo's size, with who saved them, when, and from which model's masks",
    responses: { 200: json(TruthResponse, 'The latest version'), ...CALLER_REFUSALS, ...noTruth },
  });
  app.get('/runs/:id/items/:position/truth', get, async (c) => {
    const p = position(c);
    const truth = p === null ? null : await truthMasks(ctx.db, c.get('caller').userId, c.req.param('id'), p);
    if (!truth) return c.json({ error: 'Truth not found' }, 404);
    const { masks, ...version } = truth;
    return c.json({
      ...version,
      fruit: encodeCocoRle(masks.fruit, masks.width, masks.height),
      bruise: encodeCocoRle(masks.bruise, masks.width, masks.height),
    });
  });

  const put = route({
    summary:
      "Save corrected masks of a run's photo as a new version of its truth (the mask editor's Save): the figures are counted on the kept photo, the run shows them marked corrected with the model's beside them",
    request: { body: jsonBody(TruthRequest) },
    responses: {
      201: json(SavedTruth, 'Saved: the new version and the figures now in force'),
      ...JSON_BODY_ERRORS,
      400: err('Malformed masks, or masks of another size than the photo'),
      ...CALLER_REFUSALS,
      404: err('No such run of yours, or no such photo'),
      409: err('The photo was not kept with its run, could not be scored, or its kind of run has no masks'),
    },
  });
  app.put('/runs/:id/items/:position/truth', put, async (c) => {
    const p = position(c);
    if (p === null) return c.json({ error: 'Run not found' }, 404);
    const body = await readJson(c, TruthRequest);
    if (!body.ok) return body.response;
    const { fruit, bruise, model_id } = body.data;
    if (fruit.size[0] !== bruise.size[0] || fruit.size[1] !== bruise.size[1])
      return c.json({ error: 'The fruit and bruise masks differ in size' }, 400);
    const f = decodeCocoRle(fruit);
    const b = decodeCocoRle(bruise);
    const deps = { db: ctx.db, registry: ctx.registry, runPhotos: ctx.jobs.runPhotos, images: ctx.images };
    try {
      const saved = await saveTruth(
        deps,
        c.get('caller').userId,
        c.req.param('id'),
        p,
        { width: f.width, height: f.height, fruit: f.mask, bruise: b.mask },
        { modelId: model_id ?? null, source: 'editor' },
      );
      return saved ? c.json(saved, 201) : c.json({ error: 'Run not found' }, 404);
    } catch (e) {
      if (e instanceof TruthConflict) return c.json({ error: e.message }, 409);
      throw e;
    }
  });

  const masksRoute = route({
    summary:
      "The masks the run's model gives a kept photo (the mask editor's start when it has no truth yet) and its lesion probability (the magic wand's): the photo scored again from the kept photo with the run's options, masks as COCO RLE at the photo's size",
    responses: {
      200: json(ModelMasks, 'The fruit and bruise masks'),
      ...CALLER_REFUSALS,
      404: err('No such run of yours, or no such photo'),
      409: err('The photo was not kept with its run, or its kind of run has no masks'),
    },
  });
  app.get('/runs/:id/items/:position/model-masks', masksRoute, async (c) => {
    const p = position(c);
    if (p === null) return c.json({ error: 'Run not found' }, 404);
    const score = {
      run: (job: ImageJob) => runWhenFree(ctx.pool, job),
      concurrency: 1,
      maxPixels: ctx.config.maxPixels,
      maxBytes: ctx.config.maxUploadBytes,
    };
    const deps = {
      db: ctx.db,
      registry: ctx.registry,
      runPhotos: ctx.jobs.runPhotos,
      images: ctx.images,
      score,
      models: ctx.jobs.models,
      cache: ctx.jobs.rescored,
    };
    try {
      const masks = await modelMasks(deps, c.get('caller').userId, c.req.param('id'), p);
      if (!masks) return c.json({ error: 'Run not found' }, 404);
      return c.json({
        model_id: masks.model_id,
        fruit: encodeCocoRle(masks.fruit, masks.width, masks.height),
        bruise: encodeCocoRle(masks.bruise, masks.width, masks.height),
        ...(masks.probabilityPng
          ? { probability: `data:image/png;base64,${Buffer.from(masks.probabilityPng).toString('base64')}` }
          : {}),
      });
    } catch (e) {
      if (e instanceof TruthConflict) return c.json({ error: e.message }, 409);
      throw e;
    }
  });

  const exportRoute = route({
    summary:
      "Every corrected photo of a run (the latest truth of each) as a COCO file: RLE masks, the category fruit (one annotation per fruit) and its bruise, as `mango bruise --export-coco` writes; file names are the run's photos'",
    request: { query: AnnotationsQuery },
    responses: {
      200: json(CocoFile, 'The COCO file, as an attachment'),
      400: err('Invalid query'),
      ...CALLER_REFUSALS,
      404: err('No such run of yours'),
      409: err('Its kind of run has no masks to export'),
    },
  });
  app.get('/runs/:id/annotations', exportRoute, async (c) => {
    const query = AnnotationsQuery.safeParse(c.req.query());
    if (!query.success) return c.json({ error: `Invalid format: ${query.error.issues[0].message}` }, 400);
    try {
      const out = await exportAnnotations(ctx, c.get('caller').userId, c.req.param('id'));
      if (!out) return c.json({ error: 'Run not found' }, 404);
      return c.body(JSON.stringify(out.file) + '\n', 200, {
        'Content-Type': `${out.type.mediaType}; charset=utf-8`,
        'Content-Disposition': attachment(`run-${c.req.param('id')}${out.type.suffix}`),
        'Cache-Control': 'private, no-store',
      });
    } catch (e) {
      if (e instanceof TruthConflict) return c.json({ error: e.message }, 409);
      throw e;
    }
  });

  const importRoute = route({
    summary:
      "Import corrected masks onto a run's photos: a COCO file, a Label Studio JSON export or a CVAT \"Segmentation mask 1.1\" zip, recognised from the body's type and content; each photo of the file is matched to the run's photos by file name and saved as a new truth version (source import:coco, import:labelstudio or import:cvat; figures counted on the kept photo); the answer lists what matched and what did not, with the reason",
    request: {
      body: {
        required: true,
        content: {
          'application/json': { schema: CocoFile },
          'application/zip': { schema: { type: 'string', format: 'binary' } },
        },
      },
    },
    responses: {
      200: json(ImportedAnnotations, 'What matched (a new truth version each) and what did not'),
      400: err('Not a COCO file, Label Studio export or CVAT "Segmentation mask 1.1" zip, or malformed'),
      ...CALLER_REFUSALS,
      404: err('No such run of yours'),
      409: err('Its kind of run has no masks to import'),
      413: err('Request body too large, or a zip that unpacks to more than the limit'),
      415: err('A body that is neither application/json nor application/zip'),
    },
  });
  app.post('/runs/:id/annotations', importRoute, async (c) => {
    const type = c.req.header('content-type');
    const zipType = ZIP_TYPES.test((type ?? '').split(';')[0].trim());
    if (!isJsonContentType(type) && !zipType) return c.json({ error: ANNOTATION_TYPES }, 415);
    const userId = c.get('caller').userId;
    const runId = c.req.param('id');
    if (!(await ownsRun(ctx.db, userId, runId))) return c.json({ error: 'Run not found' }, 404);
    const bytes = new Uint8Array(await c.req.arrayBuffer());
    let input: AnnotationInput;
    try {
      if (isZip(bytes)) {
        const files = await zipFilesInMemory(bytes, {
          maxFileBytes: ctx.config.maxUploadBytes,
          maxTotalBytes: ctx.config.maxRequestBytes,
          maxEntries: 100_000,
        });
        input = { kind: 'files', name: 'the zip', files };
      } else {
        let data: unknown;
        try {
          data = JSON.parse(new TextDecoder('utf-8', { fatal: true }).decode(bytes));
        } catch {
          return c.json({ error: `The body is neither JSON nor a zip. ${ANNOTATION_TYPES}` }, 400);
        }
        input = { kind: 'json', name: 'the JSON', data };
      }
      const deps = { db: ctx.db, registry: ctx.registry, runPhotos: ctx.jobs.runPhotos, images: ctx.images };
      const out = await importAnnotations(deps, userId, runId, input);
      if (!out) return c.json({ error: 'Run not found' }, 404);
      return c.json(out, 200);
    } catch (e) {
      if (e instanceof TruthConflict) return c.json({ error: e.message }, 409);
      if (e instanceof MangoError && e.code === 'INVALID_INPUT') return c.json({ error: e.message }, 400);
      if (e instanceof MangoError && e.code === 'FILE_TOO_LARGE') return c.json({ error: e.message }, 413);
      throw e;
    }
  });

  return app;
}
