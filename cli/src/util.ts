import { z } from 'zod';

export class UsageError extends Error {}

/** Validates options with a plugin schema; a failure is a usage error with zod's readable message. */
export function parseOrExit<S extends z.ZodType>(schema: S, value: unknown): z.output<S> {
  const r = schema.safeParse(value);
  if (!r.success) throw new UsageError(z.prettifyError(r.error));
  return r.data;
}

/** Bytes of a data: URL (the bruise overlay). */
export function dataUrlBytes(url: string): { bytes: Buffer; ext: string } {
  const m = /^data:image\/(png|jpeg);base64,(.*)$/s.exec(url);
  if (!m) throw new Error('not an image data URL');
  return { bytes: Buffer.from(m[2], 'base64'), ext: m[1] === 'png' ? '.png' : '.jpg' };
}
