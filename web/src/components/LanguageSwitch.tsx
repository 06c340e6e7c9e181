/** 'English' / 'ไทย' on every page (rendered once, beside the routes); the choice is kept in local storage. */
import { useTranslation } from 'react-i18next';
import { LANGUAGES, setLanguage, type Language } from '#web/i18n/index.ts';

export default function LanguageSwitch() {
  const { i18n } = useTranslation();
  return (
    <div className="language-switch" role="group" aria-label="Language / ภาษา">
      {(Object.keys(LANGUAGES) as Language[]).map((lng) => (
        <button
          key={lng}
          type="button"
          lang={lng}
          aria-pressed={i18n.language === lng}
          className={i18n.language === lng ? 'active' : undefined}
          onClick={() => setLanguage(lng)}
        >
          {LANGUAGES[lng]}
        </button>
      ))}
    </div>
  );
}
