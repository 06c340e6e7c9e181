export { buildProgram, main } from './main.ts';
export { collectInputs } from './inputs.ts';
