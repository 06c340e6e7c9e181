/**
 * The scale of the photos, typed by the user: a reference object's diameter (mm) or pixels per cm, as
 * the bruise and features plugins take it (`reference_mm`, `px_per_cm`; limits from the bruise schema,
 * which the features schema shares). Used by the bruise and the analysis pages.
 */
import { useTranslation } from 'react-i18next';
import { numberLimits, wireName } from '@mango/core';
import { BruiseOptions } from '@mango/plugin-bruise';

/** The two scale inputs as typed (text: blank means not given). */
export interface ScaleText {
  referenceMm: string;
  pxPerCm: string;
}

/** The limits of the scale inputs: the bruise plugin's schema's (min, max, step). */
export const SCALE_LIMITS = {
  referenceMm: numberLimits(BruiseOptions.shape.referenceMm),
  pxPerCm: numberLimits(BruiseOptions.shape.pxPerCm),
};

/** The scale options typed, by wire name (`reference_mm`), as the API takes them; blank ones left out. */
export function scaleFields(scale: ScaleText): Record<string, string> {
  const typed = (['referenceMm', 'pxPerCm'] as const).filter((key) => scale[key].trim());
  return Object.fromEntries(typed.map((key) => [wireName(key), scale[key].trim()]));
}

/** The typed scale by wire name as numbers (a batch job's options). */
export const scaleNumbers = (scale: ScaleText): Record<string, number> =>
  Object.fromEntries(Object.entries(scaleFields(scale)).map(([name, text]) => [name, Number(text)]));

export default function ScaleInputs<T extends ScaleText>({ value, onChange }: { value: T; onChange: (v: T) => void }) {
  const { t } = useTranslation();
  return (
    <>
      <label>
        {t('Reference object diameter (mm)')}
        <input
          type="number"
          min={SCALE_LIMITS.referenceMm.min}
          max={SCALE_LIMITS.referenceMm.max}
          step={SCALE_LIMITS.referenceMm.step}
          name={wireName('referenceMm')}
          placeholder={t('e.g. 25 for a coin')}
          value={value.referenceMm}
          onChange={(e) => onChange({ ...value, referenceMm: e.target.value })}
        />
      </label>
      <label>
        {t('or pixels per cm')}
        <input
          type="number"
          min={SCALE_LIMITS.pxPerCm.min}
          max={SCALE_LIMITS.pxPerCm.max}
          step={SCALE_LIMITS.pxPerCm.step}
          name={wireName('pxPerCm')}
          value={value.pxPerCm}
          onChange={(e) => onChange({ ...value, pxPerCm: e.target.value })}
        />
      </label>
    </>
  );
}
