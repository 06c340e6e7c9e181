#!/usr/bin/env node
// The `mango` command: the compiled JavaScript in ../dist (built by `npm install`, `npm run build:node`).
// `mango --version` answers from package.json without loading the plugins (sharp, zod, the job pool).
import { existsSync, readFileSync } from 'node:fs';

const args = process.argv.slice(2);
if (args.length === 1 && (args[0] === '--version' || args[0] === '-V')) {
  console.log(JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')).version);
  process.exit(0);
}
const main = new URL('../dist/main.js', import.meta.url);
if (!existsSync(main)) {
  console.error('mango: the CLI is not built yet: run `npm install` (or `npm run build:node`) in the repository');
  process.exit(2);
}
const { main: run } = await import(main.href);
process.exitCode = await run(process.argv);
