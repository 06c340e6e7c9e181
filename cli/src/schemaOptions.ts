/**
 * Command-line flags built from a plugin's zod options schema (through its JSON Schema): numbers,
 * booleans, enums and lists of enums (comma-separated). The schema then validates what was typed.
 */
import { Option, type Command } from 'commander';
import { z } from 'zod';

interface JsonProp {
  type?: string;
  enum?: string[];
  items?: { enum?: string[] };
  description?: string;
  default?: unknown;
}

const kebab = (s: string) => s.replace(/[A-Z]/g, (c) => '-' + c.toLowerCase());

export function schemaProperties(schema: z.ZodType): Record<string, JsonProp> {
  const json = z.toJSONSchema(schema, { io: 'input', unrepresentable: 'any' }) as {
    properties?: Record<string, JsonProp>;
  };
  return json.properties ?? {};
}

/** Adds one flag per option (except `exclude`) and returns the mapping flag -> option key. */
export function addSchemaOptions(cmd: Command, schema: z.ZodType, exclude: string[] = []): void {
  for (const [key, p] of Object.entries(schemaProperties(schema))) {
    if (exclude.includes(key)) continue;
    const flag = `--${kebab(key)}`;
    const desc = [p.description ?? key, p.default !== undefined ? `(default ${JSON.stringify(p.default)})` : '']
      .filter(Boolean)
      .join(' ');
    let opt: Option;
    if (p.type === 'boolean') opt = new Option(flag, desc);
    else if (p.type === 'array')
      opt = new Option(
        `${flag} <list>`,
        `${desc}; comma-separated${p.items?.enum ? ': ' + p.items.enum.join(',') : ''}`,
      );
    else if (p.enum) opt = new Option(`${flag} <value>`, desc).choices(p.enum);
    else opt = new Option(`${flag} <${p.type === 'integer' || p.type === 'number' ? 'n' : 'value'}>`, desc);
    cmd.addOption(opt);
  }
}

/** Converts commander's values to the schema's types (numbers, lists); unknown keys are dropped. */
export function readSchemaOptions(schema: z.ZodType, values: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [key, p] of Object.entries(schemaProperties(schema))) {
    const v = values[key];
    if (v === undefined) continue;
    if (p.type === 'integer' || p.type === 'number') out[key] = Number(v);
    else if (p.type === 'array')
      out[key] = String(v)
        .split(',')
        .map((s) => s.trim())
        .filter(Boolean);
    else out[key] = v;
  }
  return out;
}
