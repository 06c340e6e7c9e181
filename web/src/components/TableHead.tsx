import { useTranslation } from 'react-i18next';

/** A results table's header row: one `th scope="col"` per column, numeric ones right-aligned. */
export interface Column {
  label: string;
  /** right-aligned ('num') */
  numeric?: boolean;
  /** read by screen readers only */
  hidden?: boolean;
}

export default function TableHead({ columns }: { columns: readonly Column[] }) {
  const { t } = useTranslation();
  return (
    <thead>
      <tr>
        {columns.map((c) => (
          <th key={c.label} scope="col" className={c.numeric ? 'num' : undefined}>
            {c.hidden ? <span className="visually-hidden">{t(c.label)}</span> : t(c.label)}
          </th>
        ))}
      </tr>
    </thead>
  );
}
