/**
 * The photos of a job sent as one `zip`: each entry is streamed out of the spooled zip to its own
 * spool file (yauzl reads the zip from disk; no entry, nor the zip, is held in memory whole). The
 * limits of the job apply to the entries: the per-file limit, the number of files, the file-name
 * rules (sanitizeFileName). Folders, hidden files and files that are not photos are passed over.
 */
import { createWriteStream } from 'node:fs';
import { basename, extname, join } from 'node:path';
import { Transform } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import yauzl from 'yauzl';
import { MangoError, sanitizeFileName } from '@mango/core';
import { PRIVATE_FILE_MODE } from '../../db/private-files.ts';
import type { MultipartLimits, Upload } from '../api-py/uploads.ts';

const PHOTO_EXTENSIONS = new Set(['.jpg', '.jpeg', '.png', '.webp', '.tif', '.tiff']);

const isPhotoEntry = (path: string) => {
  const name = basename(path);
  return (
    !path.endsWith('/') &&
    !path.split('/').some((part) => part.startsWith('.') || part === '__MACOSX') &&
    PHOTO_EXTENSIONS.has(extname(name).toLowerCase())
  );
};

export async function zipPhotos(zips: readonly Upload[], spoolDir: string, limits: MultipartLimits): Promise<Upload[]> {
  if (zips.length !== 1) throw new MangoError('INVALID_INPUT', 'send one `zip`, or the photos as `images`');
  let zip: yauzl.ZipFile;
  try {
    zip = await yauzl.openPromise(zips[0].path, { lazyEntries: true, decodeStrings: true });
  } catch {
    throw new MangoError('INVALID_INPUT', 'the zip could not be read');
  }
  const photos: Upload[] = [];
  try {
    await new Promise<void>((resolve, reject) => {
      zip.on('error', () => reject(new MangoError('INVALID_INPUT', 'the zip could not be read')));
      zip.on('end', () => resolve());
      zip.on('entry', (entry: yauzl.Entry) => {
        if (!isPhotoEntry(entry.fileName)) return zip.readEntry();
        const name = sanitizeFileName(basename(entry.fileName));
        if (photos.length >= limits.maxFiles) {
          return reject(new MangoError('INVALID_INPUT', `Too many files: at most ${limits.maxFiles} photos per job`));
        }
        if (entry.uncompressedSize > limits.maxFileBytes) {
          return reject(
            new MangoError(
              'FILE_TOO_LARGE',
              `${name}: file is larger than the limit of ${(limits.maxFileBytes / 1048576).toFixed(0)} MB`,
            ),
          );
        }
        const upload: Upload = { name, path: join(spoolDir, `zip-${photos.length}`), size: entry.uncompressedSize };
        photos.push(upload);
        zip
          .openReadStreamPromise(entry)
          .then((stream) => {
            // yauzl checks the real size against the header; this bounds it in any case.
            let seen = 0;
            const bound = new Transform({
              transform(chunk: Buffer, _enc, done) {
                seen += chunk.length;
                done(
                  seen > limits.maxFileBytes ? new MangoError('FILE_TOO_LARGE', `${name}: file is too large`) : null,
                  chunk,
                );
              },
            });
            return pipeline(stream, bound, createWriteStream(upload.path, { mode: PRIVATE_FILE_MODE }));
          })
          .then(
            () => zip.readEntry(),
            (e) =>
              reject(
                e instanceof MangoError
                  ? e
                  : new MangoError('INVALID_INPUT', `${name}: could not be read from the zip`),
              ),
          );
      });
      zip.readEntry();
    });
  } finally {
    zip.close();
  }
  if (photos.length === 0)
    throw new MangoError('INVALID_INPUT', 'the zip holds no photos (.jpg, .jpeg, .png, .webp, .tif)');
  return photos;
}
