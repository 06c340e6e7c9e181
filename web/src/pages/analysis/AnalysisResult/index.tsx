/** /analysis/result: Feature Analysis Results table and the CSV export (product-spec.md sections 2, 9). */
import { useEffect, useMemo, useState } from 'react';
import { useLocation, useNavigate } from 'react-router-dom';
import { numberLimits } from '@mango/core';
import { FEATURE_VALUE_NAMES, FeaturesOptions } from '@mango/plugin-features';
import Layout from '#web/components/Layout.tsx';
import { downloadBlob } from '#web/lib/download.ts';
import {
  FEATURE_CSV_NAME,
  featureColumns,
  featureCsv,
  featureValue,
  formatFeatureValue,
} from '#web/lib/featureFormat.ts';
import { loadAnalysisSession, saveAnalysisSession, toAnalysisState } from '#web/lib/analysisSession.ts';
import FruitFeatureTable, { hasFruitRows } from '#web/components/FruitFeatureTable.tsx';
import { metaCell, metaColumnsOf } from '#web/lib/meta.ts';
import ScrollTopButton from '../Analysis/ScrollTopButton.tsx';
import '../../tool-pages.css';
import '../Analysis/analysis.css';
import { useTranslation } from 'react-i18next';
import { FEATURE_DISPLAY_NAMES, type FeatureId } from '@mango/plugin-features/names';

/** The long side a photo is downscaled to before analysis: the features schema's default maxSide. */
const ANALYSIS_MAX_SIDE = numberLimits(FeaturesOptions.shape.maxSide).default;

export default function AnalysisResult() {
  const { t } = useTranslation();
  const location = useLocation();
  const navigate = useNavigate();
  const [analysis] = useState(() => toAnalysisState(location.state) ?? loadAnalysisSession());
  useEffect(() => {
    if (analysis) saveAnalysisSession(analysis);
  }, [analysis]);

  const results = useMemo(() => analysis?.analysisResults ?? [], [analysis]);
  const selectedFeatures = useMemo(() => analysis?.selectedFeatures ?? [], [analysis]);
  const columns = useMemo(
    () => featureColumns(selectedFeatures, results, FEATURE_VALUE_NAMES),
    [selectedFeatures, results],
  );

  // The photos' experiment metadata: one column per name (none when no photo has any).
  const metaNames = useMemo(() => metaColumnsOf(results), [results]);

  // Thumbnails of the uploaded photos, when the files came along in the state.
  const [thumbs, setThumbs] = useState<Map<string, string>>(new Map());
  useEffect(() => {
    const map = new Map<string, string>();
    for (const f of analysis?.selectedFiles ?? []) if (!map.has(f.name)) map.set(f.name, URL.createObjectURL(f));
    setThumbs(map);
    return () => map.forEach((url) => URL.revokeObjectURL(url));
  }, [analysis]);

  const exportCsv = () => {
    if (results.length === 0 || columns.length === 0) {
      alert(t('No data available to export'));
      return;
    }
    const csv = featureCsv(columns, results);
    downloadBlob(new Blob([csv], { type: 'text/csv;charset=utf-8' }), FEATURE_CSV_NAME);
    navigate('/exportfeature', { state: analysis });
  };

  // Header cells: one group per feature, then its value names.
  const groups = selectedFeatures
    .map((feature) => ({ feature, span: columns.filter((c) => c.feature === feature).length }))
    .filter((g) => g.span > 0);

  return (
    <Layout>
      <section className="tool-page">
        <h1>{t('Feature Analysis Results')}</h1>
        {results.length === 0 ? (
          <div className="card empty-state">
            <p>{t('No information available')}</p>
          </div>
        ) : (
          <div className="card">
            <div className="table-wrap">
              <table className="results-table feature-table" aria-label={t('Feature analysis results')}>
                <thead>
                  <tr>
                    <th scope="col" rowSpan={2}>
                      {t('Image')}
                    </th>
                    {metaNames.map((name) => (
                      <th key={`meta.${name}`} scope="col" rowSpan={2} data-testid="meta-column">
                        {name}
                      </th>
                    ))}
                    {groups.map((g) => (
                      <th key={g.feature} scope="colgroup" colSpan={g.span} className="feature-group">
                        {t(FEATURE_DISPLAY_NAMES[g.feature as FeatureId] ?? g.feature)}
                      </th>
                    ))}
                  </tr>
                  <tr>
                    {columns.map((c) => (
                      <th key={`${c.feature}.${c.valueName}`} scope="col" className="num">
                        {c.valueName}
                      </th>
                    ))}
                  </tr>
                </thead>
                <tbody>
                  {results.map((item, i) => (
                    <tr key={`${item.image_name}-${i}`} data-testid="feature-row">
                      <th scope="row">
                        <span className="image-cell file-name" title={item.image_name}>
                          {thumbs.get(item.image_name) && (
                            <img src={thumbs.get(item.image_name)} alt="" className="thumb" />
                          )}
                          {item.image_name}
                        </span>
                      </th>
                      {metaNames.map((name) => (
                        <td key={`meta.${name}`} data-testid="meta-cell">
                          {metaCell(item, name)}
                        </td>
                      ))}
                      {item.error ? (
                        <td colSpan={Math.max(columns.length, 1)} className="feature-error" role="alert">
                          {item.error}
                        </td>
                      ) : (
                        columns.map((c) => (
                          <td key={`${c.feature}.${c.valueName}`} className="num">
                            {formatFeatureValue(featureValue(item, c))}
                          </td>
                        ))
                      )}
                    </tr>
                  ))}
                </tbody>
              </table>
            </div>
            {results.some((r) => r.downscaled) && (
              <p className="tool-status">
                {t('Some images were downscaled to {{maxSide}} px on the long side before analysis.', {
                  maxSide: ANALYSIS_MAX_SIDE,
                })}
              </p>
            )}
          </div>
        )}
        {hasFruitRows(results) && (
          <div className="card" style={{ marginTop: 20 }} data-testid="fruit-features">
            <h2>{t('Features per fruit')}</h2>
            <FruitFeatureTable items={results} />
          </div>
        )}
        <div className="tool-actions">
          <button
            type="button"
            className="btn btn-secondary"
            onClick={() => navigate('/analysis', { state: { selectedFeatures } })}
          >
            {t('New analysis')}
          </button>
          <button type="button" className="btn btn-primary" onClick={exportCsv}>
            {t('Export CSV')}
          </button>
        </div>
      </section>
      <ScrollTopButton threshold={300} />
    </Layout>
  );
}
