/**
 * The per-fruit feature table of a feature analysis run per fruit (issue 27 item 3; option perFruit,
 * field per_fruit): one row per fruit, numbered as in the bruise per-fruit table, its photo's
 * metadata, every feature value measured on that fruit at full resolution, and its lengths and areas
 * in cm / cm² when the photo had a scale. Shown on /analysis/result and on a stored run's page.
 */
import { useTranslation } from 'react-i18next';
import { featureColumns, measureRows } from '@mango/plugin-features/tables';
import { formatFeatureValue } from '#web/lib/featureFormat.ts';
import { metaCell, metaColumnsOf } from '#web/lib/meta.ts';
import { type FeatureResultItem } from '@mango/plugin-features/results';

/** A scaled value's heading: its name with the unit written out ('area_cm2' -> 'area (cm²)'). */
export const scaledHeading = (name: string) => name.replace(/_cm2$/, ' (cm²)').replace(/_cm$/, ' (cm)');

/** Whether any item of an analysis has per-fruit rows. */
export const hasFruitRows = (items: readonly FeatureResultItem[]) => items.some((i) => (i.fruits?.length ?? 0) > 0);

export default function FruitFeatureTable({ items }: { items: readonly FeatureResultItem[] }) {
  const { t } = useTranslation();
  const rows = measureRows(items).filter((r) => r.fruit !== null);
  const fruits = rows.map((r) => r.fruit!);
  const columns = featureColumns(fruits.map((f) => ({ image_name: '', features: f.features })));
  const scaled = [...new Set(fruits.flatMap((f) => Object.keys(f.scaled ?? {})))];
  const meta = metaColumnsOf(rows.map((r) => r.item));
  return (
    <div className="table-wrap">
      <table className="results-table fruit-feature-table" aria-label={t('Features per fruit')}>
        <thead>
          <tr>
            <th scope="col">{t('Image')}</th>
            <th scope="col" className="num">
              {t('Fruit')}
            </th>
            {meta.map((name) => (
              <th key={`meta.${name}`} scope="col" data-testid="meta-column">
                {name}
              </th>
            ))}
            {columns.map((c) => (
              <th key={`${c.feature}.${c.valueName}`} scope="col" className="num">
                {c.valueName}
              </th>
            ))}
            {scaled.map((name) => (
              <th key={name} scope="col" className="num" data-testid="scaled-column">
                {scaledHeading(name)}
              </th>
            ))}
          </tr>
        </thead>
        <tbody>
          {rows.map(({ item, fruit }) => (
            <tr key={`${item.image_name}.${fruit!.fruit}`} data-testid="fruit-feature-row">
              <th scope="row" className="file-name" title={item.image_name}>
                {item.image_name}
              </th>
              <td className="num">{fruit!.fruit}</td>
              {meta.map((name) => (
                <td key={`meta.${name}`}>{metaCell(item, name)}</td>
              ))}
              {columns.map((c) => (
                <td key={`${c.feature}.${c.valueName}`} className="num">
                  {formatFeatureValue(fruit!.features[c.feature]?.[c.valueName])}
                </td>
              ))}
              {scaled.map((name) => (
                <td key={name} className="num">
                  {formatFeatureValue(fruit!.scaled?.[name])}
                </td>
              ))}
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}
