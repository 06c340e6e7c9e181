/** The Thai reports' embedded font is the npm package's, byte for byte (tools/report-font/generate.mjs). */
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { describe, expect, it } from 'vitest';
import { SARABUN_THAI_400_WOFF2, SARABUN_THAI_700_WOFF2, SARABUN_VERSION } from './report-font.ts';
import { REPORT_CSP, reportFonts } from './report.ts';
import { reportLanguage, translator } from './i18n.ts';
import { REPORT_TH } from './report-th.ts';

const require = createRequire(import.meta.url);
const woff2 = (weight: number) =>
  readFileSync(require.resolve(`@fontsource/sarabun/files/sarabun-thai-${weight}-normal.woff2`));

describe('the Thai report font', () => {
  it('is @fontsource/sarabun’s Thai subset, regular and bold, as installed (regenerate when this fails)', () => {
    expect(SARABUN_VERSION).toBe(require('@fontsource/sarabun/package.json').version);
    expect(Buffer.from(SARABUN_THAI_400_WOFF2, 'base64').equals(woff2(400))).toBe(true);
    expect(Buffer.from(SARABUN_THAI_700_WOFF2, 'base64').equals(woff2(700))).toBe(true);
    // a woff2 file starts with 'wOF2'
    expect(Buffer.from(SARABUN_THAI_400_WOFF2, 'base64').subarray(0, 4).toString('latin1')).toBe('wOF2');
  });

  it('goes into a Thai page as data: fonts the page’s policy allows; an English page has none', async () => {
    const css = await reportFonts('th');
    expect(css.match(/@font-face\{font-family:Sarabun;/g)).toHaveLength(2);
    expect(css).toContain(`url(data:font/woff2;base64,${SARABUN_THAI_700_WOFF2})`);
    expect(css).toContain('unicode-range:U+02D7,U+0303,U+0331,U+0E01-0E5B');
    expect(await reportFonts('en')).toBe('');
    expect(REPORT_CSP).toContain('font-src data:');
  });
});

describe('report languages', () => {
  it('reads en and th in any case, English when absent, and refuses another', () => {
    expect([reportLanguage(undefined), reportLanguage(''), reportLanguage('TH'), reportLanguage('en')]).toEqual([
      'en',
      'en',
      'th',
      'en',
    ]);
    expect(() => reportLanguage('de')).toThrow('unknown report language "de": use en or th');
  });

  it('translates by the English text with its values, and keeps a text no catalogue has in English', () => {
    const th = translator('th', REPORT_TH);
    expect(th('{{low}} to {{high}}', { low: '0.00', high: '0.35' })).toBe('0.00 ถึง 0.35');
    expect(th('Series report – {{n}} runs', { n: 3 })).toBe('รายงานอนุกรม – 3 ผลการประมวลผล');
    expect(th('Not in any catalogue: {{x}}.', { x: 'a<b' })).toBe('Not in any catalogue: a<b.');
    expect(translator('en', REPORT_TH)('{{low}} to {{high}}', { low: 1, high: 2 })).toBe('1 to 2');
  });
});
