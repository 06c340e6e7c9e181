/**
 * Pixel truth for `mango eval bruise --truth PATH` (Node only): the file or folder at PATH read by
 * the format readers of eval/truth-formats.ts (COCO, CVAT "Segmentation mask 1.1", Label Studio,
 * PNG folders), which a stored run's annotation import uses too.
 */
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative, sep } from 'node:path';
import type { AnnotationFiles } from '@mango/core';
import { decodeImage } from '@mango/core/node';
import { openTruthInput } from './truth-formats.ts';
import { invalidTruth as invalid, type PixelTruth } from './truth-masks.ts';

/** The files of a folder (recursive), by their `/`-separated path inside it. */
function folderFiles(dir: string): AnnotationFiles {
  const names = (readdirSync(dir, { recursive: true, withFileTypes: true }) as import('node:fs').Dirent[])
    .filter((d) => d.isFile())
    .map((d) => relative(dir, join(d.parentPath, d.name)).split(sep).join('/'));
  return { names, read: (name) => readFileSync(join(dir, name)) };
}

/** The truth at `path`, its format recognised from its content. */
export function openTruth(path: string): PixelTruth {
  if (!existsSync(path)) throw invalid(`truth not found: ${path}`);
  if (statSync(path).isDirectory()) {
    return openTruthInput({ kind: 'files', name: path, files: folderFiles(path) }, decodeImage);
  }
  let data: unknown;
  try {
    data = JSON.parse(readFileSync(path, 'utf8'));
  } catch {
    throw invalid(`${path}: not a JSON file (COCO or Label Studio export) nor a truth folder`);
  }
  return openTruthInput({ kind: 'json', name: path, data }, decodeImage);
}
