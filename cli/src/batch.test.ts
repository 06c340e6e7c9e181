import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { createImage } from '@mango/core';
import { encodeImage } from '@mango/core/node';
import { runBatch } from './batch.ts';
import { collectInputs } from './inputs.ts';

describe('runBatch', () => {
  const dir = mkdtempSync(join(tmpdir(), 'mango-batch-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('hands each output to onResult and keeps only the figures, so a long batch does not hold every picture', async () => {
    for (const name of ['a', 'b', 'c'])
      writeFileSync(join(dir, `${name}.png`), await encodeImage(createImage(40, 30, [200, 120, 30, 255]), 'png'));
    writeFileSync(join(dir, 'broken.png'), 'not an image');
    const { files } = await collectInputs([dir]);
    const seen: Record<string, number> = {};
    const outcome = await runBatch(
      files,
      (f) => ({
        path: f.path,
        name: f.relative,
        steps: [{ plugin: 'resize', options: { width: 20, keepAspect: true } }],
        output: { format: 'png' },
        thumbnail: 16,
      }),
      {
        concurrency: 2,
        quiet: true,
        onResult: (f, r) => {
          if (r.ok) seen[f.relative] = r.image!.length;
        },
      },
    );
    // onResult got each encoded output (a PNG: 8 bytes of signature and more)...
    expect(Object.keys(seen).sort()).toEqual(['a.png', 'b.png', 'c.png']);
    expect(Object.values(seen).every((n) => n > 8)).toBe(true);
    // ...the outcome keeps the figures, in input order, and the failure with its reason.
    expect(outcome.results.map((r) => r.file.relative)).toEqual(['a.png', 'b.png', 'broken.png', 'c.png']);
    for (const { result } of outcome.results) {
      if (!result.ok) continue;
      expect(result.result).toEqual({ width: 20, height: 15 });
      expect(result.sha256).toMatch(/^[0-9a-f]{64}$/);
      expect(result.image).toBeUndefined();
      expect(result.thumbnail).toBeUndefined();
      expect(result.images).toEqual({});
    }
    expect(outcome.failed.map((f) => f.file.relative)).toEqual(['broken.png']);
  });
});
