import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import {
  flagName,
  numberLimits,
  optionFields,
  optionName,
  parseWireOptions,
  toWireNames,
  wireName,
} from './options.ts';

const Options = z.object({
  method: z.enum(['auto', 'classical']).default('auto').describe('which method'),
  pxPerCm: z.number().min(0.01).max(100_000).optional(),
  overlayMaxSide: z.number().int().min(64).max(1600).default(1600),
  features: z
    .array(z.enum(['rgb', 'hsv']))
    .min(1)
    .optional(),
});

describe('option names from the schema key', () => {
  it('derives the wire name (snake_case) and the flag (kebab-case) by one rule', () => {
    expect(wireName('pxPerCm')).toBe('px_per_cm');
    expect(wireName('referenceMm')).toBe('reference_mm');
    expect(wireName('method')).toBe('method');
    expect(flagName('overlayMaxSide')).toBe('--overlay-max-side');
    expect(optionName('minLesionFraction', '-')).toBe('min-lesion-fraction');
    expect(toWireNames({ pxPerCm: 40, method: 'auto' })).toEqual({ px_per_cm: 40, method: 'auto' });
  });
});

describe('limits and defaults from the schema', () => {
  it('reads min, max, default and step off a number option, through optional and default', () => {
    expect(numberLimits(Options.shape.pxPerCm)).toEqual({ min: 0.01, max: 100_000, step: 'any' });
    expect(numberLimits(Options.shape.overlayMaxSide)).toEqual({ min: 64, max: 1600, default: 1600, step: 1 });
    // a bare int has no limits (zod's ±2^53-1 are not the form's), .positive() is an exclusive 0
    expect(numberLimits(z.number().int())).toEqual({ step: 1 });
    expect(numberLimits(z.number().positive())).toEqual({ min: 0, step: 'any' });
    expect(() => numberLimits(Options.shape.method)).toThrow(/not a number/);
  });

  it('lists every option with its type, choices and default', () => {
    const fields = optionFields(Options);
    expect(Object.keys(fields)).toEqual(['method', 'pxPerCm', 'overlayMaxSide', 'features']);
    expect(fields.method).toEqual({
      type: 'string',
      description: 'which method',
      default: 'auto',
      enum: ['auto', 'classical'],
    });
    expect(fields.overlayMaxSide).toMatchObject({ type: 'integer', integer: true, min: 64, max: 1600 });
    expect(fields.features).toMatchObject({ type: 'array', items: { enum: ['rgb', 'hsv'] } });
  });
});

describe('options read by wire name, the schema key accepted as an alias', () => {
  const parsed = (v: unknown) => parseWireOptions(Options, v);

  it('gives the same options for either spelling', () => {
    const wire = parsed({ px_per_cm: 40, overlay_max_side: 800 });
    const alias = parsed({ pxPerCm: 40, overlayMaxSide: 800 });
    expect(wire.success && wire.data).toEqual({ method: 'auto', pxPerCm: 40, overlayMaxSide: 800 });
    expect(alias.success && alias.data).toEqual(wire.success && wire.data);
    // both spellings with one value: one option
    const both = parsed({ px_per_cm: 40, pxPerCm: 40 });
    expect(both.success && both.data.pxPerCm).toBe(40);
  });

  it('refuses both spellings with different values, naming both', () => {
    const r = parsed({ px_per_cm: 40, pxPerCm: 41 });
    expect(r.success).toBe(false);
    expect(z.prettifyError(r.error!)).toContain(
      '`px_per_cm` and `pxPerCm` are two spellings of one option with different values: send it once, as `px_per_cm`',
    );
  });

  it('keeps unknown keys refused and names a bad value as it was sent', () => {
    const unknown = parsed({ px_per_cm: 40, notes: 'x' });
    expect(unknown.success).toBe(false);
    expect(z.prettifyError(unknown.error!)).toMatch(/Unrecognized key: "notes"/);
    const wire = parsed({ px_per_cm: 1e308 });
    expect(wire.error!.issues[0].path).toEqual(['px_per_cm']);
    const alias = parsed({ overlayMaxSide: 10 });
    expect(alias.error!.issues[0].path).toEqual(['overlayMaxSide']);
    expect(parsed([1]).success).toBe(false);
    // a key that is a property of every object is still an unknown option, not a prototype
    const proto = parsed(JSON.parse('{"__proto__": {"pxPerCm": 5}}'));
    expect(proto.success).toBe(false);
    expect(z.prettifyError(proto.error!)).toMatch(/Unrecognized key: "__proto__"/);
  });
});
