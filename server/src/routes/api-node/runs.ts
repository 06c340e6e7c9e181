/**
 * The caller's stored runs (access token or API key of theirs): /api-node/runs (list, filters, cursor pages), /runs/{id}
 * (the run and its items), /runs/{id}/export (per-fruit or per-image CSV, results JSON, zip, HTML
 * report), /runs/{id}/items/{position}/overlay (a photo's full-size overlay, when its job kept it)
 * and DELETE /runs/{id}. Another user's run answers 404, exactly like a missing one.
 */
import { Hono, type Context } from 'hono';
import { z } from 'zod';
import { Readable } from 'node:stream';
import JSZip from 'jszip';
import { provenanceSidecarName } from '@mango/core/results';
import { REPORT_LANGUAGES } from '@mango/core/i18n';
import { REPORT_CSP } from '@mango/core/report';
import {
  exportFileName,
  exportStems,
  isFailedItem,
  planRun,
  runKindOf,
  runOperations,
  type ResultFigures,
  type RunKind,
} from '@mango/core';
import type { ImageJob } from '@mango/runner';
import type { Needs } from '../../context.ts';
import { requireUserOrServerKey, type CallerEnv } from '../../auth/caller.ts';
import { deleteRun, runWhenFree } from '../../runs/service.ts';
import { rescoredImages } from '../../runs/rescored.ts';
import { fullCorrectedOverlay, isTruthImage, modelSuffix, truthExportFiles } from '../../runs/truth.ts';
import { modelsOfRun } from '../../models/registry.ts';
import {
  getRun,
  isValidCursor,
  listRuns,
  ownsRun,
  resultsFileOf,
  runItemOverlay,
  type StoredRun,
} from '../../runs/store.ts';
import { describer } from '../../openapi/describe.ts';
import { err, json, schemas, USER_OR_KEY, CALLER_REFUSALS } from '../../openapi/components.ts';

const isoDate = z
  .string()
  .refine((v) => !Number.isNaN(Date.parse(v)), 'expected an ISO date (YYYY-MM-DD) or date-time');

export const RunListQuery = z.object({
  /** a kind of run its plugin declares (`bruise`, `analyze`, `kmeans`, `remove-background`) */
  operation: z.string().trim().min(1).max(64).optional(),
  from: isoDate.optional(),
  to: isoDate.optional(),
  q: z.string().trim().max(200).optional(),
  cursor: z.string().max(500).refine(isValidCursor, 'not a cursor of this list').optional(),
  limit: z.coerce.number().int().min(1).max(100).default(20),
});

export const RunExportQuery = z.object({
  format: z.enum(['csv', 'json', 'zip', 'html', 'provenance']).default('csv'),
  /** one of the run's tables (its plugin declares them: `fruits` and `images` for bruise runs); default: the first */
  table: z.string().trim().min(1).max(64).optional(),
  threshold: z.coerce.number().min(0).max(100).optional(),
  /** format=html: the report's language (its words; the figures are the same in both) */
  lang: z.enum(REPORT_LANGUAGES).default('en').meta({
    description:
      "format=html: the report's language, en (the default) or th (Thai words, the Thai webfont embedded; the same figures)",
    example: 'th',
  }),
  /**
   * format=zip: `thumbnail` (the default, as before: the 256 px overlays the run keeps) or `full`
   * (each kept photo scored again with the run's options: its overlay at the photo's size and its masks)
   */
  resolution: z.enum(['thumbnail', 'full']).default('thumbnail'),
});

function badQuery(c: Context, error: z.ZodError) {
  const details = error.issues.map((i) => ({ path: i.path.map(String).join('.'), message: i.message }));
  return c.json({ error: `Invalid ${details[0].path}: ${details[0].message}`, details }, 400);
}

const notFound = (c: Context) => c.json({ error: 'Run not found' }, 404);

export const attachment = (name: string) => `attachment; filename="${name}"`;

const resultsOf = (run: StoredRun) => run.items.map((i) => i.result as ResultFigures);

/** The run's table `table` (default: its first) as CSV, or null when its plugin declares no such table. */
function runCsv(kind: RunKind, run: StoredRun, table?: string): { name: string; text: string } | null {
  const name = table ?? Object.keys(kind.runs.tables)[0];
  const csv = name ? kind.runs.tables[name] : undefined;
  return csv ? { name: `run-${run.id}-${name}.csv`, text: csv(resultsOf(run)) } : null;
}

/**
 * The zip's images: each entry's folder and name, and its bytes when the zip comes to it (`bytes()`
 * is called once per entry, in order, while the zip is being sent).
 */
type ZipImages = { folder: string; name: string; bytes: () => Promise<Uint8Array> }[];

/**
 * The overlay thumbnails (256 px) the run keeps, as `overlays/<stem>.overlay.jpg` (a corrected
 * photo's drawn from its truth, the model's beside it as `<stem>.model.overlay.jpg`), and the masks
 * in force of its corrected photos (their stored truth, at the photo's size).
 */
async function thumbnailImages(ctx: Needs<'db'>, kind: RunKind, run: StoredRun): Promise<ZipImages> {
  const stems = exportStems(run.items.map((i) => i.filename));
  const truths = await truthExportFiles(ctx.db, kind, run.id);
  const jpeg = (folder: string, name: string, url: string | null | undefined) => {
    const m = /^data:image\/jpeg;base64,(.*)$/s.exec(url ?? '');
    return m ? [{ folder, name, bytes: async () => new Uint8Array(Buffer.from(m[1], 'base64')) }] : [];
  };
  return run.items.flatMap((item, k) => {
    return [
      ...jpeg('overlays', `${stems[k]}.overlay.jpg`, item.overlay_thumbnail),
      ...jpeg('overlays', `${stems[k]}${modelSuffix('.overlay.jpg')}`, item.model_overlay_thumbnail),
      ...(truths.get(item.position) ?? []).map((t) => ({
        folder: t.folder,
        name: exportFileName(stems[k], t.suffix),
        bytes: async () => t.bytes,
      })),
    ];
  });
}

/**
 * An entry whose bytes are read only when the zip reaches it: a paused stream (JSZip binds it paused
 * and resumes its entries one after the other while it writes the zip).
 */
function lazyEntry(bytes: () => Promise<Uint8Array>): Readable {
  let started = false;
  return new Readable({
    read() {
      if (started) return;
      started = true;
      bytes().then(
        (b) => {
          this.push(b);
          this.push(null);
        },
        (e: unknown) => this.destroy(e as Error),
      );
    },
  });
}

/**
 * The zip, streamed: every table of the run, its images and provenance.json. The images are read
 * (for a full-resolution export: scored again) one entry at a time as the zip is written, and each
 * goes out as soon as it is made (`streamFiles`), at the pace the client reads: the server holds
 * one photo's images at a time, never the whole zip.
 */
function runZip(kind: RunKind, run: StoredRun, images: ZipImages): Readable {
  const zip = new JSZip();
  const file = resultsFileOf(run);
  for (const [name, csv] of Object.entries(kind.runs.tables)) zip.file(`${name}.csv`, csv(resultsOf(run)));
  // JPEG and PNG are compressed already: stored as they are.
  for (const image of images)
    zip.folder(image.folder)!.file(image.name, lazyEntry(image.bytes), { compression: 'STORE', binary: true });
  zip.file('provenance.json', JSON.stringify(file.provenance, null, 2) + '\n');
  return zip.generateNodeStream({ type: 'nodebuffer', compression: 'DEFLATE', streamFiles: true }) as Readable;
}

/** Why a run has no full-resolution export (409/422 with the reason), or null when it has one. */
function fullExportRefusal(
  kind: RunKind,
  run: StoredRun,
): { status: 409 | 422; error: string; missing?: string[] } | null {
  if (!kind.runs.fullExport) return { status: 422, error: `A ${run.operation} run has no full-resolution export` };
  const missing = run.items.filter((i) => !isFailedItem(i.result) && !i.photo_kept).map((i) => i.filename);
  if (missing.length === 0) return null;
  return {
    status: 409,
    error:
      `The photos of this run were not kept (${missing.length} of ${run.items.length}: a run made before runs ` +
      'kept their photos, or with KEEP_RUN_PHOTOS=0), so it has no full-resolution export; resolution=thumbnail has its 256 px overlays',
    missing,
  };
}

/**
 * The full-resolution images of a run: each kept photo scored again, with the run's options (its
 * plugin's declared `fullExport` images asked for), as `<folder>/<stem><suffix>`. A photo is scored
 * when the zip reaches its first image and let go after its last: one photo's images at a time.
 */
async function fullImages(
  ctx: Needs<'config' | 'db' | 'images' | 'jobs' | 'pool' | 'registry'>,
  kind: RunKind,
  run: StoredRun,
): Promise<ZipImages> {
  const plan = planRun(ctx.registry, run.operation, run.options);
  const asked = kind.runs.fullExport ?? [];
  const deps = {
    db: ctx.db,
    runPhotos: ctx.jobs.runPhotos,
    cache: ctx.jobs.rescored,
    score: {
      run: (job: ImageJob) => runWhenFree(ctx.pool, job),
      concurrency: 1,
      maxPixels: ctx.config.maxPixels,
      maxBytes: ctx.config.maxUploadBytes,
      models: await modelsOfRun(ctx.jobs.models, run.model_id),
    },
  };
  const score = async (item: StoredRun['items'][number]) => {
    const r = await rescoredImages(
      deps,
      plan,
      run.id,
      item,
      asked.map((a) => a.image),
    );
    if (!r.ok) throw new Error(`run ${run.id}: item ${item.position} could not be scored again: ${r.message}`);
    return r.images;
  };
  const stems = exportStems(run.items.map((i) => i.filename));
  // A corrected photo: its masks in force from its truth, the model's beside them (`.model.fruit.png`).
  const truths = await truthExportFiles(ctx.db, kind, run.id);
  return run.items.flatMap((item, k) => {
    if (isFailedItem(item.result)) return [];
    const truth = truths.get(item.position);
    // this photo's scoring, shared by its entries and dropped after the last one took its bytes
    let scoring: ReturnType<typeof score> | null = null;
    const scored = asked.map((a, j) => ({
      folder: a.folder,
      name: exportFileName(stems[k], truth && isTruthImage(kind, a.image) ? modelSuffix(a.suffix) : a.suffix),
      bytes: async () => {
        scoring ??= score(item);
        const images = await scoring;
        if (j === asked.length - 1) scoring = null;
        const image = images[a.image];
        if (!image) throw new Error(`run ${run.id}: item ${item.position} gave no ${a.image}`);
        return image.bytes;
      },
    }));
    const corrected = (truth ?? []).map((t) => ({
      folder: t.folder,
      name: exportFileName(stems[k], t.suffix),
      bytes: async () => t.bytes,
    }));
    // ... and its overlay drawn from them at the photo's size, where the model's would be.
    const overlay = truth ? asked.find((a) => a.image === kind.runs.truthImages?.overlay) : undefined;
    const model = item.model_result ?? item.result;
    const drawn =
      overlay && kind.runs.correctedOverlay
        ? [
            {
              folder: overlay.folder,
              name: exportFileName(stems[k], overlay.suffix),
              bytes: async () => {
                const deps = { db: ctx.db, runPhotos: ctx.jobs.runPhotos, images: ctx.images };
                const bytes = await fullCorrectedOverlay(deps, kind, run, { ...item, model });
                if (!bytes) throw new Error(`run ${run.id}: item ${item.position} has no corrected overlay`);
                return bytes;
              },
            },
          ]
        : [];
    return [...scored, ...corrected, ...drawn];
  });
}

export function runRoutes(
  ctx: Needs<'config' | 'db' | 'dialect' | 'images' | 'jobs' | 'jwtKey' | 'logger' | 'pool' | 'registry'>,
): Hono<CallerEnv> {
  const app = new Hono<CallerEnv>();
  // '/runs/*' also matches '/runs': one authentication (and one count against a key's limit) a request.
  app.use('/runs/*', requireUserOrServerKey(ctx));
  const route = describer({ tags: ['Runs'], security: USER_OR_KEY });
  const noRun = { 404: err('No such run of yours') };

  const list = route({
    summary: 'Your stored runs, newest first: filters by operation and date, search in file names, cursor pages',
    request: { query: RunListQuery },
    responses: { 200: json(schemas.RunPage, 'One page of runs'), 400: err('Invalid query'), ...CALLER_REFUSALS },
  });
  app.get('/runs', list, async (c) => {
    const parsed = RunListQuery.safeParse(c.req.query());
    if (!parsed.success) return badQuery(c, parsed.error);
    const { operation } = parsed.data;
    const operations = runOperations(ctx.registry);
    if (operation !== undefined && !operations.includes(operation)) {
      const message = `expected one of ${operations.join(', ')}`;
      return c.json({ error: `Invalid operation: ${message}`, details: [{ path: 'operation', message }] }, 400);
    }
    return c.json(await listRuns(ctx.db, c.get('caller').userId, parsed.data));
  });

  const one = route({
    summary: 'One of your runs with its items (file name, sha256, size, result, overlay thumbnail)',
    responses: { 200: json(schemas.StoredRun, 'The run'), ...CALLER_REFUSALS, ...noRun },
  });
  app.get('/runs/:id', one, async (c) => {
    const run = await getRun(ctx.db, c.get('caller').userId, c.req.param('id'));
    return run ? c.json(run) : notFound(c);
  });

  const overlayRoute = route({
    summary:
      "A photo's overlay at full size (as /api-py answers it), kept for a run stored by an /api-py call and for a job sent with keep_overlays=true",
    responses: {
      200: {
        description: 'The overlay as its plugin encoded it',
        content: {
          'image/jpeg': { schema: { type: 'string', format: 'binary' } },
          'image/png': { schema: { type: 'string', format: 'binary' } },
        },
      },
      ...CALLER_REFUSALS,
      404: err('No such run of yours, no such photo, or its overlay was not kept'),
    },
  });
  app.get('/runs/:id/items/:position/overlay', overlayRoute, async (c) => {
    const position = c.req.param('position');
    const overlay = /^\d{1,9}$/.test(position)
      ? await runItemOverlay(ctx.db, c.get('caller').userId, c.req.param('id'), Number(position))
      : null;
    // No such run of the caller's, no such photo, or its overlay was not kept: one answer.
    if (!overlay) return c.json({ error: 'Overlay not found' }, 404);
    return c.body(overlay.bytes, 200, { 'Content-Type': overlay.type, 'Cache-Control': 'private, no-store' });
  });

  const photoRoute = route({
    summary:
      "A photo of the run as it was uploaded (byte for byte), kept with the run since runs keep their photos (KEEP_RUN_PHOTOS; the item's photo_kept)",
    responses: {
      200: {
        description: 'The uploaded photo; its media type read from its bytes',
        content: {
          'image/jpeg': { schema: { type: 'string', format: 'binary' } },
          'image/png': { schema: { type: 'string', format: 'binary' } },
        },
      },
      ...CALLER_REFUSALS,
      404: err('No such run of yours, no such photo, or its photo was not kept'),
    },
  });
  app.get('/runs/:id/items/:position/photo', photoRoute, async (c) => {
    const id = c.req.param('id');
    const position = c.req.param('position');
    const owned = /^\d{1,9}$/.test(position) && (await ownsRun(ctx.db, c.get('caller').userId, id));
    const photo = owned ? await ctx.jobs.runPhotos.read(ctx.db, id, Number(position)) : null;
    // No such run of the caller's, no such photo, or its photo was not kept: one answer.
    if (!photo) return c.json({ error: 'Photo not found' }, 404);
    return c.body(
      photo.bytes.buffer.slice(photo.bytes.byteOffset, photo.bytes.byteOffset + photo.bytes.byteLength) as ArrayBuffer,
      200,
      {
        'Content-Type': photo.type,
        'Cache-Control': 'private, no-store',
        'X-Content-Type-Options': 'nosniff',
      },
    );
  });

  const exported = route({
    summary:
      'Export a run: csv (per-fruit table; table=images for the per-image one), json (the results file, ' +
      'same schema as `mango bruise --out results.json`), zip (both tables, overlays, provenance.json), ' +
      'html (the report; lang=th in Thai), provenance (the sidecar of the CSV). zip&resolution=full: the tables (the stored ' +
      "figures), provenance.json, and per scored photo its overlay at the photo's size, overlays/<stem>.overlay.jpg, " +
      'and its masks at the photo size, masks/<stem>.fruit.png and masks/<stem>.bruise.png (0 or 255), made by ' +
      "scoring each kept photo again with the run's options and the model it recorded (else the one in force); resolution=thumbnail (the " +
      'default) has the 256 px overlays. A corrected photo (its masks corrected in the mask editor or imported): its overlays and ' +
      "masks are those of its corrected masks, drawn as the model draws its own, and the model's are beside them as " +
      '<stem>.model.overlay.jpg and masks/<stem>.model.*.png (full resolution) or overlays/<stem>.model.overlay.jpg (thumbnails)',
    request: { query: RunExportQuery },
    responses: {
      200: {
        description: 'The file, as an attachment',
        content: {
          'text/csv': { schema: { type: 'string' } },
          // format=json: the results file; format=provenance: its provenance alone
          'application/json': { schema: z.union([schemas.ResultsFile, schemas.Provenance]) },
          'application/zip': { schema: { type: 'string', format: 'binary' } },
          'text/html': { schema: { type: 'string' } },
        },
      },
      400: err('Invalid query, a table the run does not have, or html for a run without a report'),
      ...CALLER_REFUSALS,
      ...noRun,
      409: err(
        'resolution=full of a run whose photos were not kept (made before runs kept them, or with KEEP_RUN_PHOTOS=0): the reason, and details.missing, the photos not kept',
      ),
      422: err('resolution=full of a kind of run that has no full-resolution export'),
    },
  });
  app.get('/runs/:id/export', exported, async (c) => {
    const parsed = RunExportQuery.safeParse(c.req.query());
    if (!parsed.success) return badQuery(c, parsed.error);
    const run = await getRun(ctx.db, c.get('caller').userId, c.req.param('id'));
    const kind = run && runKindOf(ctx.registry, run.operation);
    if (!run || !kind) return notFound(c);
    const { format, table, threshold, lang } = parsed.data;
    const base = `run-${run.id}`;
    const csv = runCsv(kind, run, table);
    if (!csv) {
      const tables = Object.keys(kind.runs.tables).join(', ');
      return c.json({ error: `Invalid table: a ${run.operation} run has the tables ${tables}` }, 400);
    }
    switch (format) {
      case 'csv': {
        const { name, text } = csv;
        // The provenance of this file is its sidecar: format=provenance, named as here.
        c.header('Link', `<?format=provenance>; rel="describedby"; title="${provenanceSidecarName(name)}"`);
        return c.body(text, 200, {
          'Content-Type': 'text/csv; charset=utf-8',
          'Content-Disposition': attachment(name),
        });
      }
      case 'json':
        return c.body(JSON.stringify(resultsFileOf(run), null, 2) + '\n', 200, {
          'Content-Type': 'application/json',
          'Content-Disposition': attachment(`${base}.results.json`),
        });
      case 'provenance':
        return c.body(JSON.stringify(resultsFileOf(run).provenance, null, 2) + '\n', 200, {
          'Content-Type': 'application/json',
          'Content-Disposition': attachment(provenanceSidecarName(csv.name)),
        });
      case 'zip': {
        const full = parsed.data.resolution === 'full';
        if (full) {
          const refused = fullExportRefusal(kind, run);
          if (refused) {
            const { status, error, missing } = refused;
            return c.json({ error, ...(missing ? { details: { missing } } : {}) }, status);
          }
        }
        const images = full ? await fullImages(ctx, kind, run) : await thumbnailImages(ctx, kind, run);
        const zip = runZip(kind, run, images);
        // A failure once the zip is under way (a kept photo gone, scoring failed) ends the download
        // short: the answer's status is sent already. It is logged; the client gets a broken zip.
        zip.on('error', (e) => console.error(`export of run ${run.id} failed:`, e));
        return c.body(Readable.toWeb(zip) as ReadableStream, 200, {
          'Content-Type': 'application/zip',
          'Content-Disposition': attachment(`${base}${full ? '-full' : ''}.zip`),
        });
      }
      case 'html': {
        if (!kind.runs.report) return c.json({ error: `A ${run.operation} run has no report` }, 400);
        return c.body(await kind.runs.report(resultsFileOf(run), { threshold, lang }), 200, {
          'Content-Type': 'text/html; charset=utf-8',
          'Content-Disposition': attachment(`${base}${lang === 'en' ? '' : `.${lang}`}.report.html`),
          // The report is a file to keep: nothing in it runs or loads (see reportHtml); a Thai one embeds its font.
          'Content-Security-Policy': REPORT_CSP,
          'Content-Language': lang,
        });
      }
    }
  });

  const remove = route({
    summary:
      'Delete one of your runs and its items; a job still filling the run is cancelled and its waiting photos removed',
    responses: { 200: json(schemas.Message, 'Deleted'), ...CALLER_REFUSALS, ...noRun },
  });
  app.delete('/runs/:id', remove, async (c) => {
    const deps = {
      db: ctx.db,
      photos: ctx.jobs.store,
      runPhotos: ctx.jobs.runPhotos,
      logger: ctx.logger,
      rescored: ctx.jobs.rescored,
    };
    const deleted = await deleteRun(deps, c.get('caller').userId, c.req.param('id'));
    return deleted ? c.json({ message: 'Run deleted' }) : notFound(c);
  });

  return app;
}
