import { readFileSync } from 'node:fs';

/** The CLI package's version (bin/mango.js answers --version from the same file; provenance records it). */
export const VERSION: string = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')).version;
