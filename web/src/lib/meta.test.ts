import { describe, expect, it } from 'vitest';
import { appendMeta, metaGapCount } from './meta.ts';

describe('upload page metadata', () => {
  it('counts the results with a metadata name without a value', () => {
    expect(
      metaGapCount([
        { meta: { day: '1', tray: 'T1' } },
        { meta: { day: null, tray: 'T2' } },
        { meta: { day: null, tray: null } },
        { image_name: 'no metadata asked' },
        null,
      ]),
    ).toBe(2);
  });

  it('sends only what was given: a trimmed pattern, the CSV as a file', async () => {
    const form = new FormData();
    appendMeta(form, { pattern: '  day{day} ', csv: new File(['image,tray\na.jpg,T1\n'], 'plots.csv') });
    expect(form.get('meta')).toBe('day{day}');
    const csv = form.get('meta_csv') as File;
    expect(csv.name).toBe('plots.csv');
    expect(await csv.text()).toBe('image,tray\na.jpg,T1\n');
    const empty = new FormData();
    appendMeta(empty, { pattern: ' ', csv: null });
    expect([...empty.keys()]).toEqual([]);
  });
});
