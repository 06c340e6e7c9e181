/** Input discovery: files and directories (recursive) holding .jpg, .jpeg or .png images. */
import { readdir, stat } from 'node:fs/promises';
import { extname, join, resolve } from 'node:path';

export const IMAGE_EXTENSIONS = new Set(['.jpg', '.jpeg', '.png']);

export interface InputFile {
  path: string;
  /** path relative to the directory argument it came from (its own name for a file argument) */
  relative: string;
}

export async function collectInputs(args: string[]): Promise<{ files: InputFile[]; missing: string[] }> {
  const files: InputFile[] = [];
  const missing: string[] = [];
  const walk = async (dir: string, rel: string) => {
    const entries = await readdir(dir, { withFileTypes: true });
    entries.sort((a, b) => a.name.localeCompare(b.name));
    for (const e of entries) {
      const p = join(dir, e.name);
      const r = rel ? `${rel}/${e.name}` : e.name;
      if (e.isDirectory()) await walk(p, r);
      else if (e.isFile() && IMAGE_EXTENSIONS.has(extname(e.name).toLowerCase())) files.push({ path: p, relative: r });
    }
  };
  for (const a of args) {
    const p = resolve(a);
    const s = await stat(p).catch(() => null);
    if (!s) missing.push(a);
    else if (s.isDirectory()) await walk(p, '');
    else files.push({ path: p, relative: p.split('/').pop()! });
  }
  return { files, missing };
}
