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

/** The two inputs: the option each sets, its label and its placeholder (both translated at render). */
const FIELDS = [
  { key: 'referenceMm', label: 'Reference object diameter (mm)', placeholder: 'e.g. 25 for a coin' },
  { key: 'pxPerCm', label: 'or pixels per cm', placeholder: undefined },
] as const;

export default function ScaleInputs<T extends ScaleText>({ value, onChange }: { value: T; onChange: (v: T) => void }) {
  const { t } = useTranslation();
  return (
    <>
      {FIELDS.map(({ key, label, placeholder }) => (
        <label key={key}>
          {t(label)}
          <input
            type="number"
            min={SCALE_LIMITS[key].min}
            max={SCALE_LIMITS[key].max}
            step={SCALE_LIMITS[key].step}
            name={wireName(key)}
            placeholder={placeholder && t(placeholder)}
            value={value[key]}
            onChange={(e) => onChange({ ...value, [key]: e.target.value })}
          />
        </label>
      ))}
    </>
  );
}
