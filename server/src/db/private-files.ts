/**
 * Owner-only storage: the data directory (database, JWT secret, mail outbox) is created 0700 and the
 * database files are 0600, whatever the umask lets through for other files.
 */
import { chmodSync, closeSync, existsSync, mkdirSync, openSync } from 'node:fs';

export const PRIVATE_DIR_MODE = 0o700;
export const PRIVATE_FILE_MODE = 0o600;

/** Creates `dir` (and missing parents) owner-only; an existing directory is left as its owner set it. */
export function ensurePrivateDir(dir: string): void {
  if (!existsSync(dir)) mkdirSync(dir, { recursive: true, mode: PRIVATE_DIR_MODE });
}

/**
 * Creates `file` empty and owner-only when it is missing, and makes an existing one owner-only.
 * SQLite gives its -wal and -shm files the mode of the database file.
 */
export function ensurePrivateFile(file: string): void {
  closeSync(openSync(file, 'a', PRIVATE_FILE_MODE));
  chmodSync(file, PRIVATE_FILE_MODE);
}
