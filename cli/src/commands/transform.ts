/** A batch command for a transform plugin: every input image through the plugin, one output file each. */
import { mkdir, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import type { Command } from 'commander';
import type { AnyPlugin } from '@mango/core';
import { requireInputs, INPUTS_HELP } from '../inputs.ts';
import { addMaxMegapixels, maxPixelsOf } from '../limits.ts';
import { runBatch, summarise } from '../batch.ts';
import { addSchemaOptions, readSchemaOptions } from '../schemaOptions.ts';
import { parseOrExit } from '../util.ts';

export function transformCommand(
  program: Command,
  plugin: AnyPlugin,
  output: { format: 'png' | 'jpeg'; ext: string; description: string },
) {
  const cmd = program
    .command(plugin.id)
    .description(output.description)
    .argument('<inputs...>', INPUTS_HELP)
    .requiredOption('--out-dir <dir>', 'where the results go (sub-folders kept)')
    .option('--concurrency <n>', 'worker threads (default: one per core)', Number);
  addMaxMegapixels(cmd);
  addSchemaOptions(cmd, plugin.options);
  cmd.action(async (inputs: string[], o: Record<string, unknown>) => {
    const options = parseOrExit(plugin.options, readSchemaOptions(plugin.options, o), { options: true }) as Record<
      string,
      unknown
    >;
    const maxPixels = maxPixelsOf(o as { maxMegapixels?: string });
    const files = await requireInputs(inputs);
    const outDir = String(o.outDir);
    const quality = typeof options.quality === 'number' ? options.quality : undefined;
    const outcome = await runBatch(
      files,
      (f) => ({
        path: f.path,
        name: f.relative,
        steps: [{ plugin: plugin.id, options }],
        output: { format: output.format, quality },
      }),
      {
        concurrency: o.concurrency as number | undefined,
        maxPixels,
        onResult: async (f, r) => {
          if (!r.ok || !r.image) return;
          const target = join(outDir, f.stem + output.ext);
          await mkdir(dirname(target), { recursive: true });
          await writeFile(target, r.image);
        },
      },
    );
    process.exitCode = summarise(outcome, `${plugin.id}: written to ${outDir}`);
  });
  return cmd;
}
