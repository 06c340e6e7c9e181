/**
 * The reports' languages (issue 27: every page is English and Thai, so are the HTML reports). The web
 * app's approach, shared: i18next with natural-language keys, where a text is its own English and a
 * catalogue maps each English text to its Thai (web/src/i18n/th.ts has the same format and spreads
 * the reports' catalogues, so a term reads the same on the page and in its report). Core's words are
 * `REPORT_TH` (report-th.ts); a plugin's are declared with its plots (`PlotFields.translations`).
 * Browser-safe.
 */
import i18next from 'i18next';

/** The languages a report is written in; English is the default. */
export const REPORT_LANGUAGES = ['en', 'th'] as const;
export type ReportLanguage = (typeof REPORT_LANGUAGES)[number];

/** English texts (keys) and their translation, `{{name}}` for values: the web app's catalogue format. */
export type Catalogue = Readonly<Record<string, string>>;

/** A text in the reader's language: the English text and its values (`{{name}}`); plots.ts's `PlotText`. */
export type Translate = (english: string, values?: Record<string, string | number>) => string;

export const isReportLanguage = (v: unknown): v is ReportLanguage =>
  typeof v === 'string' && (REPORT_LANGUAGES as readonly string[]).includes(v);

/**
 * The language `v` names (`en`, `th`, any case); absent: English. Anything else throws a RangeError
 * naming the languages there are (the CLI and the server turn it into their usage error).
 */
export function reportLanguage(v: string | null | undefined): ReportLanguage {
  if (v === undefined || v === null || v === '') return 'en';
  const lower = v.toLowerCase();
  if (isReportLanguage(lower)) return lower;
  throw new RangeError(`unknown report language "${v}": use ${REPORT_LANGUAGES.join(' or ')}`);
}

/**
 * The translation into `lang` from the Thai catalogues given (later ones win), with i18next: a text
 * no catalogue has stays English, values are put in as they are (the HTML writer escapes).
 */
export function translator(lang: ReportLanguage, ...thai: readonly (Catalogue | undefined)[]): Translate {
  const i18n = i18next.createInstance();
  void i18n.init({
    lng: lang,
    fallbackLng: 'en',
    initAsync: false,
    // Keys are the English texts: they hold '.', ':' and '?' of their own.
    keySeparator: false,
    nsSeparator: false,
    interpolation: { escapeValue: false },
    returnEmptyString: false,
    resources: { en: { translation: {} }, th: { translation: Object.assign({}, ...thai) as Catalogue } },
  });
  return (english, values = {}) => i18n.t(english, values);
}
