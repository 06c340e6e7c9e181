/**
 * CSV writing, once for every front end (architecture.md: one concept, one place): the CLI's
 * results files, the web's data.csv and feature_analysis_results.csv, the examples. csv-stringify's
 * browser build, because its Node build reads the global Buffer when it loads; the browser build
 * runs on Node as well, so both sides write through the same code.
 */
import { stringify } from 'csv-stringify/browser/esm/sync';
import { metaColumnNames, type PhotoMeta } from './meta.ts';

/** One field: null and undefined are written as empty fields. */
export type CsvCell = string | number | boolean | null | undefined;

/** A value that may be missing as a field: null and undefined are left blank. */
export const blank = (v: number | string | null | undefined): CsvCell => v ?? '';

export interface CsvLayout {
  /** Between rows: '\n' (default; the CLI's files) or '\r\n' (the web's downloads, RFC 4180). */
  newline?: '\n' | '\r\n';
  /** End the last row with the newline too (default true). */
  finalNewline?: boolean;
}

// OWASP "CSV Injection": a spreadsheet runs a cell that starts with = + - @ (or a tab or CR before
// one) as a formula. A text that is a plain decimal number ('-0.25', a figure formatted to text) is
// read as that number, never as a formula, so it is written as it is.
const FORMULA_START = /^[=+\-@\t\r]/;
const PLAIN_NUMBER = /^[+-]?(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][+-]?\d+)?$/;

/**
 * A text field as written to every CSV: prefixed with a single quote when a spreadsheet would read
 * it as a formula (a file name such as `=1+1.png`, an error message). Numbers are not text fields:
 * a negative number stays a number.
 */
export function csvTextCell(text: string): string {
  return FORMULA_START.test(text) && !PLAIN_NUMBER.test(text) ? `'${text}` : text;
}

/**
 * The header row, then one row per entry. A field holding a comma, a double quote, CR or LF is
 * quoted (quotes doubled); numbers are written at full precision (String(n)); a text field a
 * spreadsheet would run as a formula is neutralised (csvTextCell).
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
    cast: { number: (n) => String(n), boolean: (b) => String(b), string: csvTextCell },
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

/**
 * A table's columns followed by one column per metadata name its rows carry (issue 27: metadata
 * are columns of every table, after the table's own; a photo's repeat on each of its fruit rows).
 */
export function withMetaColumns<T>(
  columns: readonly CsvColumn<T>[],
  rows: readonly T[],
  metaOf: (row: T) => PhotoMeta | null | undefined,
): CsvColumn<T>[] {
  const names = metaColumnNames(rows.map(metaOf));
  return [...columns, ...names.map((name): CsvColumn<T> => [name, (row) => blank(metaOf(row)?.[name])])];
}
