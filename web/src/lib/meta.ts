/**
 * The experiment metadata a user gives on an upload page (issue 27 item 1): a file name pattern
 * (`cv-{cultivar}_day{day}`) and/or a CSV whose `image` column holds the file names, sent as the
 * `meta` and `meta_csv` fields of /api-py and the jobs API.
 */
import { metaColumnNames } from '@mango/core';

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

/** The message shown when some photos got no value for a metadata name (its count and the total). */
export const META_GAPS_MESSAGE =
  '{{count}} of {{total}} photos got no metadata from their names (the pattern did not match or the CSV has no row for them): those cells are empty.';

/** How many results have a metadata name without a value (their names gave none). */
export function metaGapCount(results: readonly unknown[]): number {
  return results.filter((r) => {
    const meta = (r as { meta?: Record<string, string | null> } | null)?.meta;
    return meta !== undefined && Object.values(meta).some((v) => v === null);
  }).length;
}

/** Alerts (translated by `t`) when some results got no metadata from their names; nothing otherwise. */
export function warnMetaGaps(results: readonly unknown[], t: (key: string, values: Record<string, number>) => string) {
  const count = metaGapCount(results);
  if (count > 0) alert(t(META_GAPS_MESSAGE, { count, total: results.length }));
}

/** A result's experiment metadata (absent: none were given). */
type WithMeta = { meta?: Record<string, string | null> } | null | undefined;

/**
 * The metadata names to show as columns of a results table: every name any row carries, in the
 * order they first appear (core's metaColumnNames, the tables' own order); none when no row has any.
 */
export const metaColumnsOf = (rows: readonly WithMeta[]): string[] => metaColumnNames(rows.map((r) => r?.meta));

/** A row's value of metadata `name` as shown in a cell ('–' when it has none). */
export const metaCell = (row: WithMeta, name: string): string => row?.meta?.[name] ?? '–';
