/**
 * The metadata CSV (`--meta-csv`, field `meta_csv`; issue 27 item 1), read by csv-parse's browser
 * build (it runs on Node as well): apart from core/src/meta.ts so that only the front ends that
 * read one (the CLI, the server) carry the parser.
 */
import { parse } from 'csv-parse/browser/esm/sync';
import { bad, isMetaName, MAX_META_NAMES, type MetaTable, type PhotoMeta } from './meta.ts';

/**
 * Reads a metadata CSV (csv-parse): a header row with an `image` column (the photo's file name,
 * or its path relative to the folder given) and one column per metadata name; an empty cell is
 * null. A missing `image` column, a bad or repeated column name, or an image listed twice is a 400.
 */
export function parseMetaCsv(text: string): MetaTable {
  let records: string[][];
  try {
    records = parse(text, { bom: true, skip_empty_lines: true, trim: true, relax_column_count: false });
  } catch (e) {
    throw bad(`the metadata CSV could not be read: ${(e as Error).message}`);
  }
  if (records.length === 0) throw bad('the metadata CSV is empty (it needs a header row with an `image` column)');
  const [header, ...body] = records;
  const imageAt = header.indexOf('image');
  if (imageAt < 0) throw bad(`the metadata CSV has no \`image\` column (its columns: ${header.join(', ')})`);
  const names = header.filter((_, i) => i !== imageAt);
  for (const name of names) {
    if (!isMetaName(name)) {
      throw bad(`the metadata CSV's column \`${name}\` is not a name (a letter or _, then letters, digits or _)`);
    }
  }
  const seen = new Set<string>();
  for (const name of names) {
    if (seen.has(name)) throw bad(`the metadata CSV has the column \`${name}\` twice`);
    seen.add(name);
  }
  if (names.length === 0) throw bad('the metadata CSV has no column besides `image`');
  if (names.length > MAX_META_NAMES) throw bad(`the metadata CSV has more than ${MAX_META_NAMES} columns`);
  const rows = new Map<string, PhotoMeta>();
  body.forEach((record, k) => {
    const image = record[imageAt];
    if (!image) throw bad(`the metadata CSV's line ${k + 2} has no image`);
    if (rows.has(image)) throw bad(`the metadata CSV lists the image \`${image}\` twice`);
    rows.set(image, Object.fromEntries(names.map((n) => [n, record[header.indexOf(n)] || null])));
  });
  return { names, rows };
}
