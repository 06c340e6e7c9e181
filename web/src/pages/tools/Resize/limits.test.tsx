import { describe, expect, it } from 'vitest';
import { renderToStaticMarkup } from 'react-dom/server';
import { MemoryRouter } from 'react-router-dom';
import { MAX_SIDE } from '@mango/plugin-resize';
import '#web/i18n/index.ts';
import Resize, { SIDE_LIMITS } from './index.tsx';

/** The attributes of the page's `<input type="number">`s, in order. */
function numberInputs(html: string) {
  return [...html.matchAll(/<input type="number"([^>]*)>/g)].map(([, attrs]) =>
    Object.fromEntries([...attrs.matchAll(/ (min|max|step|name)="([^"]*)"/g)].map(([, k, v]) => [k, v])),
  );
}

describe('the resize page takes its limits from the resize schema', () => {
  it('bounds width and height by the schema: 1 to MAX_SIDE whole pixels', () => {
    expect(SIDE_LIMITS.width).toEqual({ min: 1, max: MAX_SIDE, step: 1 });
    expect(SIDE_LIMITS.height).toEqual({ min: 1, max: MAX_SIDE, step: 1 });
    const html = renderToStaticMarkup(
      <MemoryRouter>
        <Resize />
      </MemoryRouter>,
    );
    expect(numberInputs(html)).toEqual([
      { min: '1', max: String(MAX_SIDE), step: '1' },
      { min: '1', max: String(MAX_SIDE), step: '1' },
    ]);
  });
});
