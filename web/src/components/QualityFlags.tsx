/**
 * The photo-quality flags of a bruise result (issue 26 item 4): a badge saying how many checks a
 * photo failed, and each flag's reason. English shows the plugin's own message (why, in words and
 * figures); Thai the same figures in a translated sentence per flag id.
 */
import { useTranslation } from 'react-i18next';
import { type QualityFlag } from '@mango/plugin-bruise/results';

/** The sentence of each flag id (English keys, translated in th.ts); shares are shown as percent. */
const FLAG_TEXTS: Record<string, { text: string; share?: boolean }> = {
  blur: {
    text: "Out of focus: the fruit's outline is blurred over {{value}} of its diameter (limit {{threshold}}).",
    share: true,
  },
  overexposed: { text: 'Over-exposed: {{value}} of the fruit is clipped white (limit {{threshold}}).', share: true },
  underexposed: { text: 'Under-exposed: {{value}} of the fruit is clipped black (limit {{threshold}}).', share: true },
  'cut-by-edge': {
    text: 'A fruit is cut by the frame edge along {{value}} of its diameter (limit {{threshold}}).',
    share: true,
  },
  'fruit-too-small': { text: 'Fruit too small: {{value}} px across (at least {{threshold}} px needed).' },
  'jpeg-compression': { text: 'Heavy JPEG compression: quality {{value}} (at least {{threshold}} needed).' },
  'colour-cast': { text: 'Colour cast with no colour card: background chroma {{value}} (limit {{threshold}}).' },
};

const percent = (v: number) => `${Math.round(1000 * v) / 10} %`;

/** A flag's reason in the page's language. */
export function useFlagText() {
  const { t, i18n } = useTranslation();
  return (f: QualityFlag) => {
    const known = FLAG_TEXTS[f.id];
    if (i18n.language === 'en' || !known) return f.message;
    const show = known.share ? percent : String;
    return t(known.text, { value: show(f.value), threshold: show(f.threshold) });
  };
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
