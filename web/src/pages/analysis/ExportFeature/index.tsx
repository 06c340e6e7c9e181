/** /exportfeature: confirms the CSV export; Done goes back to the results, which are kept. */
import { useLocation, useNavigate } from 'react-router-dom';
import Layout from '#web/components/Layout.tsx';
import { toAnalysisState } from '#web/lib/analysisSession.ts';
import '../../tool-pages.css';
import { useTranslation } from 'react-i18next';

export default function ExportFeature() {
  const { t } = useTranslation();
  const location = useLocation();
  const navigate = useNavigate();
  // The results page falls back to session storage when no state came along.
  const state = toAnalysisState(location.state);
  return (
    <Layout>
      <section className="tool-page">
        <div className="card empty-state export-done">
          <div className="export-check" aria-hidden="true">
            ✓
          </div>
          <h1>{t('Your CSV has been exported successfully')}</h1>
          <button
            type="button"
            className="btn btn-primary"
            autoFocus
            onClick={() => navigate('/analysis/result', state ? { state } : undefined)}
          >
            {t('Done')}
          </button>
        </div>
      </section>
    </Layout>
  );
}
