/** Unit tests of the widget's pure parts and the React wrapper's markup (the element itself runs in Chromium: web/e2e/widget.e2e.test.ts). */
import { describe, expect, it } from 'vitest';
import { renderToStaticMarkup } from 'react-dom/server';
import { createElement } from 'react';
import { formatCount, formatPercent, LOCALES, stringsFor } from './strings.ts';
import { bruiseUrl, errorMessage } from './server.ts';
import { isAcceptedImage } from './element.ts';
import { MangoBruiseWidget } from './react.tsx';

describe('strings', () => {
  it('formats percentages with two decimals', () => {
    expect(formatPercent(12.345)).toBe('12.35%');
    expect(formatPercent(0)).toBe('0.00%');
    expect(formatPercent(100)).toBe('100.00%');
    expect(formatCount(313329)).toBe('313,329');
  });

  it('picks a locale by its language and falls back to English', () => {
    expect(stringsFor('th-TH')).toBe(LOCALES.th);
    expect(stringsFor('TH')).toBe(LOCALES.th);
    expect(stringsFor('fr')).toBe(LOCALES.en);
    expect(stringsFor(null)).toBe(LOCALES.en);
  });

  it('has every English message in Thai too', () => {
    expect(Object.keys(LOCALES.th).sort()).toEqual(Object.keys(LOCALES.en).sort());
    for (const [k, v] of Object.entries(LOCALES.th)) {
      if (typeof v === 'string') expect(v, k).not.toBe((LOCALES.en as unknown as Record<string, string>)[k]);
    }
  });
});

describe('server mode helpers', () => {
  it('reads {detail} and {error} bodies', () => {
    expect(errorMessage('{"detail":"Invalid or revoked API key"}')).toBe('Invalid or revoked API key');
    expect(errorMessage('{"error":"Too many attempts"}')).toBe('Too many attempts');
    expect(errorMessage('<html>')).toBeNull();
  });

  it('joins the API base and the bruise path', () => {
    expect(bruiseUrl('https://mango.example.com/')).toBe(
      'https://mango.example.com/api-py/python/bruise_detection/DeepLearning',
    );
  });

  it('accepts JPEG, PNG and WebP by type, or by extension when the type is unknown', () => {
    expect(isAcceptedImage(new File([], 'a.jpg', { type: 'image/jpeg' }))).toBe(true);
    expect(isAcceptedImage(new File([], 'a.PNG'))).toBe(true);
    expect(isAcceptedImage(new File([], 'a.gif', { type: 'image/gif' }))).toBe(false);
    expect(isAcceptedImage(new File([], 'notes.txt', { type: 'text/plain' }))).toBe(false);
  });
});

describe('React wrapper', () => {
  it('only renders the custom element with its attributes (safe without a DOM)', () => {
    const html = renderToStaticMarkup(
      createElement(MangoBruiseWidget, {
        apiBase: 'https://mango.example.com',
        apiKey: 'mbt_x',
        mode: 'local',
        locale: 'th',
        className: 'w',
      }),
    );
    expect(html).toBe(
      '<mango-bruise-widget api-base="https://mango.example.com" api-key="mbt_x" mode="local" locale="th" class="w"></mango-bruise-widget>',
    );
  });
});
