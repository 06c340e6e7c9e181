/**
 * Photos of a batch that could not be scored (issue 27 item 5): the upload pages carry on past them
 * and list them inline with their reason. A reason comes from the server: an /api-py item with
 * `error` (and its `code` when the server gives one: each page reads its own plugin's answer,
 * pages/bruise/Bruise/results.ts and pages/analysis/Analysis/results.ts), or a stored run's failed item.
 */
import type { StoredRun } from '@mango/core/results';
import { failedItems } from './runs.ts';

export interface PhotoFailure {
  filename: string;
  /** the server's reason (it names the file) */
  error: string;
  /** the error's code (EMPTY_FILE, UNSUPPORTED_IMAGE, CORRUPT_IMAGE, ...) when the server gave one */
  code?: string;
}

/** The short reason shown per code (translated where shown); other codes show the server's text. */
export const FAILURE_REASONS: Readonly<Record<string, string | undefined>> = {
  EMPTY_FILE: 'The file is empty (0 bytes).',
  UNSUPPORTED_IMAGE: 'Not a supported image (JPEG or PNG expected).',
  CORRUPT_IMAGE: 'The image is damaged and could not be read.',
  IMAGE_TOO_LARGE: 'The image is too large.',
  FILE_TOO_LARGE: 'The file is too large.',
  NO_FOREGROUND: 'No fruit was found in the photo.',
  TIMED_OUT: 'The photo took too long to analyse.',
  INTERNAL: 'The image could not be analysed.',
};

/** The photos of a stored run (a batch job's) that could not be scored. */
export function runFailures(run: StoredRun): PhotoFailure[] {
  return failedItems(run).map(({ item, error }) => ({ filename: item.filename, error }));
}
