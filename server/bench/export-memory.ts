/**
 * The server's peak RSS while it sends a stored run's full-resolution zip (GET
 * /api-node/runs/{id}/export?format=zip&resolution=full): a run of N photos (a real dev photo resized
 * to WIDTH px wide, each a little different) is scored and kept by one server process; a fresh one
 * then exports it while the client reads the body slowly, and its VmHWM (peak resident memory, from
 * /proc) is read before and after the export. Real processes on 127.0.0.1, PostgreSQL.
 *
 *   DATABASE_URL=postgres://mango:mango@127.0.0.1:5432/mango_x npm run bench:export-memory [-- --photos 30 --width 4000]
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import sharp from 'sharp';
import { sharedDir, SHARED_MISSING } from '@mango/core/testing/node';
import { benchDatabaseUrl, startServerProcess, type ServerProcess } from '../src/testing/cluster.ts';
import { client, signUp } from '../src/testing/accounts.ts';

const { values } = parseArgs({
  options: { photos: { type: 'string', default: '30' }, width: { type: 'string', default: '4000' } },
});
const N = Number(values.photos);
const WIDTH = Number(values.width);
const url = benchDatabaseUrl();
const shared = sharedDir();
if (!shared) {
  console.error(SHARED_MISSING);
  process.exit(2);
}

/** Peak and current resident memory of a process, MB (Linux /proc). */
function memoryOf(pid: number) {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const kb = (key: string) => Number(new RegExp(`^${key}:\\s+(\\d+) kB`, 'm').exec(status)?.[1] ?? NaN);
  return { peak: kb('VmHWM') / 1024, now: kb('VmRSS') / 1024 };
}

const source = join(shared, 'data/bruise-dev/aicup_defect_boxes/images/10911.jpg');
const photos = await Promise.all(
  Array.from({ length: N }, (_, i) =>
    sharp(source)
      .resize({ width: WIDTH })
      .modulate({ brightness: 1 + i * 0.002 })
      .jpeg({ quality: 90 })
      .toBuffer(),
  ),
);
const meta = await sharp(photos[0]).metadata();
console.log(`${N} photos of ${meta.width}x${meta.height}, ${(photos[0].length / 1e6).toFixed(1)} MB each`);

let server: ServerProcess | undefined;
try {
  server = await startServerProcess(url, { scores: true });
  const user = await signUp(client(server));
  const form = new FormData();
  for (const [i, p] of photos.entries()) form.append('images', new Blob([p], { type: 'image/jpeg' }), `p${i}.jpg`);
  form.append('method', 'classical');
  const t0 = Date.now();
  const scored = await fetch(`${server.url}/api-py/python/bruise_detection/DeepLearning`, {
    method: 'POST',
    headers: { Authorization: `Bearer ${user.accessToken}` },
    body: form,
  });
  if (!scored.ok) throw new Error(`scoring failed: ${scored.status} ${await scored.text()}`);
  const runId = ((await scored.json()) as { run_id: string }[])[0].run_id;
  console.log(`run ${runId} scored and kept in ${((Date.now() - t0) / 1000).toFixed(0)} s`);
  await server.stop();

  // a fresh process: its peak is the export's alone
  server = await startServerProcess(url, { scores: true });
  const pid = server.proc.pid!;
  const before = memoryOf(pid);
  const t1 = Date.now();
  const res = await fetch(`${server.url}/api-node/runs/${runId}/export?format=zip&resolution=full`, {
    headers: { Authorization: `Bearer ${user.accessToken}` },
  });
  if (!res.ok) throw new Error(`export failed: ${res.status} ${await res.text()}`);
  let bytes = 0;
  let firstByteS: number | null = null;
  const reader = res.body!.getReader();
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    firstByteS ??= (Date.now() - t1) / 1000;
    bytes += value.length;
  }
  const after = memoryOf(pid);
  console.log(
    `export: ${(bytes / 1e6).toFixed(1)} MB zip in ${((Date.now() - t1) / 1000).toFixed(0)} s (first byte after ${firstByteS?.toFixed(1)} s); ` +
      `server RSS ${before.now.toFixed(0)} MB before, peak ${after.peak.toFixed(0)} MB (+${(after.peak - before.peak).toFixed(0)} MB)`,
  );
} finally {
  await server?.stop();
}
