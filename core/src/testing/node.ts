/** Node-only test helpers: fixtures and the shared data folder beside the repository. */
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { decodeImage } from '../node/index.ts';

/** The repository root (the folder holding the root package.json). */
export const repoRoot = resolve(dirname(fileURLToPath(import.meta.url)), '../../..');

/** ../shared beside the repository, or null when it is absent (tests then skip with a message). */
export function sharedDir(): string | null {
  const dir = process.env.MANGO_SHARED_DIR ?? resolve(repoRoot, '../shared');
  return existsSync(join(dir, 'data')) ? dir : null;
}

export const SHARED_MISSING = 'skipped: ../shared/data is not present beside the repository';

export async function loadImageFile(path: string) {
  return decodeImage(readFileSync(path), path);
}
