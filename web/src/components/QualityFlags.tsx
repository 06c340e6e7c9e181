/**
 * The photo-quality flags of a bruise result (issue 26 item 4): a badge saying how many checks a
 * photo failed, and each flag's reason (the plugin's flagReason: English shows its own message, Thai
 * the same figures in a translated sentence per flag id).
 */
import { useTranslation } from 'react-i18next';
import { flagReason, type QualityFlag } from '@mango/plugin-bruise/results';

/** A flag's reason in the page's language (the plugin's flagReason). */
export function useFlagText() {
  const { t, i18n } = useTranslation();
  return (f: QualityFlag) => flagReason(f, (english, values) => t(english, values), i18n.language === 'en');
}

/** The badge and the reasons of one photo's flags; a quiet "passed" line when it raised none. */
export default function QualityFlags({ flags }: { flags: readonly QualityFlag[] | undefined }) {
  const { t } = useTranslation();
  const text = useFlagText();
  if (!flags) return null;
  if (flags.length === 0)
    return (
      <p className="quality-ok" data-testid="quality-ok">
        {t('Photo quality checks passed.')}
      </p>
    );
  return (
    <div className="quality-flags" role="note" aria-label={t('Photo quality')} data-testid="quality-flags">
      <span className="quality-badge" data-testid="quality-badge">
        ⚠ {t('Photo quality: {{count}} warning(s)', { count: flags.length })}
      </span>
      <ul>
        {flags.map((f) => (
          <li key={f.id} data-flag={f.id}>
            {text(f)}
          </li>
        ))}
      </ul>
    </div>
  );
}
