// Worker-thread entry (loaded by worker.cjs). Built (dist/): the compiled jobs.js, no
// TypeScript loader. From the sources (tests, dev, `--conditions=source`): jobs.ts through tsx.
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const built = new URL('./jobs.js', import.meta.url);
let jobs;
if (existsSync(fileURLToPath(built))) {
  jobs = await import(built.href);
} else {
  const { register } = await import('tsx/esm/api');
  register();
  jobs = await import('./jobs.ts');
}
export default jobs.runImageJob;
