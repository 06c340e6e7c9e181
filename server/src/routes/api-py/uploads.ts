/**
 * Multipart upload reading for the /api-py endpoints: repeated `images` files, limits, clear 4xx
 * errors. Streamed (busboy). Each file goes to a spool file on disk
 * as it arrives, so a request holds none of its files in memory (the worker thread that scores a
 * photo reads it from there); a file is stopped the moment it passes the per-file limit, and a
 * request with more files than allowed the moment the next one starts. The spool directory of a
 * request is removed when the request ends (`withUploadSpool`).
 */
import { randomUUID } from 'node:crypto';
import { createWriteStream } from 'node:fs';
import { mkdir, readdir, rm, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import type { ReadableStream as WebReadableStream } from 'node:stream/web';
import busboy from 'busboy';
import type { Context, MiddlewareHandler } from 'hono';
import { MangoError, sanitizeFileName, type Logger } from '@mango/core';
import { PRIVATE_DIR_MODE, PRIVATE_FILE_MODE } from '../../db/private-files.ts';
import { DEFAULT_REFUSED_BODY_BOUNDS, discardRestOfNodeStream } from '../../security/refused-bodies.ts';

/** A file of the request, spooled to disk. */
export interface Upload {
  /** the sent name, sanitised (sanitizeFileName) */
  name: string;
  path: string;
  size: number;
}

/** A multipart form: text values and spooled files by field name (`images[]` read as `images`). */
export type MultipartForm = Record<string, (string | Upload)[]>;

export interface MultipartLimits {
  /** largest file, bytes */
  maxFileBytes: number;
  /** most files in the request */
  maxFiles: number;
}

/** Text fields are small: a features list, a flag, a scale. */
const MAX_FIELDS = 32;
const MAX_FIELD_BYTES = 64 * 1024;

interface Spool {
  dir: string;
  created: boolean;
}

declare module 'hono' {
  interface ContextVariableMap {
    uploadSpool: Spool;
  }
}

/** A spool directory untouched (itself and its files) this long is taken as left by a crashed process. */
export const STALE_SPOOL_MS = 60 * 60_000;

/** The newest modification time of a spool entry and, for a directory, of its files (ms). */
async function lastTouched(path: string): Promise<number> {
  const own = await stat(path);
  if (!own.isDirectory()) return own.mtimeMs;
  let newest = own.mtimeMs;
  for (const name of await readdir(path)) {
    const s = await stat(join(path, name)).catch(() => null);
    if (s) newest = Math.max(newest, s.mtimeMs);
  }
  return newest;
}

/**
 * Removes the spool directories under `root` that nothing has written to for `olderThanMs`: those of
 * uploads cut by a crash (a request that ends removes its own). Run at server start and then
 * periodically; a spool still being written (by this or another instance sharing the folder) is kept.
 */
export async function removeStaleSpools(root: string, logger: Logger, olderThanMs = STALE_SPOOL_MS): Promise<number> {
  let names: string[];
  try {
    names = await readdir(root);
  } catch {
    return 0; // no upload folder yet
  }
  let removed = 0;
  for (const name of names) {
    const path = join(root, name);
    try {
      if (Date.now() - (await lastTouched(path)) < olderThanMs) continue;
      await rm(path, { recursive: true, force: true });
      removed++;
    } catch {
      // removed meanwhile, or unreadable: the next sweep tries again
    }
  }
  if (removed > 0) logger.info(`removed ${removed} stale upload spool(s) from ${root}`);
  return removed;
}

/** Gives the request a spool directory under `root` and removes it, with its files, when the request ends. */
export function withUploadSpool(root: string): MiddlewareHandler {
  return async (c, next) => {
    const spool: Spool = { dir: join(root, randomUUID()), created: false };
    c.set('uploadSpool', spool);
    try {
      await next();
    } finally {
      if (spool.created) await rm(spool.dir, { recursive: true, force: true });
    }
  };
}

/** A byte limit in MB as a refusal names it: up to two decimals (a 0.5 MB limit is not called '1 MB'). */
export const mb = (bytes: number) => String(Number((bytes / 1048576).toFixed(2)));

/**
 * Reads the multipart body, spooling the files of `fileFields`; other files are read past. Non-multipart
 * bodies are refused with 415; a file over the limit with 413, too many files or fields with 400, an
 * unreadable body with 400. On a refusal the rest of the body is read and discarded (bounded) before
 * the answer goes out, so that the client receives it.
 */
export async function readMultipart(
  c: Context,
  limits: MultipartLimits,
  fileFields: readonly string[] = ['images', 'image', 'file'],
): Promise<MultipartForm> {
  const type = c.req.header('content-type') ?? '';
  if (!type.toLowerCase().startsWith('multipart/form-data')) {
    throw new MangoError('UNSUPPORTED_IMAGE', 'send multipart/form-data with one or more `images` files');
  }
  const spool = c.get('uploadSpool');
  if (!spool) throw new Error('readMultipart needs the withUploadSpool middleware');
  const body = c.req.raw.body;
  if (!body) throw new MangoError('INVALID_INPUT', 'No images were uploaded (multipart field `images`)');
  let parser: busboy.Busboy;
  try {
    parser = busboy({
      headers: { 'content-type': type },
      // File names are UTF-8 on the wire (Thai names must survive), not busboy's default latin1.
      defParamCharset: 'utf8',
      limits: {
        fileSize: limits.maxFileBytes,
        files: limits.maxFiles,
        fields: MAX_FIELDS,
        fieldSize: MAX_FIELD_BYTES,
        parts: limits.maxFiles + MAX_FIELDS,
      },
    });
  } catch {
    throw new MangoError('INVALID_INPUT', 'the multipart body could not be read (no boundary)');
  }
  if (!spool.created) {
    await mkdir(spool.dir, { recursive: true, mode: PRIVATE_DIR_MODE });
    spool.created = true;
  }
  const source = Readable.fromWeb(body as WebReadableStream<Uint8Array>);
  const form: MultipartForm = {};
  const add = (field: string, value: string | Upload) => (form[field.replace(/\[\]$/, '')] ??= []).push(value);
  const writes: Promise<void>[] = [];
  let fileIndex = 0;

  await new Promise<void>((resolve, reject) => {
    let settled = false;
    const fail = (error: unknown) => {
      if (settled) return;
      settled = true;
      source.unpipe(parser);
      // A body stopped at the request limit (security/body-limit.ts discards its rest) or cut by the
      // client has nothing left to read here.
      if (source.destroyed) {
        reject(error);
        return;
      }
      // The rest of the body is read and thrown away (bounded) before the answer goes out, so the
      // client, still sending, receives the status instead of a reset (security/refused-bodies.ts).
      void discardRestOfNodeStream(source, c.get('refusedBodyBounds') ?? DEFAULT_REFUSED_BODY_BOUNDS).then((ended) => {
        if (!ended) {
          source.destroy();
          c.header('Connection', 'close');
        }
        reject(error);
      });
    };
    parser.on('file', (field, stream, info) => {
      if (settled || !fileFields.includes(field.replace(/\[\]$/, ''))) {
        stream.resume();
        return;
      }
      const name = sanitizeFileName(info.filename || 'image');
      const file: Upload = { name, path: join(spool.dir, String(fileIndex++)), size: 0 };
      add(field, file);
      stream.on('data', (chunk: Buffer) => (file.size += chunk.length));
      stream.on('limit', () =>
        fail(
          new MangoError(
            'FILE_TOO_LARGE',
            `${name}: file is larger than the limit of ${mb(limits.maxFileBytes)} MB; it was not read further`,
          ),
        ),
      );
      writes.push(pipeline(stream, createWriteStream(file.path, { mode: PRIVATE_FILE_MODE })).catch(fail));
    });
    parser.on('field', (field, value, info) => {
      if (info.valueTruncated) fail(new MangoError('INVALID_INPUT', `field \`${field}\` is too long`));
      else add(field, value);
    });
    parser.on('filesLimit', () =>
      fail(new MangoError('INVALID_INPUT', `Too many files: at most ${limits.maxFiles} images per request`)),
    );
    parser.on('fieldsLimit', () => fail(new MangoError('INVALID_INPUT', 'Too many form fields')));
    parser.on('partsLimit', () => fail(new MangoError('INVALID_INPUT', 'Too many form parts')));
    parser.on('error', (e: Error) =>
      fail(
        new MangoError(
          'INVALID_INPUT',
          /part header/i.test(e.message)
            ? 'the multipart body could not be read: a part header holds control characters or is over 16 KB'
            : 'the multipart body could not be read',
        ),
      ),
    );
    source.on('error', (e) =>
      fail(e instanceof MangoError ? e : new MangoError('INVALID_INPUT', 'the upload was interrupted')),
    );
    parser.on('close', () => {
      Promise.all(writes).then(() => {
        if (settled) return;
        settled = true;
        resolve();
      }, fail);
    });
    source.pipe(parser);
  });
  return form;
}

/** The spooled files of `fields` (in the order sent); none is a 400. */
export function uploadedFiles(form: MultipartForm, fields: readonly string[] = ['images']): Upload[] {
  const files = fields.flatMap((f) => (form[f] ?? []).filter((v): v is Upload => typeof v !== 'string'));
  if (files.length === 0) throw new MangoError('INVALID_INPUT', 'No images were uploaded (multipart field `images`)');
  return files;
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
