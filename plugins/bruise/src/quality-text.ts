/**
 * A photo-quality flag's reason in the reader's language (issue 26 item 4), for the results pages
 * (web/src/components/QualityFlags.tsx) and the HTML report (report.ts): English shows the plugin's
 * own message (quality.ts: why, in words and figures); another language the same figures in a
 * translated sentence per flag id (its Thai in th.ts, keyed by the English sentence).
 */
import type { Translate } from '@mango/core/i18n';

/** The sentence of each flag id (English keys of the catalogue); `share`: value and threshold shown as percent. */
export const FLAG_TEXTS: Readonly<Record<string, { text: string; share?: boolean }>> = {
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
  'colour-cast': {
    text: "Colour cast with no colour card: the background's greys read a light {{value}} mired away from daylight (limit {{threshold}}).",
  },
};

/** What a reason needs of a flag (results.ts `QualityFlag`; not imported from there, which re-exports this module). */
interface FlagFigures {
  id: string;
  message: string;
  value: number;
  threshold: number;
}

const percent = (v: number) => `${Math.round(1000 * v) / 10} %`;

/** The reason of `flag` in the language of `t` (`english`: the plugin's own message, unchanged). */
export function flagReason(flag: FlagFigures, t: Translate, english: boolean): string {
  const known = FLAG_TEXTS[flag.id];
  if (english || !known) return flag.message;
  const show = known.share ? percent : String;
  return t(known.text, { value: show(flag.value), threshold: show(flag.threshold) });
}
