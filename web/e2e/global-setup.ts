/** Builds the web app once before the end-to-end tests (the server serves web/dist). */
import { execFileSync } from 'node:child_process';
import { resolve } from 'node:path';

export default function setup() {
  const web = resolve(import.meta.dirname, '..');
  execFileSync(process.execPath, [resolve(web, '../node_modules/vite/bin/vite.js'), 'build', '--logLevel', 'warn'], {
    cwd: web,
    stdio: 'inherit',
  });
  const widget = resolve(web, '../widget');
  try {
    execFileSync(process.execPath, [resolve(web, '../node_modules/vite/bin/vite.js'), 'build', '--logLevel', 'warn'], {
      cwd: widget,
      stdio: 'inherit',
    });
  } catch {
    console.warn('widget build failed or widget not present; widget tests will fail');
  }
}
