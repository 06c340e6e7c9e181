/**
 * Every kind of run a built-in plugin declares has its label in both languages: the declared
 * English title, and its Thai keyed by the declaration's operation (i18n/th.ts).
 */
import { describe, expect, it } from 'vitest';
import { runKinds } from '@mango/core';
import { registry } from '@mango/plugins';
import { th } from '#web/i18n/th.ts';
import { RUN_KIND_LABELS, runKindKey, runKindLabel } from './runKinds.ts';

const THAI = /[\u0E00-\u0E7F]/;

describe('run-kind labels', () => {
  it('lists every run kind the plugins declare, with its declared title', () => {
    const declared = runKinds(registry).map((k) => k.runs.operation);
    expect(RUN_KIND_LABELS.map((k) => k.operation)).toEqual(declared);
    expect(declared).toEqual(expect.arrayContaining(['bruise', 'analyze', 'kmeans', 'remove-background']));
    for (const { runs } of runKinds(registry)) {
      expect(runs.title.trim().length, runs.operation).toBeGreaterThan(3);
      expect(runKindLabel(runs.operation, 'en')).toBe(runs.title);
    }
  });

  it('has a Thai label for every declared kind, keyed by its operation', () => {
    for (const { operation, title } of RUN_KIND_LABELS) {
      const thai = th[runKindKey(operation)];
      expect(thai, `th.ts has no line ${runKindKey(operation)}`).toMatch(THAI);
      expect(runKindLabel(operation, 'th')).toBe(thai);
      expect(runKindLabel(operation, 'th')).not.toBe(title);
    }
    // the same words as the tool pages' own titles
    expect(runKindLabel('bruise', 'th')).toBe(th['Bruised Area Calculation']);
    expect(runKindLabel('analyze', 'th')).toBe(th['Feature Analysis']);
  });

  it('shows an undeclared kind by its operation in either language', () => {
    expect(runKindLabel('no-such-kind', 'en')).toBe('no-such-kind');
    expect(runKindLabel('no-such-kind', 'th')).toBe('no-such-kind');
  });
});
