/**
 * CSV writing, once for every front end (architecture.md: one concept, one place): the CLI's
 * results files, the web's data.csv and feature_analysis_results.csv, the examples. csv-stringify's
 * browser build, because its Node build reads the global Buffer when it loads; the browser build
 * runs on Node as well, so both sides write through the same code.
 */
import { stringify } from 'csv-stringify/browser/esm/sync';

/** One field: null and undefined are written as empty fields. */
export type CsvCell = string | number | boolean | null | undefined;

export interface CsvLayout {
  /** Between rows: '\n' (default; the CLI's files) or '\r\n' (the web's downloads, RFC 4180). */
  newline?: '\n' | '\r\n';
  /** End the last row with the newline too (default true). */
  finalNewline?: boolean;
}

/**
 * The header row, then one row per entry. A field holding a comma, a double quote, CR or LF is
 * quoted (quotes doubled); numbers are written at full precision (String(n)).
 */
export function toCsv(
  header: readonly string[],
  rows: readonly (readonly CsvCell[])[],
  { newline = '\n', finalNewline = true }: CsvLayout = {},
): string {
  return stringify([header, ...rows] as CsvCell[][], {
    record_delimiter: newline,
    // csv-stringify quotes a bare CR or LF only under its default delimiter unless told to.
    quote_record_delimiter: true,
    eof: finalNewline,
    cast: { number: (n) => String(n), boolean: (b) => String(b) },
  });
}

/** A column of a table written by `csvTable`: its header and how a row item gives its field. */
export type CsvColumn<T> = readonly [header: string, field: (item: T) => CsvCell];

/** `toCsv` over items, one column per [header, field] pair. */
export function csvTable<T>(columns: readonly CsvColumn<T>[], items: readonly T[], layout?: CsvLayout): string {
  return toCsv(
    columns.map(([h]) => h),
    items.map((item) => columns.map(([, field]) => field(item))),
    layout,
  );
}
