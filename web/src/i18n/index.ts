/**
 * The web app's languages: English (the texts of product-spec.md, written in the code as they are
 * shown) and Thai. i18next with natural-language keys: a text is its own English translation, and
 * th.ts maps each English text to Thai. The choice is kept in local storage under `language`.
 */
import i18n from 'i18next';
import { initReactI18next, useTranslation } from 'react-i18next';
import { th } from './th.ts';

export const LANGUAGES = { en: 'English', th: 'ไทย' } as const;
export type Language = keyof typeof LANGUAGES;
export const LANGUAGE_KEY = 'language';

function storedLanguage(): Language {
  try {
    const v = localStorage.getItem(LANGUAGE_KEY);
    return v === 'th' ? 'th' : 'en';
  } catch {
    return 'en';
  }
}

void i18n.use(initReactI18next).init({
  lng: storedLanguage(),
  fallbackLng: 'en',
  // Keys are the English texts: they hold '.', ':' and '?' of their own.
  keySeparator: false,
  nsSeparator: false,
  interpolation: { escapeValue: false },
  resources: { en: { translation: {} }, th: { translation: th } },
  returnEmptyString: false,
});

const setHtmlLang = (lng: string) => {
  if (typeof document !== 'undefined') document.documentElement.lang = lng;
};
setHtmlLang(i18n.language);

export function setLanguage(lng: Language) {
  try {
    localStorage.setItem(LANGUAGE_KEY, lng);
  } catch {
    // a full or blocked storage: the choice lasts for this page only
  }
  void i18n.changeLanguage(lng);
  setHtmlLang(lng);
}

/** The BCP 47 locale of a language for Intl (Thai dates use the Buddhist era, as Thai users read them). */
export const localeOf = (lng: string) => (lng === 'th' ? 'th-TH' : undefined);

/**
 * Formatting per language. English keeps the product's own forms (percentages with 2 decimals,
 * plain integers); Thai uses Intl's th-TH forms.
 */
export function useFormat() {
  const { i18n: current } = useTranslation();
  const locale = localeOf(current.language);
  return {
    locale,
    /** a number with exactly `digits` decimals */
    fixed(value: number | null | undefined, digits = 2): string {
      if (typeof value !== 'number' || !Number.isFinite(value)) return '-';
      return locale
        ? value.toLocaleString(locale, { minimumFractionDigits: digits, maximumFractionDigits: digits })
        : value.toFixed(digits);
    },
    integer(value: number): string {
      return locale ? Math.round(value).toLocaleString(locale) : String(Math.round(value));
    },
  };
}

export default i18n;
