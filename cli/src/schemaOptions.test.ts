import { describe, expect, it } from 'vitest';
import { Command } from 'commander';
import { z } from 'zod';
import { addSchemaOptions, readSchemaOptions } from './schemaOptions.ts';

const Options = z.object({
  method: z.enum(['auto', 'classical']).default('auto').describe('which method'),
  pxPerCm: z.number().positive().optional().describe('scale'),
  quality: z.number().int().default(92).describe('JPEG quality'),
});

function parse(cmd: Command, args: string[]): Record<string, unknown> {
  cmd.exitOverride().action(() => {});
  cmd.parse(args, { from: 'user' });
  return cmd.opts();
}

describe('flags from an options schema', () => {
  it('names each flag after its option, with the schema description and default', () => {
    const cmd = new Command('x');
    addSchemaOptions(cmd, Options);
    expect(cmd.options.map((o) => o.flags)).toEqual(['--method <value>', '--px-per-cm <n>', '--quality <n>']);
    expect(cmd.options[0].description).toBe('which method (default "auto")');
    expect(cmd.options[0].argChoices).toEqual(['auto', 'classical']);
    expect(readSchemaOptions(Options, parse(cmd, ['--px-per-cm', '40', '--quality', '80']))).toEqual({
      pxPerCm: 40,
      quality: 80,
    });
  });

  it('keeps a chosen subset in the given order, worded by the command', () => {
    const cmd = new Command('x');
    addSchemaOptions(cmd, Options, {
      only: ['pxPerCm', 'method'],
      help: { method: { value: 'method', description: 'auto | classical' }, pxPerCm: { description: 'px per cm' } },
    });
    expect(cmd.options.map((o) => o.flags)).toEqual(['--px-per-cm <n>', '--method <method>']);
    expect(cmd.helpInformation()).toContain('--method <method>  auto | classical (default: "auto")');
    expect(cmd.options[1].argChoices).toBeUndefined();
    // the schema's default is commander's, so the parsed options validate as before
    const values = readSchemaOptions(Options, parse(cmd, ['--px-per-cm', '12.5']));
    expect(values).toEqual({ method: 'auto', pxPerCm: 12.5 });
    expect(Options.parse(values)).toEqual({ method: 'auto', pxPerCm: 12.5, quality: 92 });
  });

  it('refuses an option the schema does not have', () => {
    expect(() => addSchemaOptions(new Command('x'), Options, { only: ['nope'] })).toThrow(/no nope/);
  });
});
