import { describe, expect, it } from 'vitest';
import { renderToStaticMarkup } from 'react-dom/server';
import { MemoryRouter } from 'react-router-dom';
import { GRADE_PRESETS, scaleNeededMessage } from '@mango/plugin-bruise/grades';
import { PX_PER_CM_MAX, PX_PER_CM_MIN, REFERENCE_MM_MAX, REFERENCE_MM_MIN } from '@mango/plugin-bruise/schema';
import '#web/i18n/index.ts';
import Bruise, { cardFields, jobOptions, jobRefusal, scaleFields } from './index.tsx';

const page = () =>
  renderToStaticMarkup(
    <MemoryRouter>
      <Bruise />
    </MemoryRouter>,
  );

describe('the bruise page takes its limits and grade presets from the schemas', () => {
  it('bounds the scale inputs by the bruise options schema, named by their wire names', () => {
    const inputs = [...page().matchAll(/<input type="number"([^>]*)>/g)].map(([, attrs]) =>
      Object.fromEntries([...attrs.matchAll(/ (min|max|step|name)="([^"]*)"/g)].map(([, k, v]) => [k, v])),
    );
    expect(inputs).toEqual([
      { min: String(REFERENCE_MM_MIN), max: String(REFERENCE_MM_MAX), step: 'any', name: 'reference_mm' },
      { min: String(PX_PER_CM_MIN), max: String(PX_PER_CM_MAX), step: 'any', name: 'px_per_cm' },
    ]);
  });

  it('offers every shipped grade preset, and none', () => {
    const select = /<select name="grades"[^>]*>(.*?)<\/select>/s.exec(page())![1];
    const values = [...select.matchAll(/<option value="([^"]*)"/g)].map(([, v]) => v);
    expect(values).toEqual(['', ...Object.keys(GRADE_PRESETS)]);
    expect(select).toContain(`${GRADE_PRESETS['codex-mango'].name} (cm², needs a scale)`);
  });

  it('sends a batch job the options of a single request: the scale as numbers and the grades', () => {
    expect(jobOptions({ referenceMm: ' 25 ', pxPerCm: '', grades: 'percent' })).toEqual({
      reference_mm: 25,
      grades: 'percent',
    });
    expect(jobOptions({ referenceMm: '', pxPerCm: '', grades: '' })).toEqual({});
  });

  it('refuses a batch graded in cm² without a scale as /api-py refuses the request', () => {
    const codex = GRADE_PRESETS['codex-mango'];
    expect(jobRefusal({ referenceMm: '', pxPerCm: ' ', grades: codex.id })).toBe(scaleNeededMessage(codex));
    expect(jobRefusal({ referenceMm: '', pxPerCm: '40', grades: codex.id })).toBeNull();
    expect(jobRefusal({ referenceMm: '', pxPerCm: '', grades: 'percent' })).toBeNull();
  });

  it('sends the typed scale by wire name, blank fields left out', () => {
    expect(scaleFields({ referenceMm: ' 25 ', pxPerCm: '' })).toEqual({ reference_mm: '25' });
    expect(scaleFields({ referenceMm: '', pxPerCm: '40' })).toEqual({ px_per_cm: '40' });
  });

  it('offers the colour card toggle (on by default) and the card kind, sent by wire name only when not the default', () => {
    const html = page();
    expect(html).toContain('<input type="checkbox" name="colour_card" checked=""');
    expect(html).toContain('<select name="card_kind">');
    expect(cardFields({ referenceMm: '', pxPerCm: '', grades: '' })).toEqual({});
    expect(cardFields({ referenceMm: '', pxPerCm: '', grades: '', colourCard: 'auto', cardKind: 'classic' })).toEqual(
      {},
    );
    const off = { referenceMm: '', pxPerCm: '', grades: '', colourCard: 'off' as const, cardKind: 'passport' as const };
    expect(cardFields(off)).toEqual({ colour_card: 'off', card_kind: 'passport' });
    expect(jobOptions({ ...off, pxPerCm: '40' })).toEqual({ px_per_cm: 40, colour_card: 'off', card_kind: 'passport' });
  });
});
