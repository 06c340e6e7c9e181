import type { CsvLayout } from '@mango/core/csv';

/** Saves a blob under a file name through a temporary link (the browser's ordinary download). */
export function downloadBlob(blob: Blob, fileName: string): void {
  const url = URL.createObjectURL(blob);
  const a = document.createElement('a');
  a.href = url;
  a.download = fileName;
  document.body.appendChild(a);
  a.click();
  a.remove();
  // Revoke later: some browsers read the URL after click() returns.
  setTimeout(() => URL.revokeObjectURL(url), 10_000);
}

/** The name without its last extension: 'a.b.jpg' -> 'a.b'. */
export function fileStem(name: string): string {
  const dot = name.lastIndexOf('.');
  return dot > 0 ? name.slice(0, dot) : name;
}

/** The CSV files the web downloads: CRLF between rows and none after the last, as they have always been. */
export const DOWNLOAD_CSV: CsvLayout = { newline: '\r\n', finalNewline: false };
