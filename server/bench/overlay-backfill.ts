/**
 * The start-up backfill of corrected overlays (issue 28; src/runs/overlay-backfill.ts) on a large
 * database: N corrected photos whose truth versions have no overlay (as the code before migration
 * 0020 saved them), each with its kept photo (a real dev photo scored and corrected over HTTP, then
 * copied N times). A server then starts on that database; measured: how long the start takes (with
 * N pending and again with none), how long the backfill takes in the background, and how long a
 * request waits while it runs (GET /api-node/runs/{id} every 100 ms).
 *
 *   npm run bench:overlay-backfill [-- --photos 200 --width 1600]        (SQLite)
 *   TEST_DATABASE_URL=postgres://... npm run bench:overlay-backfill -- --database postgres
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { randomUUID } from 'node:crypto';
import sharp from 'sharp';
import { encodeCocoRle } from '@mango/core';
import { sharedDir, SHARED_MISSING } from '@mango/core/testing/node';
import { asSavedBeforeOverlays, startTestServer, startWithUser, type TestServer } from '../src/testing/index.ts';
import { maskOf } from '../src/testing/overlays.ts';
import { insertRun } from '../src/runs/store.ts';

const { values } = parseArgs({
  options: {
    photos: { type: 'string', default: '200' },
    width: { type: 'string', default: '0' },
    database: { type: 'string', default: 'sqlite' },
  },
});
const N = Number(values.photos);
const database = values.database === 'postgres' ? 'postgres' : 'sqlite';
const shared = sharedDir();
if (!shared) {
  console.error(SHARED_MISSING);
  process.exit(2);
}
const set = join(shared, 'data/bruise-dev/synthetic_composites');
const STEM = 'syn_mangodc_3-Center_4';
let photo: Buffer = readFileSync(join(set, 'images', `${STEM}.jpg`));
if (Number(values.width) > 0)
  photo = await sharp(photo)
    .resize({ width: Number(values.width) })
    .jpeg()
    .toBuffer();
const meta = await sharp(photo).metadata();
const fruit = await maskOf(join(set, 'fruit_masks', `${STEM}.png`));

const t = await startWithUser(database);
const servers: TestServer[] = [];
try {
  const call = (server: TestServer, path: string, init: RequestInit = {}) =>
    fetch(server.url + path, { ...init, headers: { Authorization: `Bearer ${t.user.accessToken}`, ...init.headers } });
  const fd = new FormData();
  fd.append('images', new Blob([new Uint8Array(photo)]), `${STEM}.jpg`);
  const scored = await call(t.server, '/api-py/python/bruise_detection/Classical', { method: 'POST', body: fd });
  if (scored.status !== 200) throw new Error(`scoring: ${scored.status} ${await scored.text()}`);
  const runId = ((await scored.json()) as { run_id: string }[])[0].run_id;
  // masks at the photo's size (the set's fruit mask, resized when the photo was): every lesion erased
  const mask = meta.width === fruit.width ? fruit : null;
  const w = meta.width!;
  const h = meta.height!;
  const fruitMask = mask?.mask ?? new Uint8Array(w * h).fill(1);
  const put = await call(t.server, `/api-node/runs/${runId}/items/0/truth`, {
    method: 'PUT',
    headers: { 'Content-Type': 'application/json' },
    body: JSON.stringify({
      fruit: encodeCocoRle(fruitMask, w, h),
      bruise: encodeCocoRle(new Uint8Array(w * h), w, h),
      model_id: null,
    }),
  });
  if (put.status !== 201) throw new Error(`truth: ${put.status} ${await put.text()}`);

  // N copies of the corrected photo in one run, their versions without an overlay.
  const db = t.server.ctx.db;
  const run = await db.selectFrom('runs').selectAll().where('id', '=', runId).executeTakeFirstOrThrow();
  const { id: _i, ...item } = await db
    .selectFrom('run_items')
    .selectAll()
    .where('run_id', '=', runId)
    .executeTakeFirstOrThrow();
  const { id: _t, ...truth } = await db
    .selectFrom('photo_truths')
    .selectAll()
    .where('run_id', '=', runId)
    .executeTakeFirstOrThrow();
  const big = randomUUID();
  const positions = Array.from({ length: N }, (_, k) => k);
  const photos = await Promise.all(positions.map((k) => t.server.ctx.jobs.runPhotos.prepare(big, k, { bytes: photo })));
  await insertRun(
    db,
    { ...run, id: big },
    positions.map((k) => ({ ...item, run_id: big, position: k })),
    photos,
  );
  for (let k = 0; k < N; k += 50)
    await db
      .insertInto('photo_truths')
      .values(positions.slice(k, k + 50).map((p) => ({ ...truth, run_id: big, position: p })))
      .execute();
  await asSavedBeforeOverlays(db, [big]);
  console.log(
    `${database}: ${N} corrected photos of ${w}x${h} (${(photo.length / 1e3).toFixed(0)} KB) without an overlay`,
  );

  const start = async () => {
    const t0 = performance.now();
    const server = await startTestServer({ dataDir: t.server.dataDir, overlayBackfill: true }, { database });
    servers.push(server);
    return { server, ms: performance.now() - t0 };
  };
  const pending = await start();
  // requests while the backfill runs
  const waits: number[] = [];
  let polling = true;
  const poll = (async () => {
    while (polling) {
      const t0 = performance.now();
      const res = await call(pending.server, `/api-node/runs/${runId}`);
      await res.arrayBuffer();
      waits.push(performance.now() - t0);
      await new Promise((r) => setTimeout(r, 100));
    }
  })();
  const report = await pending.server.ctx.overlayBackfill;
  polling = false;
  await poll;
  const drawn = await db
    .selectFrom('photo_truths')
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .where('run_id', '=', big)
    .where('overlay_backfill', '=', 'drawn')
    .executeTakeFirstOrThrow();
  const none = await start();
  const sorted = [...waits].sort((a, b) => a - b);
  const q = (p: number) => sorted[Math.min(sorted.length - 1, Math.floor(p * sorted.length))].toFixed(0);
  console.log(
    `start with ${N} pending: ${pending.ms.toFixed(0)} ms; start with none pending: ${none.ms.toFixed(0)} ms`,
  );
  console.log(`backfill (background):`, report, `; ${Number(drawn.n)}/${N} drawn`);
  console.log(
    `GET /api-node/runs/{id} during the backfill: ${waits.length} requests, median ${q(0.5)} ms, p90 ${q(0.9)} ms, max ${q(1)} ms`,
  );
} finally {
  for (const s of servers.reverse()) await s.close();
  await t.server.close();
}
