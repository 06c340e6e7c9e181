/**
 * The experiment metadata a user gives on an upload page (issue 27 item 1): a file name pattern
 * (`cv-{cultivar}_day{day}`) and/or a CSV whose `image` column holds the file names, sent as the
 * `meta` and `meta_csv` fields of /api-py and the jobs API.
 */
export interface MetaInput {
  pattern: string;
  csv: File | null;
}

export const NO_META: MetaInput = { pattern: '', csv: null };

/** Adds the fields to a request's form (nothing when none was given). */
export function appendMeta(form: FormData, meta: MetaInput | undefined): void {
  if (!meta) return;
  if (meta.pattern.trim()) form.append('meta', meta.pattern.trim());
  if (meta.csv) form.append('meta_csv', meta.csv, meta.csv.name);
}
