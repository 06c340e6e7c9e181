/** CSV reading (Node: reads a file), once for the CLI's --weights, the evaluation's truth tables and the training scripts. */
import { readFileSync } from 'node:fs';
import { parse } from 'csv-parse/sync';

/** A CSV file with a header row, as one record per row keyed by the header (csv-parse; BOM removed, fields trimmed). */
export function readCsv(path: string): Record<string, string>[] {
  return parse(readFileSync(path, 'utf8'), { columns: true, bom: true, skip_empty_lines: true, trim: true });
}
