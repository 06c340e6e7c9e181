import { describe, expect, it } from 'vitest';
import { Command, CommanderError } from 'commander';
import { z } from 'zod';
import { flagName, optionFields } from '@mango/core';
import { BruiseOptions } from '@mango/plugin-bruise';
import { resizeOptions } from '@mango/plugin-resize';
import { addSchemaOptions, readSchemaOptions } from './schemaOptions.ts';
import { buildProgram } from './main.ts';
import { FEATURE_IDS } from '@mango/plugin-features/names';

const Options = z.object({
  method: z.enum(['auto', 'classical']).default('auto').describe('which method'),
  pxPerCm: z.number().positive().optional().describe('scale'),
  quality: z.number().int().default(92).describe('JPEG quality'),
  channels: z
    .array(z.enum(['r', 'g', 'b']))
    .optional()
    .describe('channels'),
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
    expect(cmd.options.map((o) => o.flags)).toEqual([
      '--method <value>',
      '--px-per-cm <n>',
      '--quality <n>',
      '--channels <list>',
    ]);
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

describe('list flags check each value against the schema', () => {
  it('reads a comma-separated list of choices and refuses an unknown one, listing the valid ones', () => {
    const cmd = new Command('x').exitOverride().configureOutput({ writeErr: () => {} });
    addSchemaOptions(cmd, Options, { only: ['channels'] });
    expect(readSchemaOptions(Options, parse(cmd, ['--channels', 'r, b']))).toEqual({ channels: ['r', 'b'] });
    expect(() => parse(cmd, ['--channels', 'r,alpha'])).toThrow(
      "option '--channels <list>' argument 'r,alpha' is invalid. Unknown: alpha. Allowed choices are r, g, b.",
    );
  });
});

describe('the mango program builds its flags from the plugin schemas', () => {
  const program = buildProgram();
  const command = (name: string) => program.commands.find((c) => c.name() === name)!;
  const longFlags = (name: string) => command(name).options.map((o) => o.long);

  it('names the bruise flags after the BruiseOptions keys (pxPerCm -> --px-per-cm)', () => {
    expect(Object.keys(optionFields(BruiseOptions))).toEqual(expect.arrayContaining(['pxPerCm', 'referenceMm']));
    const bruise = command('bruise').options;
    expect(bruise.find((o) => o.long === '--px-per-cm')?.flags).toBe('--px-per-cm <n>');
    expect(bruise.find((o) => o.long === '--reference-mm')?.flags).toBe('--reference-mm <mm>');
    expect(bruise.find((o) => o.long === '--method')?.defaultValue).toBe(BruiseOptions.parse({}).method);
  });

  it('offers one flag per option of a transform plugin, named by flagName', () => {
    const keys = Object.keys(optionFields(resizeOptions));
    expect(keys).toEqual(['width', 'height', 'keepAspect', 'quality']);
    expect(longFlags('resize')).toEqual(expect.arrayContaining(keys.map(flagName)));
    expect(longFlags('resize')).toContain('--keep-aspect');
  });

  it('takes the features ids from the features schema and names an unknown one with the valid ones', () => {
    const features = command('features');
    expect(features.options.find((o) => o.long === '--features')!.flags).toBe('--features <ids>');
    features.configureOutput({ writeErr: () => {} });
    let error: unknown;
    try {
      program.parse(['features', 'photo.png', '--features', 'rgb,colour'], { from: 'user' });
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(CommanderError);
    expect((error as CommanderError).code).toBe('commander.invalidArgument');
    expect((error as CommanderError).message).toBe(
      `error: option '--features <ids>' argument 'rgb,colour' is invalid. Unknown: colour. Allowed choices are ${FEATURE_IDS.join(', ')}.`,
    );
  });
});
