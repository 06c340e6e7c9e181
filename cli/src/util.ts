import { readFile } from 'node:fs/promises';
import { z } from 'zod';
import { ResultsFile } from '@mango/core/results';

export class UsageError extends Error {}

/** Validates options with a plugin schema; a failure is a usage error with zod's readable message. */
export function parseOrExit<S extends z.ZodType>(schema: S, value: unknown): z.output<S> {
  const r = schema.safeParse(value);
  if (!r.success) throw new UsageError(z.prettifyError(r.error));
  return r.data;
}

/** A results file (`mango bruise --out results.json`, a stored run's export?format=json) read and checked: else a usage error. */
export async function readResultsFile(input: string): Promise<ResultsFile> {
  let raw: unknown;
  try {
    raw = JSON.parse(await readFile(input, 'utf8'));
  } catch (e) {
    throw new UsageError(`${input}: not a readable JSON file (${(e as Error).message})`);
  }
  return parseOrExit(ResultsFile, raw);
}
