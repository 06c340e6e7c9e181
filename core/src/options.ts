/**
 * Plugin options as the front ends show them, read off the plugin's zod schema (browser-safe):
 * one spelling per option, derived from its schema key (`pxPerCm` is `px_per_cm` on the wire and
 * `--px-per-cm` on the command line), and the limits and defaults a form or a flag states.
 */
import { z } from 'zod';

/** `pxPerCm` with separator '_' -> `px_per_cm`, with '-' -> `px-per-cm` (as a type too). */
type Delimited<S extends string, D extends string> = S extends `${infer C}${infer Rest}`
  ? `${C extends Lowercase<C> ? C : `${D}${Lowercase<C>}`}${Delimited<Rest, D>}`
  : S;

/** A camelCase option key as words joined by `separator`: the one rule behind wire names and flags. */
export function optionName<K extends string, D extends '_' | '-'>(key: K, separator: D): Delimited<K, D> {
  return key.replace(/[A-Z]/g, (c) => separator + c.toLowerCase()) as Delimited<K, D>;
}

/** An option's name on the wire (HTTP form fields, the jobs API's JSON keys): snake_case. */
export const wireName = <K extends string>(key: K) => optionName(key, '_');

/** An option's command-line flag: `--` and kebab-case. */
export const flagName = <K extends string>(key: K): `--${Delimited<K, '-'>}` => `--${optionName(key, '-')}`;

/** Options keyed by schema key -> the same values keyed by wire name (what a client sends). */
export function toWireNames(options: Record<string, unknown>): Record<string, unknown> {
  return Object.fromEntries(Object.entries(options).map(([key, value]) => [wireName(key), value]));
}

/** One option as a form or a flag presents it (from the schema's JSON Schema, input side). */
export interface OptionField {
  type?: string;
  description?: string;
  default?: unknown;
  /** inclusive bounds of a number (a bound of ±2^53-1, zod's for a bare int, is no bound) */
  min?: number;
  max?: number;
  /** exclusive bounds (`.positive()`, `.gt()`) */
  exclusiveMin?: number;
  exclusiveMax?: number;
  /** a whole number (`.int()`) */
  integer?: boolean;
  enum?: string[];
  /** the values a list may hold */
  items?: { enum?: string[] };
}

/** The part of an option's JSON Schema read here (the rest is kept as it is). */
export interface OptionJsonSchema {
  type?: string;
  description?: string;
  default?: unknown;
  minimum?: number;
  maximum?: number;
  exclusiveMinimum?: number;
  exclusiveMaximum?: number;
  enum?: unknown[];
  items?: { enum?: unknown[] };
  properties?: Record<string, OptionJsonSchema>;
  [keyword: string]: unknown;
}

const bound = (n: number | undefined) => (n === undefined || Math.abs(n) >= Number.MAX_SAFE_INTEGER ? undefined : n);
const strings = (values: unknown[] | undefined) => values?.filter((v): v is string => typeof v === 'string');

function fieldOf(p: OptionJsonSchema): OptionField {
  const field: OptionField = {
    type: p.type,
    description: p.description,
    default: p.default,
    min: bound(p.minimum),
    max: bound(p.maximum),
    exclusiveMin: bound(p.exclusiveMinimum),
    exclusiveMax: bound(p.exclusiveMaximum),
    integer: p.type === 'integer' || undefined,
    enum: strings(p.enum),
    items: p.items ? { enum: strings(p.items.enum) } : undefined,
  };
  return Object.fromEntries(Object.entries(field).filter(([, v]) => v !== undefined)) as OptionField;
}

const jsonSchemaOf = (schema: z.ZodType) =>
  z.toJSONSchema(schema, { io: 'input', unrepresentable: 'any' }) as OptionJsonSchema;

/** One option's type, limits, default and choices (optional and default wrappers looked through). */
export const optionField = (schema: z.ZodType): OptionField => fieldOf(jsonSchemaOf(schema));

/** The JSON Schema of every option of an object schema, by schema key (`mango plugins --json` prints them). */
export const optionJsonSchemas = (schema: z.ZodType): Record<string, OptionJsonSchema> =>
  jsonSchemaOf(schema).properties ?? {};

/** Every option of an object schema, by schema key, in the schema's order. */
export function optionFields(schema: z.ZodType): Record<string, OptionField> {
  return Object.fromEntries(Object.entries(optionJsonSchemas(schema)).map(([key, p]) => [key, fieldOf(p)]));
}

/** The limits, default and step of a number option, as an `<input type="number">` takes them. */
export function numberLimits(schema: z.ZodType): {
  min?: number;
  max?: number;
  default?: number;
  step: number | 'any';
} {
  const f = optionField(schema);
  if (f.type !== 'number' && f.type !== 'integer') throw new Error(`not a number option (${f.type ?? 'no type'})`);
  return {
    ...((f.min ?? f.exclusiveMin) !== undefined && { min: f.min ?? f.exclusiveMin }),
    ...((f.max ?? f.exclusiveMax) !== undefined && { max: f.max ?? f.exclusiveMax }),
    ...(typeof f.default === 'number' && { default: f.default }),
    step: f.integer ? 1 : 'any',
  };
}

/** A parse's outcome: the schema's output, or a ZodError whose issues name the options as sent. */
export type WireOptionsResult<T> =
  { success: true; data: T; error?: never } | { success: false; error: z.ZodError; data?: never };

/**
 * Reads options keyed by wire name (`px_per_cm`) into a strict object schema's keys. The schema key
 * itself (`pxPerCm`, the jobs JSON's spelling before one spelling was chosen) is accepted as an alias.
 * A key known by neither spelling is refused by the strict schema; the two spellings of one option
 * with different values are refused too. Issues name the option as the caller spelled it.
 */
export function parseWireOptions<S extends z.ZodObject>(schema: S, value: unknown): WireOptionsResult<z.output<S>> {
  const keyOf = new Map<string, string>();
  for (const key of Object.keys(schema.shape)) {
    keyOf.set(key, key);
    keyOf.set(wireName(key), key);
  }
  const isObject = typeof value === 'object' && value !== null && !Array.isArray(value);
  // by schema key: the value and the name it was sent as (a Map: a key such as __proto__ stays data)
  const options = new Map<string, { name: string; value: unknown }>();
  const issues: z.core.$ZodIssue[] = [];
  for (const [name, v] of isObject ? Object.entries(value) : []) {
    const key = keyOf.get(name) ?? name;
    const first = options.get(key);
    if (!first) options.set(key, { name, value: v });
    else if (JSON.stringify(first.value) !== JSON.stringify(v))
      issues.push({
        code: 'custom',
        path: [wireName(key)],
        input: v,
        message: `\`${first.name}\` and \`${name}\` are two spellings of one option with different values: send it once, as \`${wireName(key)}\``,
      });
  }
  if (issues.length) return { success: false, error: new z.ZodError(issues) };
  const input = isObject ? Object.fromEntries([...options].map(([key, o]) => [key, o.value])) : value;
  const parsed = schema.strict().safeParse(input);
  if (parsed.success) return { success: true, data: parsed.data as z.output<S> };
  const named = parsed.error.issues.map((issue) => {
    const [head, ...rest] = issue.path;
    if (typeof head !== 'string') return issue;
    return { ...issue, path: [options.get(head)?.name ?? wireName(head), ...rest] };
  });
  return { success: false, error: new z.ZodError(named) };
}
