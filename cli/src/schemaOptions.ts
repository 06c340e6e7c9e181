/**
 * Command-line flags built from a plugin's zod options schema (through core's `optionFields`):
 * numbers, booleans, enums and lists of enums (comma-separated, each value checked against the
 * schema's choices). The flag is the schema key's `flagName` (`pxPerCm` -> `--px-per-cm`). The
 * schema then validates what was typed.
 */
import { InvalidArgumentError, Option, type Command } from 'commander';
import type { z } from 'zod';
import { flagName, optionFields, type OptionField } from '@mango/core';

/** A comma-separated list whose every value must be one of `choices`; an unknown one is named with the choices. */
function listOf(choices: string[] | undefined) {
  return (text: string): string[] => {
    const values = text
      .split(',')
      .map((s) => s.trim())
      .filter(Boolean);
    const unknown = choices ? values.filter((v) => !choices.includes(v)) : [];
    if (unknown.length)
      throw new InvalidArgumentError(`Unknown: ${unknown.join(', ')}. Allowed choices are ${choices!.join(', ')}.`);
    return values;
  };
}

/** The CLI's own wording for a flag: its help text and the name shown for its value. */
export interface FlagHelp {
  description: string;
  value?: string;
}

export interface SchemaFlags {
  /** only these options, in this order (default: all of them) */
  only?: string[];
  /** options that get no flag */
  exclude?: string[];
  /**
   * Help worded by the command: the text replaces the schema's description and choices, and the
   * schema's default is shown the way commander shows its own ('(default: "auto")').
   */
  help?: Record<string, FlagHelp>;
}

/** Adds one flag per option of the schema: the flag's name, value kind and default come from it. */
export function addSchemaOptions(cmd: Command, schema: z.ZodType, flags: SchemaFlags = {}): void {
  const props = optionFields(schema);
  const keys = (flags.only ?? Object.keys(props)).filter((k) => !flags.exclude?.includes(k));
  for (const key of keys) {
    const p = props[key];
    if (!p) throw new Error(`the options schema has no ${key}`);
    const flag = flagName(key);
    const help = flags.help?.[key];
    if (help) {
      const value = p.type === 'boolean' ? '' : ` <${help.value ?? valueName(p)}>`;
      const opt = new Option(flag + value, help.description);
      if (p.type === 'array') opt.argParser(listOf(p.items?.enum));
      cmd.addOption(p.default !== undefined ? opt.default(p.default) : opt);
      continue;
    }
    const desc = [p.description ?? key, p.default !== undefined ? `(default ${JSON.stringify(p.default)})` : '']
      .filter(Boolean)
      .join(' ');
    let opt: Option;
    if (p.type === 'boolean') opt = new Option(flag, desc);
    else if (p.type === 'array')
      opt = new Option(
        `${flag} <list>`,
        `${desc}; comma-separated${p.items?.enum ? ': ' + p.items.enum.join(',') : ''}`,
      ).argParser(listOf(p.items?.enum));
    else if (p.enum) opt = new Option(`${flag} <value>`, desc).choices(p.enum);
    else opt = new Option(`${flag} <${valueName(p)}>`, desc);
    cmd.addOption(opt);
  }
}

const valueName = (p: OptionField) => (p.type === 'integer' || p.type === 'number' ? 'n' : 'value');

/** Converts commander's values to the schema's types (numbers, lists); unknown keys are dropped. */
export function readSchemaOptions(schema: z.ZodType, values: object): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [key, p] of Object.entries(optionFields(schema))) {
    const v = (values as Record<string, unknown>)[key];
    if (v === undefined) continue;
    if (p.type === 'integer' || p.type === 'number') out[key] = Number(v);
    else if (p.type === 'array') out[key] = Array.isArray(v) ? v : listOf(undefined)(String(v));
    else out[key] = v;
  }
  return out;
}
