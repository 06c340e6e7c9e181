import { readFile } from 'node:fs/promises';
import { z } from 'zod';
import { ResultsFile } from '@mango/core/results';

export class UsageError extends Error {
  /** true when the options failed their schema: the message then points to the command's --help */
  options = false;
}

/** Validates options with a plugin schema; a failure is a usage error with zod's readable message. */
export function parseOrExit<S extends z.ZodType>(schema: S, value: unknown): z.output<S> {
  const r = schema.safeParse(value);
  if (!r.success) throw Object.assign(new UsageError(z.prettifyError(r.error)), { options: true });
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

/**
 * Text for the terminal: control characters (C0, DEL, C1) written as escapes (`\n`, `\t`, `\x1b`, `\x9b`),
 * so a file named with a newline or an escape sequence cannot split the failure list into false lines or
 * recolour the terminal. Everything else, Unicode included, is left as it is.
 */
const ESCAPES: Record<string, string> = { '\n': '\\n', '\r': '\\r', '\t': '\\t' };
export const printable = (text: string): string =>
  text.replace(
    // eslint-disable-next-line no-control-regex -- matching control characters is the point
    /[\u0000-\u001f\u007f-\u009f]/g,
    (c) => ESCAPES[c] ?? `\\x${c.charCodeAt(0).toString(16).padStart(2, '0')}`,
  );
