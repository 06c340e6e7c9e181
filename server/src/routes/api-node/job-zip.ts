/**
 * The photos of a job sent as one `zip`: each entry is streamed out of the spooled zip to its own
 * spool file (yauzl reads the zip from disk; no entry, nor the zip, is held in memory whole). The
 * limits of the job apply to the entries: the per-file limit, the number of files, the file-name
 * rules (sanitizeFileName), and the total the photos unpack to (`maxTotalBytes`, MAX_JOB_MB).
 * Folders, hidden files and files that are not photos are passed over.
 *
 * Before anything is unpacked, the whole central directory is read and checked (issue 23: a 26 KB
 * zip of 40 records pointing at one 24 MB entry wrote 962 MB): the declared sizes against the
 * limits (yauzl holds each entry to its declared size while it is unpacked), and every entry's local
 * data against every other's: two records pointing at the same or overlapping bytes make the zip
 * refused (400), as no zip tool writes such a file.
 */
import { createWriteStream } from 'node:fs';
import { basename, extname, join } from 'node:path';
import { Transform } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import yauzl from 'yauzl';
import { MangoError, sanitizeFileName } from '@mango/core';
import { PRIVATE_FILE_MODE } from '../../db/private-files.ts';
import { mb, type MultipartLimits, type Upload } from '../api-py/uploads.ts';

export interface ZipLimits extends MultipartLimits {
  /** most bytes the zip's photos may unpack to, all together (MAX_JOB_MB) */
  maxTotalBytes: number;
}

const PHOTO_EXTENSIONS = new Set(['.jpg', '.jpeg', '.png', '.webp', '.tif', '.tiff']);

/** Entries of any kind (folders, `__MACOSX` companions, other files) a zip may hold, per photo allowed. */
const ENTRIES_PER_PHOTO = 4;

const isPhotoEntry = (path: string) => {
  const name = basename(path);
  return (
    !path.endsWith('/') &&
    !path.split('/').some((part) => part.startsWith('.') || part === '__MACOSX') &&
    PHOTO_EXTENSIONS.has(extname(name).toLowerCase())
  );
};

const invalid = (message: string) => new MangoError('INVALID_INPUT', message);
const unreadable = () => invalid('the zip could not be read');

/** Every record of the central directory, none of the data read. */
function readEntries(zip: yauzl.ZipFile): Promise<yauzl.Entry[]> {
  const entries: yauzl.Entry[] = [];
  return new Promise((resolve, reject) => {
    zip.on('error', () => reject(unreadable()));
    zip.on('end', () => resolve(entries));
    zip.on('entry', (entry: yauzl.Entry) => {
      entries.push(entry);
      zip.readEntry();
    });
    zip.readEntry();
  });
}

/**
 * Refuses a zip in which two records point at the same or overlapping bytes: each entry spans its
 * local header and its compressed data, [relativeOffsetOfLocalHeader, fileDataStart + compressedSize).
 */
async function refuseOverlaps(zip: yauzl.ZipFile, entries: readonly yauzl.Entry[]): Promise<void> {
  const spans: { start: number; end: number; name: string }[] = [];
  for (const entry of entries) {
    let fileDataStart: number;
    try {
      ({ fileDataStart } = await zip.readLocalFileHeaderPromise(entry, { minimal: true }));
    } catch {
      throw invalid(`the zip could not be read: the record of ${entry.fileName} points at no entry`);
    }
    spans.push({
      start: entry.relativeOffsetOfLocalHeader,
      end: fileDataStart + entry.compressedSize,
      name: entry.fileName,
    });
  }
  spans.sort((a, b) => a.start - b.start || a.end - b.end);
  let reach = spans[0];
  for (const span of spans.slice(1)) {
    if (span.start < reach.end) {
      throw invalid(
        `the zip is malformed: entries ${reach.name} and ${span.name} point at the same data (overlapping entries); nothing was unpacked`,
      );
    }
    if (span.end > reach.end) reach = span;
  }
}

export async function zipPhotos(zips: readonly Upload[], spoolDir: string, limits: ZipLimits): Promise<Upload[]> {
  if (zips.length !== 1) throw invalid('send one `zip`, or the photos as `images`');
  let zip: yauzl.ZipFile;
  try {
    zip = await yauzl.openPromise(zips[0].path, { lazyEntries: true, decodeStrings: true, autoClose: false });
  } catch {
    throw unreadable();
  }
  const photos: Upload[] = [];
  try {
    const maxEntries = limits.maxFiles * ENTRIES_PER_PHOTO + 1000;
    if (zip.entryCount > maxEntries) {
      throw invalid(`the zip holds ${zip.entryCount} entries: at most ${maxEntries} (and ${limits.maxFiles} photos)`);
    }
    const entries = await readEntries(zip);
    if (entries.length) await refuseOverlaps(zip, entries);
    const chosen: { entry: yauzl.Entry; name: string }[] = [];
    let total = 0;
    for (const entry of entries) {
      if (!isPhotoEntry(entry.fileName)) continue;
      const name = sanitizeFileName(basename(entry.fileName));
      if (chosen.length >= limits.maxFiles) {
        throw invalid(`Too many files: at most ${limits.maxFiles} photos per job`);
      }
      if (entry.uncompressedSize > limits.maxFileBytes) {
        throw new MangoError(
          'FILE_TOO_LARGE',
          `${name}: file is larger than the limit of ${mb(limits.maxFileBytes)} MB`,
        );
      }
      total += entry.uncompressedSize;
      if (total > limits.maxTotalBytes) {
        throw new MangoError(
          'FILE_TOO_LARGE',
          `the zip's photos unpack to more than the limit of ${mb(limits.maxTotalBytes)} MB for a job; nothing was unpacked`,
        );
      }
      chosen.push({ entry, name });
    }

    // Bytes written so far, all entries together: a second bound on the total, whatever the headers say.
    let written = 0;
    for (const { entry, name } of chosen) {
      const upload: Upload = { name, path: join(spoolDir, `zip-${photos.length}`), size: entry.uncompressedSize };
      photos.push(upload);
      let stream;
      try {
        stream = await zip.openReadStreamPromise(entry);
      } catch {
        throw invalid(`${name}: could not be read from the zip`);
      }
      // yauzl checks the real size against the header; this bounds it in any case.
      let seen = 0;
      const bound = new Transform({
        transform(chunk: Buffer, _enc, done) {
          seen += chunk.length;
          written += chunk.length;
          if (seen > limits.maxFileBytes) done(new MangoError('FILE_TOO_LARGE', `${name}: file is too large`));
          else if (written > limits.maxTotalBytes) {
            done(
              new MangoError('FILE_TOO_LARGE', `the zip's photos unpack to more than ${mb(limits.maxTotalBytes)} MB`),
            );
          } else done(null, chunk);
        },
      });
      try {
        await pipeline(stream, bound, createWriteStream(upload.path, { mode: PRIVATE_FILE_MODE }));
      } catch (e) {
        throw e instanceof MangoError ? e : invalid(`${name}: could not be read from the zip`);
      }
    }
  } finally {
    zip.close();
  }
  if (photos.length === 0) throw invalid('the zip holds no photos (.jpg, .jpeg, .png, .webp, .tif)');
  return photos;
}

/**
 * The files of a zip held in memory (an annotation import: POST /api-node/runs/{id}/annotations), by
 * their path inside it; folders, hidden files and `__MACOSX` companions are passed over. The same
 * checks as a job's zip before anything is unpacked (declared sizes, overlapping records), then each
 * file bounded to `maxFileBytes` and all together to `maxTotalBytes`.
 */
export async function zipFilesInMemory(
  bytes: Uint8Array,
  limits: { maxFileBytes: number; maxTotalBytes: number; maxEntries: number },
): Promise<{ names: string[]; read(name: string): Uint8Array }> {
  let zip: yauzl.ZipFile;
  try {
    zip = await yauzl.fromBufferPromise(Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength), {
      lazyEntries: true,
      decodeStrings: true,
    });
  } catch {
    throw unreadable();
  }
  const files = new Map<string, Uint8Array>();
  try {
    if (zip.entryCount > limits.maxEntries)
      throw invalid(`the zip holds ${zip.entryCount} entries: at most ${limits.maxEntries}`);
    const entries = (await readEntries(zip)).filter(
      (e) => !e.fileName.endsWith('/') && !e.fileName.split('/').some((p) => p.startsWith('.') || p === '__MACOSX'),
    );
    if (entries.length) await refuseOverlaps(zip, entries);
    let total = 0;
    for (const e of entries) {
      total += e.uncompressedSize;
      if (e.uncompressedSize > limits.maxFileBytes || total > limits.maxTotalBytes)
        throw new MangoError(
          'FILE_TOO_LARGE',
          `the zip unpacks to more than the limit of ${mb(Math.min(limits.maxFileBytes, limits.maxTotalBytes))} MB (${e.fileName})`,
        );
    }
    for (const e of entries) {
      let stream;
      try {
        stream = await zip.openReadStreamPromise(e);
      } catch {
        throw invalid(`${e.fileName}: could not be read from the zip`);
      }
      const chunks: Buffer[] = [];
      try {
        // yauzl holds each entry to the size its record declares (checked above).
        for await (const chunk of stream) chunks.push(chunk as Buffer);
      } catch {
        throw invalid(`${e.fileName}: could not be read from the zip`);
      }
      files.set(e.fileName, new Uint8Array(Buffer.concat(chunks)));
    }
  } finally {
    zip.close();
  }
  return {
    names: [...files.keys()],
    read(name) {
      const file = files.get(name);
      if (!file) throw invalid(`the zip has no ${name}`);
      return file;
    },
  };
}
