/**
 * `--meta PATTERN` and `--meta-csv FILE` (issue 27 item 1), for every command that writes tables
 * (`mango bruise`, `mango features`, `mango measure`): the metadata are read by core/src/meta.ts,
 * checked against the columns of the commands' tables (a clash is a usage error, exit 2), and each
 * photo's go into its result (`meta`), its table rows and the provenance; a photo the pattern does
 * not match (or the CSV does not list) gets empty cells and a warning line on stderr.
 */
import { createHash } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import type { Command } from 'commander';
import {
  isMangoError,
  metaFor,
  metaProvenance,
  runKindFor,
  runMetaSpec,
  type MetaProvenance,
  type MetaSpec,
  type PhotoMeta,
  type RunKind,
} from '@mango/core';
import { parseMetaCsv } from '@mango/core/meta-csv';
import { registry } from '@mango/plugins';
import { printable, UsageError } from './util.ts';

export interface MetaFlags {
  meta?: string;
  metaCsv?: string;
}

/** Adds `--meta` and `--meta-csv` to a command. */
export function addMetaOptions(cmd: Command): Command {
  return cmd
    .option(
      '--meta <pattern>',
      'experiment metadata from each file name, e.g. "cv-{cultivar}_day{day}_trt-{treatment}_fruit{fruit_id}" ' +
        '({name} a field, * any text; matched against the whole name without its extension): a column each in every table',
    )
    .option(
      '--meta-csv <file>',
      'experiment metadata from a CSV: its `image` column holds the file name (or its path below the folder given), each other column a name',
    );
}

/** The metadata of a batch: the spec (undefined without --meta and --meta-csv) and its provenance. */
export interface CliMeta {
  spec: MetaSpec;
  provenance: MetaProvenance;
  /** each photo's metadata; the warning of a name that gives none goes to stderr once */
  of(name: string): PhotoMeta;
}

/**
 * Reads `--meta` / `--meta-csv` for tables of the run kinds `operations` declare (their columns may
 * not be metadata names); undefined when neither is given. Every problem is a usage error.
 */
export function loadMeta(o: MetaFlags, operations: readonly string[]): CliMeta | undefined {
  if (o.meta === undefined && o.metaCsv === undefined) return undefined;
  let csv: string | undefined;
  let csvSha256: string | undefined;
  if (o.metaCsv !== undefined) {
    if (!existsSync(o.metaCsv)) throw new UsageError(`--meta-csv ${o.metaCsv}: file not found`);
    const bytes = readFileSync(o.metaCsv);
    csv = bytes.toString('utf8');
    csvSha256 = createHash('sha256').update(bytes).digest('hex');
  }
  const kinds = operations.map((op) => runKindFor(registry, op)).filter((k): k is RunKind => Boolean(k));
  let spec: MetaSpec | undefined;
  try {
    const table = csv?.trim() ? parseMetaCsv(csv) : undefined;
    spec = runMetaSpec(kinds, { pattern: o.meta, table, csvSha256 });
  } catch (e) {
    if (isMangoError(e)) throw new UsageError(`${o.meta !== undefined ? '--meta' : '--meta-csv'}: ${e.message}`);
    throw e;
  }
  if (!spec) throw new UsageError('--meta needs a pattern such as "cv-{cultivar}_day{day}"');
  const found = spec;
  const warned = new Set<string>();
  return {
    spec: found,
    provenance: metaProvenance(found)!,
    of(name) {
      const { meta, warnings } = metaFor(found, name);
      if (!warned.has(name)) for (const w of warnings) console.error(`warning: ${printable(w)}`);
      warned.add(name);
      return meta;
    },
  };
}
