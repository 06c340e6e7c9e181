#!/usr/bin/env node
// The `mango` command. TypeScript sources run through tsx, so there is no build step.
import { register } from 'tsx/esm/api';

register();
const { main } = await import('../src/main.ts');
process.exitCode = await main(process.argv);
