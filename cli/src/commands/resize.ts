import { mkdir, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import type { Command } from 'commander';
import { resizeOptions } from '@mango/plugin-resize';
import { collectInputs } from '../inputs.ts';
import { runBatch, summarise } from '../batch.ts';
import { addSchemaOptions, readSchemaOptions } from '../schemaOptions.ts';
import { parseOrExit, replaceExtension } from '../util.ts';

export function resizeCommand(program: Command) {
  const cmd = program
    .command('resize')
    .description('resize images (files or directories, recursive) and write JPEGs to --out-dir')
    .argument('<inputs...>', 'image files or directories')
    .requiredOption('--out-dir <dir>', 'where the resized JPEGs go (sub-folders kept)')
    .option('--concurrency <n>', 'worker threads (default: one per core)', Number);
  addSchemaOptions(cmd, resizeOptions);
  cmd.action(async (inputs: string[], o: Record<string, unknown>) => {
    const options = parseOrExit(resizeOptions, readSchemaOptions(resizeOptions, o));
    const { files, missing } = await collectInputs(inputs);
    const outDir = String(o.outDir);
    const outcome = await runBatch(
      files,
      (f) => ({
        path: f.path,
        name: f.relative,
        steps: [{ plugin: 'resize', options }],
        output: { format: 'jpeg', quality: options.quality },
      }),
      {
        concurrency: o.concurrency as number | undefined,
        onResult: async (f, r) => {
          if (!r.ok || !r.image) return;
          const target = join(outDir, replaceExtension(f.relative, '.jpg'));
          await mkdir(dirname(target), { recursive: true });
          await writeFile(target, r.image);
        },
      },
    );
    process.exitCode = summarise(outcome, `resized to ${outDir}`, missing);
  });
}
