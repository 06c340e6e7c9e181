import { readFile } from 'node:fs/promises';
import { z } from 'zod';
import { ResultsFile } from '@mango/core/results';

export class UsageError extends Error {
  /** true when the options failed their schema: the message then points to the command's --help */
  options = false;
}

/**
 * Validates a value with a schema; a failure is a usage error with zod's readable message. `options`: the
 * value is the command's options (then the message ends by pointing to the command's --help), not a file's
 * contents.
 */
export function parseOrExit<S extends z.ZodType>(schema: S, value: unknown, { options = false } = {}): z.output<S> {
  const r = schema.safeParse(value);
  if (!r.success) throw Object.assign(new UsageError(z.prettifyError(r.error)), { options });
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
 * Text for the terminal: control characters (C0, DEL, C1), Unicode's bidirectional controls and line and
 * paragraph separators written as escapes (`\n`, `\t`, `\x1b`, `\u202e`), and a backslash as `\\`, so a file
 * named with a newline or an escape sequence cannot split the failure list into false lines, recolour the
 * terminal or show its name reversed, and a name that holds a backslash and an `n` reads apart from a
 * newline. Everything else, Unicode included, is left as it is.
 */
const ESCAPES: Record<string, string> = { '\n': '\\n', '\r': '\\r', '\t': '\\t', '\\': '\\\\' };
export const printable = (text: string): string =>
  text.replace(
    // eslint-disable-next-line no-control-regex -- matching control characters is the point
    /[\u0000-\u001f\u007f-\u009f\\\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069]/g,
    (c) => {
      const code = c.charCodeAt(0);
      return ESCAPES[c] ?? (code < 0x100 ? `\\x${code.toString(16).padStart(2, '0')}` : `\\u${code.toString(16)}`);
    },
  );
