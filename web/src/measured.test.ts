/**
 * The public pages' measured figures (measured.json) are shown in both languages: every value,
 * label and note has its Thai in i18n/th.ts, so a new figure cannot reach the pages untranslated.
 */
import { describe, expect, it } from 'vitest';
import { th } from '#web/i18n/th.ts';
import measured from './measured.json';
import { measuredFigures } from './site.ts';

const THAI = /[\u0E00-\u0E7F]/;

describe('measured figures', () => {
  const figures = measuredFigures(measured);

  it('are read from measured.json', () => {
    expect(figures.length).toBe(measured.stats.length);
    expect(figures.length).toBeGreaterThan(0);
  });

  it('have a Thai text for every value with words, every label and every note', () => {
    const missing: string[] = [];
    for (const f of figures) {
      // a value with any letter besides a number's exponent (1e-6) is words or a unit: it needs its Thai
      const words = /[a-z]/i.test(f.value.replace(/\d(\.\d+)?e[-+]?\d/gi, ''));
      const texts = [f.label, f.note, words ? f.value : undefined];
      for (const text of texts) {
        if (text === undefined) continue;
        const thai = (th as Record<string, string>)[text];
        if (!thai || !THAI.test(thai)) missing.push(text);
      }
    }
    expect(missing).toEqual([]);
  });
});
