/**
 * Start-up cost of the `mango` command (npm run bench:startup):
 * - `mango --version`, wall time of the whole process;
 * - a one-photo `mango bruise` (classical and model): wall time minus the analysis's own
 *   elapsed_ms (from the CSV), i.e. what the CLI spends outside the analysis (Node start, loading
 *   the plugins, the worker thread, decoding arguments, writing the CSV).
 * Targets (issue 15): --version under 0.3 s; at most 0.5 s outside the analysis.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { quantile } from '@mango/core';

const BIN = resolve(import.meta.dirname, '../bin/mango.js');
const PHOTO = resolve(import.meta.dirname, '../../models/fixtures/sample-1.png');
const runs = Number(process.argv[2] ?? 7);

function wall(args: string[]): number {
  const t = performance.now();
  execFileSync(process.execPath, [BIN, ...args], { stdio: 'ignore' });
  return (performance.now() - t) / 1000;
}

const quantiles = (xs: number[]) =>
  `median ${quantile(xs, 0.5)!.toFixed(3)} s (min ${Math.min(...xs).toFixed(3)}, max ${Math.max(...xs).toFixed(3)})`;

const version = Array.from({ length: runs }, () => wall(['--version']));
console.log(`mango --version: ${quantiles(version)} over ${runs} runs (target < 0.3 s)`);

const dir = mkdtempSync(join(tmpdir(), 'mango-startup-'));
for (const method of ['classical', 'model']) {
  const outside: number[] = [];
  for (let i = 0; i < runs; i++) {
    const csv = join(dir, `${method}-${i}.csv`);
    const t = wall(['bruise', PHOTO, '--method', method, '--concurrency', '1', '--out', csv]);
    const [header, row] = readFileSync(csv, 'utf8').trim().split('\n');
    const elapsedMs = Number(row.split(',')[header.split(',').indexOf('elapsed_ms')]);
    outside.push(t - elapsedMs / 1000);
  }
  console.log(
    `mango bruise, one 480x360 photo, ${method}: outside the analysis ${quantiles(outside)} (target <= 0.5 s)`,
  );
}
rmSync(dir, { recursive: true, force: true });
