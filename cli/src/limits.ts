/** `--max-megapixels` (default: MAX_MEGAPIXELS, else 50), the largest image a command accepts, as the server reads it. */
import type { Command } from 'commander';
import { maxPixelsFromSetting } from '@mango/core/node';
import { UsageError } from './util.ts';

export function addMaxMegapixels(cmd: Command): Command {
  return cmd.option(
    '--max-megapixels <n>',
    'largest image accepted, in megapixels (default: the MAX_MEGAPIXELS environment variable, else 50)',
  );
}

/** The pixel limit of `--max-megapixels`, else of MAX_MEGAPIXELS; a bad value is a usage error (exit 2). */
export function maxPixelsOf(o: { maxMegapixels?: string }, env: NodeJS.ProcessEnv = process.env): number {
  try {
    return o.maxMegapixels !== undefined
      ? maxPixelsFromSetting(o.maxMegapixels, '--max-megapixels')
      : maxPixelsFromSetting(env.MAX_MEGAPIXELS);
  } catch (e) {
    throw new UsageError((e as Error).message);
  }
}
