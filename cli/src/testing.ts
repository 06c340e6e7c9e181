/** Test helper (not built: see tsconfig.build.json): runs the built `mango` command and returns its exit code and output. */
import { execFile } from 'node:child_process';
import { resolve } from 'node:path';
import { promisify } from 'node:util';

const run = promisify(execFile);
const BIN = resolve(import.meta.dirname, '../bin/mango.js');

export async function mango(args: string[], env: NodeJS.ProcessEnv = {}) {
  try {
    const r = await run(process.execPath, [BIN, ...args], {
      maxBuffer: 64 * 1024 * 1024,
      env: { ...process.env, ...env },
    });
    return { code: 0, stdout: r.stdout, stderr: r.stderr };
  } catch (e) {
    const err = e as { code: number; stdout: string; stderr: string };
    return { code: err.code, stdout: err.stdout, stderr: err.stderr };
  }
}
