/**
 * Typed errors. Every error a user can cause is a MangoError with a stable code and the HTTP status
 * the server answers with; the CLI prints `message` without a stack trace.
 */
export type MangoErrorCode =
  | 'INVALID_INPUT'
  | 'UNSUPPORTED_IMAGE'
  | 'CORRUPT_IMAGE'
  | 'EMPTY_FILE'
  | 'IMAGE_TOO_LARGE'
  | 'FILE_TOO_LARGE'
  | 'NO_FOREGROUND'
  | 'ABORTED'
  | 'PLUGIN_NOT_FOUND'
  | 'DUPLICATE_PLUGIN'
  | 'MODEL_NOT_FOUND'
  | 'NOT_AVAILABLE'
  /** the server's work queue is full: try again later (answered with Retry-After) */
  | 'BUSY'
  /** one photo took longer than the per-photo time limit */
  | 'TIMED_OUT'
  /** the photo failed a quality check the caller made strict (e.g. the bruise tool's strictQuality) */
  | 'POOR_QUALITY';

const STATUS: Record<MangoErrorCode, number> = {
  INVALID_INPUT: 400,
  UNSUPPORTED_IMAGE: 415,
  CORRUPT_IMAGE: 422,
  EMPTY_FILE: 400,
  IMAGE_TOO_LARGE: 413,
  FILE_TOO_LARGE: 413,
  NO_FOREGROUND: 422,
  ABORTED: 499,
  PLUGIN_NOT_FOUND: 404,
  DUPLICATE_PLUGIN: 500,
  MODEL_NOT_FOUND: 404,
  NOT_AVAILABLE: 501,
  BUSY: 503,
  TIMED_OUT: 422,
  POOR_QUALITY: 422,
};

export class MangoError extends Error {
  readonly code: MangoErrorCode;
  readonly status: number;
  constructor(code: MangoErrorCode, message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'MangoError';
    this.code = code;
    this.status = STATUS[code];
  }
}

export const invalidInput = (message: string) => new MangoError('INVALID_INPUT', message);
export const unsupportedImage = (message: string) => new MangoError('UNSUPPORTED_IMAGE', message);
export const corruptImage = (message: string, cause?: unknown) => new MangoError('CORRUPT_IMAGE', message, { cause });
export const emptyFile = (name?: string) =>
  new MangoError('EMPTY_FILE', name ? `${name} is empty (0 bytes)` : 'the file is empty (0 bytes)');
export const noForeground = () => new MangoError('NO_FOREGROUND', 'no foreground pixels');
export const notAvailable = (message: string) => new MangoError('NOT_AVAILABLE', message);

export function isMangoError(e: unknown): e is MangoError {
  return e instanceof MangoError;
}

/** Throws a MangoError('ABORTED') when the signal has fired; long loops call this between steps. */
export function throwIfAborted(signal: AbortSignal | undefined): void {
  if (signal?.aborted) throw new MangoError('ABORTED', 'the operation was cancelled');
}

/** A short message safe to show a user for any thrown value. */
export function userMessage(e: unknown): string {
  if (e instanceof MangoError) return e.message;
  if (e instanceof Error) return e.message;
  return String(e);
}
