/**
 * No import circle anywhere (issue 24): madge reads every package's sources, type-only imports
 * included, and finds none; the same check finds the circle in a two-file fixture, so it can fail.
 * It runs in `npm test` (the unit project).
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import madge from 'madge';
import { describe, expect, it } from 'vitest';

const SOURCE_DIRS = [
  'core/src',
  'plugins',
  'models/src',
  'models/training',
  'runner/src',
  'server/src',
  'cli/src',
  'web/src',
  'widget/src',
];

const circles = async (paths: string[], baseDir: string) =>
  (
    await madge(paths, {
      baseDir,
      fileExtensions: ['ts', 'tsx'],
      tsConfig: join(import.meta.dirname, 'tsconfig.json'),
      excludeRegExp: [/node_modules/, /[\\/]dist[\\/]/],
    })
  ).circular();

describe('import circles', () => {
  it('the repository has none', async () => {
    expect(await circles(SOURCE_DIRS, import.meta.dirname)).toEqual([]);
  }, 120_000);

  it('the check finds one', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'cycle-'));
    try {
      writeFileSync(join(dir, 'a.ts'), "import type { B } from './b.ts';\nexport type A = B[];\n");
      writeFileSync(join(dir, 'b.ts'), "import type { A } from './a.ts';\nexport type B = { a: A };\n");
      expect(await circles([dir], dir)).toEqual([['a.ts', 'b.ts']]);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
