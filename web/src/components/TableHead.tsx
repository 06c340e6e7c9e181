import { useTranslation } from 'react-i18next';

/** A results table's header row: one `th scope="col"` per column, numeric ones right-aligned. */
export interface Column {
  label: string;
  /** right-aligned ('num') */
  numeric?: boolean;
  /** read by screen readers only */
  hidden?: boolean;
  /** the user's own data (a metadata name): shown as it is, not translated */
  raw?: boolean;
}

/** Metadata names as columns of a table (the user's own names, shown untranslated). */
export const metaHeadColumns = (names: readonly string[]): Column[] => names.map((label) => ({ label, raw: true }));

export default function TableHead({ columns }: { columns: readonly Column[] }) {
  const { t } = useTranslation();
  return (
    <thead>
      <tr>
        {columns.map((c) => (
          <th
            key={c.raw ? `meta.${c.label}` : c.label}
            scope="col"
            className={c.numeric ? 'num' : undefined}
            data-testid={c.raw ? 'meta-column' : undefined}
          >
            {c.raw ? c.label : c.hidden ? <span className="visually-hidden">{t(c.label)}</span> : t(c.label)}
          </th>
        ))}
      </tr>
    </thead>
  );
}
