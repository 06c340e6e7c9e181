/**
 * Input discovery: files and directories (recursive) holding images the decoder reads (the
 * extensions of core's SERVER_UPLOAD rule, shared with the server), each with the output stem its
 * outputs are named after.
 */
import { readdir, stat } from 'node:fs/promises';
import { extname, join, resolve } from 'node:path';
import { SERVER_UPLOAD } from '@mango/core';

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

export async function collectInputs(args: string[]): Promise<{ files: InputFile[]; missing: string[] }> {
  const files: Omit<InputFile, 'stem'>[] = [];
  const missing: string[] = [];
  const walk = async (dir: string, rel: string) => {
    const entries = await readdir(dir, { withFileTypes: true });
    entries.sort((a, b) => a.name.localeCompare(b.name));
    for (const e of entries) {
      const p = join(dir, e.name);
      const r = rel ? `${rel}/${e.name}` : e.name;
      if (e.isDirectory()) await walk(p, r);
      else if (e.isFile() && SERVER_UPLOAD.extensions.includes(extname(e.name).toLowerCase()))
        files.push({ path: p, relative: r });
    }
  };
  for (const a of args) {
    const p = resolve(a);
    const s = await stat(p).catch(() => null);
    if (!s) missing.push(a);
    else if (s.isDirectory()) await walk(p, '');
    else files.push({ path: p, relative: p.split('/').pop()! });
  }
  return { files: withStems(files), missing };
}
