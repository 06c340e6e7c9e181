/**
 * Scale-out on PostgreSQL: two server instances (taking no photos themselves, JOB_WORKER=0) and two
 * `mango worker` processes on one database; a directory of photos goes in as one batch job through
 * `mango bruise --server`, and comes back as results.json. Built JavaScript (`npm run build:node`).
 *
 *   DATABASE_URL=postgres://user:pass@localhost/mango node --import tsx examples/scale-out/scale-out.ts [photos]
 */
import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import {
  client,
  MANGO_BIN,
  signUp,
  startServerProcess,
  startWorkerProcess,
  stopAll,
  type ClusterProcess,
} from '@mango/server/testing';
import { writeSamplePhotos } from '../sample-photos/generate.ts';

const url = process.env.DATABASE_URL;
if (!url) {
  console.error('set DATABASE_URL=postgres://...');
  process.exit(2);
}
const count = Number(process.argv[2] ?? 40);
const work = mkdtempSync(join(tmpdir(), 'mango-scale-out-'));
const procs: ClusterProcess[] = [];
try {
  const [a, b] = await Promise.all([startServerProcess(url), startServerProcess(url)]);
  procs.push(a, b);
  const workers = await Promise.all([startWorkerProcess(url, 1), startWorkerProcess(url, 1)]);
  procs.push(...workers);
  console.log(`instances: ${a.url} ${b.url}; workers: pid ${workers.map((w) => w.proc.pid).join(', pid ')}`);

  // A user and an API key (in a deployment: made once at /apikeys).
  const token = (await signUp(client(a))).accessToken;
  const created = await fetch(`${b.url}/api-node/api-keys`, {
    method: 'POST',
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
    body: JSON.stringify({ name: 'scale-out example', kind: 'server', allowedOrigins: [], rateLimitPerMinute: 120 }),
  });
  const { key } = (await created.json()) as { key: string };

  const photos = join(work, 'photos');
  await writeSamplePhotos(photos, count);
  const out = join(work, 'results.json');
  const t0 = performance.now();
  const r = await promisify(execFile)(process.execPath, [
    MANGO_BIN,
    'bruise',
    '--server',
    a.url,
    '--api-key',
    key,
    photos,
    '--out',
    out,
  ]);
  process.stderr.write(r.stderr);
  const file = JSON.parse(readFileSync(out, 'utf8')) as { photos: unknown[]; provenance: { run_id: string } };
  const seconds = (performance.now() - t0) / 1000;
  console.log(`${file.photos.length} photos scored in ${seconds.toFixed(1)} s; stored run ${file.provenance.run_id}`);
  console.log(`OK: two instances, two workers, one job of ${count} photos.`);
} finally {
  await stopAll(procs);
  rmSync(work, { recursive: true, force: true });
}
