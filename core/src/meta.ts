/**
 * Experiment metadata of a photo (issue 27 item 1), read once for every front end (the CLI's
 * `--meta` / `--meta-csv`, the `meta` / `meta_csv` fields of /api-py and the jobs API, the web's
 * upload pages): a name pattern matched against the file name's stem
 * (`cv-{cultivar}_day{day}_trt-{treatment}_fruit{fruit_id}`) and a CSV joined on its `image`
 * column. Each photo gets an object name -> text (null: no value), which becomes columns of every
 * table after the table's own columns. `fruit_id` is by convention the physical fruit followed over
 * photos and runs (not the table's `fruit`, the fruit's number within its photo).
 * Browser-safe: no Node imports (the caller hashes the CSV's bytes). The CSV reader is apart, in
 * core/src/meta-csv.ts (`@mango/core/meta-csv`), so that bundles that only type metadata (the web
 * app, the widget) do not carry the CSV parser.
 */
import { z } from 'zod';
import { MangoError } from './errors.ts';

/** A photo's metadata: name -> value (null when the pattern did not match or the CSV has no value). */
export const PhotoMeta = z.record(z.string(), z.string().nullable()).meta({
  description:
    "The photo's experiment metadata (fields `meta` / `meta_csv`): name -> value, null when the file name did not match the pattern or the CSV has no value for it",
});
export type PhotoMeta = z.infer<typeof PhotoMeta>;

/** Where the metadata of a batch came from, as its provenance keeps it. */
export const MetaProvenance = z.object({
  /** the name pattern (`--meta`, field `meta`), or null */
  pattern: z.string().nullable(),
  /** sha256 (hex) of the metadata CSV's bytes (`--meta-csv`, field `meta_csv`), or null */
  csv_sha256: z.string().nullable(),
  /** the metadata names, in column order */
  names: z.array(z.string()),
});
export type MetaProvenance = z.infer<typeof MetaProvenance>;

/** A name of a pattern field or a CSV column: a letter or `_`, then letters, digits and `_`. */
const NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;
/** The most metadata names (columns) one batch may carry. */
export const MAX_META_NAMES = 50;

/** A metadata name: a letter or `_`, then letters, digits and `_`. */
export const isMetaName = (name: string) => NAME.test(name);
/** The longest pattern accepted. */
export const MAX_META_PATTERN = 500;

export const bad = (message: string) => new MangoError('INVALID_INPUT', message);

/** A compiled name pattern. */
export interface MetaPattern {
  pattern: string;
  /** the field names, in the order they appear */
  names: string[];
  regex: RegExp;
}

const escapeRegex = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/**
 * Compiles a name pattern: `{name}` is a field (one or more characters, as few as the rest allows),
 * `*` any text (none included) that is not kept, everything else literal. The whole stem must
 * match. Two fields need text between them; a name may appear once. A bad pattern is a 400 (usage
 * error in the CLI) with the reason.
 */
export function compileMetaPattern(pattern: string): MetaPattern {
  if (pattern.trim() === '') throw bad('the metadata pattern is empty');
  if (pattern.length > MAX_META_PATTERN)
    throw bad(`the metadata pattern is longer than ${MAX_META_PATTERN} characters`);
  const names: string[] = [];
  let source = '';
  let lastWasField = false;
  const parts = pattern.split(/(\{[^{}]*\})/);
  for (const part of parts) {
    if (part.startsWith('{') && part.endsWith('}') && part.length >= 2) {
      const name = part.slice(1, -1);
      if (!NAME.test(name)) {
        throw bad(
          `metadata pattern \`${pattern}\`: \`${part}\` is not a field name (a letter or _, then letters, digits or _)`,
        );
      }
      if (names.includes(name)) throw bad(`metadata pattern \`${pattern}\`: the field \`${name}\` appears twice`);
      if (lastWasField) {
        throw bad(`metadata pattern \`${pattern}\`: the fields before \`${part}\` need text between them`);
      }
      names.push(name);
      source += '(.+?)';
      lastWasField = true;
    } else if (part !== '') {
      if (/[{}]/.test(part)) throw bad(`metadata pattern \`${pattern}\`: a \`{\` or \`}\` without its pair`);
      source += part.split('*').map(escapeRegex).join('.*?');
      lastWasField = false;
    }
  }
  if (names.length === 0) throw bad(`metadata pattern \`${pattern}\` has no field such as {cultivar}`);
  if (names.length > MAX_META_NAMES)
    throw bad(`metadata pattern \`${pattern}\` has more than ${MAX_META_NAMES} fields`);
  return { pattern, names, regex: new RegExp(`^${source}$`, 's') };
}

/** A metadata table: the CSV's columns besides `image`, and each image's row. */
export interface MetaTable {
  names: string[];
  /** by the `image` column's text (a file name or a relative path) */
  rows: Map<string, PhotoMeta>;
}

/** What a batch's metadata come from: a pattern, a CSV, or both. */
export interface MetaSpec {
  pattern?: MetaPattern;
  table?: MetaTable;
  /** sha256 (hex) of the CSV's bytes, for the provenance */
  csvSha256?: string;
}

/** The metadata names of a spec, in column order: the pattern's, then the CSV's. */
export const metaNames = (spec: MetaSpec): string[] => [...(spec.pattern?.names ?? []), ...(spec.table?.names ?? [])];

/**
 * Builds a spec from a pattern's text (absent or blank: none) and a metadata table (read by
 * `parseMetaCsv`, core/src/meta-csv.ts); undefined when neither. Its names are checked against the
 * columns its tables already have (`reserved`, compared without case): a metadata name equal to
 * one, or given by both the pattern and the CSV, is a 400 naming it.
 */
export function metaSpec(
  input: { pattern?: string | null; table?: MetaTable; csvSha256?: string | null },
  reserved: readonly string[],
): MetaSpec | undefined {
  const pattern = input.pattern?.trim() ? compileMetaPattern(input.pattern.trim()) : undefined;
  const table = input.table;
  if (!pattern && !table) return undefined;
  const spec: MetaSpec = { pattern, table, ...(input.csvSha256 ? { csvSha256: input.csvSha256 } : {}) };
  const names = metaNames(spec);
  const both = pattern?.names.find((n) => table?.names.includes(n));
  if (both) throw bad(`the metadata name \`${both}\` is given by both the pattern and the CSV`);
  if (names.length > MAX_META_NAMES) throw bad(`more than ${MAX_META_NAMES} metadata names`);
  const taken = new Map(reserved.map((r) => [r.toLowerCase(), r]));
  for (const name of names) {
    const column = taken.get(name.toLowerCase());
    if (column !== undefined) {
      throw bad(
        `the metadata name \`${name}\` is a column of the results already (\`${column}\`); rename it (for the physical fruit followed over photos use \`fruit_id\`)`,
      );
    }
  }
  return spec;
}

/** A file name's stem: its last path part without the extension. */
export function fileStem(filename: string): string {
  const base = filename.split(/[\\/]/).pop() ?? filename;
  const dot = base.lastIndexOf('.');
  return dot > 0 ? base.slice(0, dot) : base;
}

/** A photo's metadata, with a warning line for each source that gave it nothing. */
export interface PhotoMetaOutcome {
  meta: PhotoMeta;
  warnings: string[];
}

/**
 * The metadata of the photo `filename` (a file name or a relative path): the pattern's fields from
 * the stem, the CSV's row by the name as given or by its last part. A stem the pattern does not
 * match, or a photo the CSV does not list, gets null for those names and a warning.
 */
export function metaFor(spec: MetaSpec, filename: string): PhotoMetaOutcome {
  const meta: PhotoMeta = {};
  const warnings: string[] = [];
  if (spec.pattern) {
    const m = spec.pattern.regex.exec(fileStem(filename));
    spec.pattern.names.forEach((name, i) => (meta[name] = m ? m[i + 1] : null));
    if (!m) {
      warnings.push(
        `${filename}: the file name does not match the metadata pattern ${spec.pattern.pattern}; its metadata cells are empty`,
      );
    }
  }
  if (spec.table) {
    const base = filename.split(/[\\/]/).pop() ?? filename;
    const row = spec.table.rows.get(filename) ?? spec.table.rows.get(base);
    for (const name of spec.table.names) meta[name] = row?.[name] ?? null;
    if (!row) warnings.push(`${filename}: no row of the metadata CSV names it (column image); its cells are empty`);
  }
  return { meta, warnings };
}

/** The provenance of a spec (null without one). */
export const metaProvenance = (spec: MetaSpec | undefined): MetaProvenance | null =>
  spec ? { pattern: spec.pattern?.pattern ?? null, csv_sha256: spec.csvSha256 ?? null, names: metaNames(spec) } : null;

/**
 * The metadata names of a table's rows, in the order they first appear (every photo of a batch
 * has the same names; rows of older runs have none).
 */
export function metaColumnNames(metas: readonly (PhotoMeta | null | undefined)[]): string[] {
  const names: string[] = [];
  for (const m of metas) for (const name of Object.keys(m ?? {})) if (!names.includes(name)) names.push(name);
  return names;
}
