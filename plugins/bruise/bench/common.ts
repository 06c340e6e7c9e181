/** What the bruise benches share: their `--name value` flags and the dev split of ../shared (or a visible skip). */
import { join } from 'node:path';
import { sharedDir, SHARED_MISSING } from '@mango/core/testing/node';

/** The command-line arguments after the script. */
export const args = process.argv.slice(2);

/** The value after `--name` on the command line, if given. */
export const flag = (name: string): string | undefined => {
  const i = args.indexOf(name);
  return i >= 0 ? args[i + 1] : undefined;
};

/** ../shared/data/bruise-dev; without ../shared the bench says so and ends (exit 0). */
export function devDir(): string {
  const shared = sharedDir();
  if (!shared) {
    console.log(SHARED_MISSING);
    process.exit(0);
  }
  return join(shared, 'data', 'bruise-dev');
}
