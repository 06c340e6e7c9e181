import { useTranslation } from 'react-i18next';
import type { MetaInput } from '#web/lib/meta.ts';

/** The upload pages' experiment-metadata fields: a file name pattern and a metadata CSV. */
export default function MetaFields({ value, onChange }: { value: MetaInput; onChange: (v: MetaInput) => void }) {
  const { t } = useTranslation();
  return (
    <fieldset className="scale-options meta-options">
      <legend>{t('Experiment metadata (optional)')}</legend>
      <label>
        {t('File name pattern')}
        <input
          type="text"
          name="meta"
          placeholder={t('e.g. cv-{cultivar}_day{day}_trt-{treatment}_fruit{fruit_id}')}
          value={value.pattern}
          spellCheck={false}
          onChange={(e) => onChange({ ...value, pattern: e.target.value })}
        />
      </label>
      <label>
        {t('or a CSV file with an image column')}
        <input
          type="file"
          name="meta_csv"
          accept=".csv,text/csv"
          onChange={(e) => onChange({ ...value, csv: e.target.files?.[0] ?? null })}
        />
      </label>
      <p className="field-hint">
        {t(
          'Each {name} of the pattern is read from the file names (without the extension) and becomes a column of every table; fruit_id names the same fruit over several days.',
        )}
      </p>
    </fieldset>
  );
}
