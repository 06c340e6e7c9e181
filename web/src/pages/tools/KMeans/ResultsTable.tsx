import { rgbCss } from './colors.ts';
import type { KMeansState } from './useKMeans.ts';
import { useTranslation } from 'react-i18next';

type Props = Pick<KMeansState, 'elapsed' | 'exportResults'> & { results: NonNullable<KMeansState['results']> };

/** The 'Class Area %' table: Class, Color, Percentage, with the run's time. */
export default function ResultsTable({ results, elapsed, exportResults }: Props) {
  const { t } = useTranslation();
  return (
    <section className="card kmeans-results" aria-labelledby="kmeans-results-title">
      <div className="kmeans-results-head">
        <h2 id="kmeans-results-title">{t('Class Area %')}</h2>
        <button type="button" className="btn btn-secondary btn-small" onClick={exportResults}>
          {t('Export Results')}
        </button>
      </div>
      <table className="results-table" data-testid="kmeans-results">
        <thead>
          <tr>
            <th>{t('Class')}</th>
            <th>{t('Color')}</th>
            <th className="num">{t('Percentage')}</th>
          </tr>
        </thead>
        <tbody>
          {results.map((r, k) => (
            <tr key={`${r.name}-${k}`}>
              <td>{r.name}</td>
              <td>
                <span className="kmeans-swatch" style={{ background: rgbCss(r.color) }} /> {rgbCss(r.color)}
              </td>
              <td className="num">{r.percent}%</td>
            </tr>
          ))}
        </tbody>
      </table>
      {elapsed !== null && <p className="tool-status">Computed in {Math.round(elapsed)} ms.</p>}
    </section>
  );
}
