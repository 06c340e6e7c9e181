/** Multipart upload reading for the /api-py endpoints: repeated `images` files, limits, clear 4xx errors. */
import type { Context } from 'hono';
import { MangoError, sanitizeFileName } from '@mango/core';

export interface Upload {
  name: string;
  bytes: Uint8Array;
}

/** Reads the multipart body; `images` may repeat. Non-multipart bodies are refused with 415. */
export async function readMultipart(c: Context): Promise<Record<string, (string | File)[]>> {
  const type = c.req.header('content-type') ?? '';
  if (!type.toLowerCase().startsWith('multipart/form-data')) {
    throw new MangoError('UNSUPPORTED_IMAGE', 'send multipart/form-data with one or more `images` files');
  }
  let body: Record<string, string | File | (string | File)[]>;
  try {
    body = await c.req.parseBody({ all: true });
  } catch {
    throw new MangoError('INVALID_INPUT', 'the multipart body could not be read');
  }
  const out: Record<string, (string | File)[]> = {};
  for (const [k, v] of Object.entries(body)) out[k.replace(/\[\]$/, '')] = Array.isArray(v) ? v : [v];
  return out;
}

/** The uploaded files of `field` (also accepting `image` and `file` for single-file endpoints). */
export async function uploadedFiles(
  fields: Record<string, (string | File)[]>,
  maxBytes: number,
  aliases: string[] = ['images'],
): Promise<Upload[]> {
  const files: File[] = [];
  for (const a of aliases) for (const v of fields[a] ?? []) if (typeof v !== 'string') files.push(v);
  if (files.length === 0) throw new MangoError('INVALID_INPUT', 'No images were uploaded (multipart field `images`)');
  const uploads: Upload[] = [];
  for (const f of files) {
    const name = sanitizeFileName(f.name || 'image');
    if (f.size > maxBytes) {
      throw new MangoError(
        'FILE_TOO_LARGE',
        `${name}: file is ${(f.size / 1048576).toFixed(1)} MB; the limit is ${(maxBytes / 1048576).toFixed(0)} MB`,
      );
    }
    uploads.push({ name, bytes: new Uint8Array(await f.arrayBuffer()) });
  }
  return uploads;
}

/** A file name safe inside a Content-Disposition header. */
export function safeName(name: string): string {
  return (
    name
      .replace(/\.[^.]+$/, '')
      .replace(/[^A-Za-z0-9._-]/g, '_')
      .slice(0, 100) || 'image'
  );
}
