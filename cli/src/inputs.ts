/**
 * Input discovery: files and directories (recursive, symbolic links followed) holding images the decoder reads (the
 * extensions of core's SERVER_UPLOAD rule, shared with the server), each with the output stem its
 * outputs are named after.
 */
import { readdir, realpath, stat } from 'node:fs/promises';
import { extname, join, resolve } from 'node:path';
import { SERVER_UPLOAD } from '@mango/core';
import { printable, UsageError } from './util.ts';

/** The help of the batch commands' <inputs...>: '... (recursive; .jpg, .jpeg, .png, .webp, .tif, .tiff)'. */
export const INPUTS_HELP = `image files or directories (recursive; ${SERVER_UPLOAD.extensions.join(', ')})`;

export interface InputFile {
  path: string;
  /** path relative to the directory argument it came from (its own name for a file argument) */
  relative: string;
  /**
   * `relative` without its extension: outputs are `<stem><suffix>`. Unique over the batch: when two
   * inputs would share one (a.jpg and a.png, or two a.jpg from different folders), the later ones get
   * `-2`, `-3`, ... so no output overwrites another; the others keep today's names.
   */
  stem: string;
}

/** Gives each file its unique output stem, in input order. */
function withStems(files: Omit<InputFile, 'stem'>[]): InputFile[] {
  const taken = new Set<string>();
  return files.map((f) => {
    const base = f.relative.replace(/\.[^./]+$/, '');
    let stem = base;
    for (let n = 2; taken.has(stem.toLowerCase()); n++) stem = `${base}-${n}`;
    taken.add(stem.toLowerCase());
    return { ...f, stem };
  });
}

/**
 * The image files of the inputs, in order: a directory is searched recursively, symbolic links
 * (to files and to directories) are followed, and a directory reached a second time (a link
 * back up the tree, two links to one folder) is not searched again, so a loop ends. `missing`: the
 * arguments that do not exist; `broken`: links found inside a directory whose target is gone.
 */
export async function collectInputs(
  args: string[],
): Promise<{ files: InputFile[]; missing: string[]; broken: string[] }> {
  const files: Omit<InputFile, 'stem'>[] = [];
  const missing: string[] = [];
  const broken: string[] = [];
  const searched = new Set<string>();
  const isImage = (name: string) => SERVER_UPLOAD.extensions.includes(extname(name).toLowerCase());
  const walk = async (dir: string, rel: string) => {
    const real = await realpath(dir);
    if (searched.has(real)) return;
    searched.add(real);
    const entries = await readdir(dir, { withFileTypes: true });
    entries.sort((a, b) => a.name.localeCompare(b.name));
    for (const e of entries) {
      const p = join(dir, e.name);
      const r = rel ? `${rel}/${e.name}` : e.name;
      // a link is taken as what it points to
      const target = e.isSymbolicLink() ? await stat(p).catch(() => null) : e;
      if (!target) broken.push(p);
      else if (target.isDirectory()) await walk(p, r);
      else if (target.isFile() && isImage(e.name)) files.push({ path: p, relative: r });
    }
  };
  for (const a of args) {
    const p = resolve(a);
    const s = await stat(p).catch(() => null);
    if (!s) missing.push(a);
    else if (s.isDirectory()) await walk(p, '');
    else files.push({ path: p, relative: p.split('/').pop()! });
  }
  return { files: withStems(files), missing, broken };
}

/**
 * The inputs of a batch command, checked before any photo is read: an input that does not exist,
 * or inputs holding no image, are usage errors (exit 2, nothing written); a broken link inside a
 * directory is reported on stderr and skipped.
 */
export async function requireInputs(args: string[]): Promise<InputFile[]> {
  const { files, missing, broken } = await collectInputs(args);
  if (missing.length) throw new UsageError(`not found: ${missing.join(', ')}`);
  for (const b of broken) console.error(`warning: ${printable(b)}: a symbolic link to nothing, skipped`);
  if (files.length === 0) {
    throw new UsageError(`no images found in ${args.join(', ')} (looked for ${SERVER_UPLOAD.extensions.join(', ')})`);
  }
  return files;
}
