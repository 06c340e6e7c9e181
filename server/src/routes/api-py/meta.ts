/**
 * The experiment-metadata fields of /api-py and the jobs API (issue 27 item 1): `meta`, a name
 * pattern (`cv-{cultivar}_day{day}`), and `meta_csv`, a CSV whose `image` column holds the file
 * name, as a text field or a file part. Read by core/src/meta.ts for the kinds of run the call
 * stores (a metadata name equal to one of their columns is a 400); each photo gets its metadata,
 * and a warning when its name gives none.
 */
import { createHash } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { z } from 'zod';
import { metaFor, metaProvenance, runMetaSpec, type MetaProvenance, type PhotoMeta, type RunKind } from '@mango/core';
import { parseMetaCsv } from '@mango/core/meta-csv';
import type { MultipartForm, Upload } from './uploads.ts';

/** The file fields a form with metadata may carry besides its photos. */
export const META_FILE_FIELDS = ['meta_csv'] as const;

/** The OpenAPI properties of the two fields (multipart). */
export const META_FIELD_SCHEMAS = {
  meta: z
    .string()
    .optional()
    .meta({
      description:
        'Optional experiment metadata read from each file name: a pattern such as cv-{cultivar}_day{day}_trt-{treatment}_fruit{fruit_id} ' +
        '({name} a field, * any text), matched against the whole name without its extension. Each name becomes a column of every table ' +
        'and the `meta` object of each item; a name that does not match gets null values and a line in `warnings`. ' +
        'A name equal to a column of the results (image, fruit, bruise_percent, ...) is a 400',
    }),
  meta_csv: z
    .string()
    .optional()
    .meta({
      description:
        'Optional experiment metadata as CSV (a text field or a file): an `image` column with the file name, one column per name; ' +
        'joined to the photos by name; its sha256 is kept in the provenance',
    }),
};

/** The metadata a call carries: how each photo gets its own, and where they came from. */
export interface CallMeta {
  provenance: MetaProvenance;
  of(name: string): { meta: PhotoMeta; warnings: string[] };
}

/**
 * Reads `meta` and `meta_csv` of a form for runs of `kinds`; undefined when neither is given.
 * A bad pattern or CSV, or a name that is one of the runs' columns, is a 400 with the reason.
 */
export async function readMetaFields(form: MultipartForm, kinds: readonly RunKind[]): Promise<CallMeta | undefined> {
  const pattern = form.meta?.find((v): v is string => typeof v === 'string');
  const csvValue = form.meta_csv?.[0];
  let csv: string | undefined;
  let csvSha256: string | undefined;
  if (csvValue !== undefined) {
    const bytes =
      typeof csvValue === 'string' ? Buffer.from(csvValue, 'utf8') : await readFile((csvValue as Upload).path);
    csv = bytes.toString('utf8');
    csvSha256 = createHash('sha256').update(bytes).digest('hex');
  }
  const table = csv?.trim() ? parseMetaCsv(csv) : undefined;
  // blank fields (a form sent with nothing typed or chosen) are no metadata
  const spec = runMetaSpec(kinds, { pattern, table, csvSha256 });
  if (!spec) return undefined;
  return { provenance: metaProvenance(spec)!, of: (name) => metaFor(spec, name) };
}

/** Each upload with its metadata, and the warnings of those whose names gave none, in order. */
export function withPhotoMeta<U extends { name: string }>(
  uploads: readonly U[],
  meta: CallMeta | undefined,
): { uploads: (U & { meta?: PhotoMeta; warnings?: string[] })[]; warnings: string[] } {
  if (!meta) return { uploads: [...uploads], warnings: [] };
  const out = uploads.map((u) => ({ ...u, ...meta.of(u.name) }));
  return { uploads: out, warnings: out.flatMap((u) => u.warnings) };
}
