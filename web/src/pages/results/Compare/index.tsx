/**
 * /results/compare?ids=ID,ID: two or more stored runs side by side with the same plots (grouped by
 * the same metadata column), each with its summary. Reached from the results list (select runs,
 * Compare). Its "one series" view (`&view=series`, Series.tsx) stacks the runs' rows instead and
 * follows each fruit_id over the runs' days.
 */
import { useEffect, useMemo, useState } from 'react';
import { Link, useSearchParams } from 'react-router-dom';
import { useTranslation } from 'react-i18next';
import { summaryStats } from '@mango/core/results';
import Layout from '#web/components/Layout.tsx';
import EmptyState from '#web/components/EmptyState.tsx';
import { fetchRun, type StoredRun } from '#web/lib/runs.ts';
import { bruiseItems } from '../bruiseItems.ts';
import { runKindLabel } from '#web/lib/runKinds.ts';
import { formatTime } from '#web/pages/home/Dashboard/history.ts';
import { useFormat } from '#web/i18n/index.ts';
import RunPlots from '../plots/RunPlots.tsx';
import Series from './Series.tsx';
import '../../tool-pages.css';
import '../results.css';
import { DEFAULT_REPORT_THRESHOLD } from '@mango/plugin-bruise/report';

/** The run ids of the query string, each once, in the order given. */
const compareIds = (ids: string | null) => [
  ...new Set(
    (ids ?? '')
      .split(',')
      .map((s) => s.trim())
      .filter(Boolean),
  ),
];

export default function Compare() {
  const { t, i18n } = useTranslation();
  const fmt = useFormat();
  const [params, setParams] = useSearchParams();
  const ids = useMemo(() => compareIds(params.get('ids')), [params]);
  const series = params.get('view') === 'series';
  const showSeries = (on: boolean) =>
    setParams(
      (p) => {
        const next = new URLSearchParams(p);
        if (on) next.set('view', 'series');
        else next.delete('view');
        return next;
      },
      { replace: true },
    );
  const [runs, setRuns] = useState<StoredRun[] | undefined>(undefined);
  const [missing, setMissing] = useState<string[]>([]);
  const [error, setError] = useState('');

  useEffect(() => {
    let cancelled = false;
    setRuns(undefined);
    Promise.all(ids.map((id) => fetchRun(id)))
      .then((found) => {
        if (cancelled) return;
        setMissing(ids.filter((_, i) => !found[i]));
        setRuns(found.filter((r): r is StoredRun => Boolean(r)));
      })
      .catch((e: unknown) => !cancelled && setError((e as Error).message));
    return () => {
      cancelled = true;
    };
  }, [ids]);

  const bruiseRuns = useMemo(() => (runs ?? []).filter((r) => bruiseItems(r).length > 0), [runs]);

  let body;
  if (error) {
    body = (
      <p className="form-error" role="alert">
        {t(error)}
      </p>
    );
  } else if (ids.length < 2) {
    body = (
      <EmptyState message={t('Select two or more runs to compare.')} to="/results" action={t('Back to results')} />
    );
  } else if (runs === undefined) {
    body = <p className="page-loading">{t('Loading runs...')}</p>;
  } else {
    body = (
      <>
        {missing.length > 0 && (
          <p className="form-error" role="alert" data-testid="compare-missing">
            {t('Runs not found: {{ids}}', { ids: missing.join(', ') })}
          </p>
        )}
        {runs.length > bruiseRuns.length && (
          <p className="field-hint">{t('Runs without bruise figures are left out of the plots.')}</p>
        )}
        <div className="compare-runs">
          {runs.map((run) => {
            const stats = summaryStats(
              bruiseItems(run).map((p) => p.figures.bruise_percent),
              DEFAULT_REPORT_THRESHOLD,
            );
            return (
              <div key={run.id} className="card" data-testid="compare-run">
                <h2>
                  <Link to={`/results/${run.id}`}>{runKindLabel(run.operation, i18n.language)}</Link>
                </h2>
                <dl className="facts run-facts">
                  <dt>{t('Date/Time')}</dt>
                  <dd>
                    <time dateTime={run.created_at}>{formatTime(run.created_at, fmt.locale)}</time>
                  </dd>
                  <dt>{t('Photos')}</dt>
                  <dd>{run.item_count}</dd>
                  <dt>{t('Mean bruise %')}</dt>
                  <dd>{stats.mean === null ? '–' : fmt.fixed(stats.mean)}</dd>
                  <dt>{t('Method')}</dt>
                  <dd>{run.method_used ?? run.method ?? '–'}</dd>
                </dl>
              </div>
            );
          })}
        </div>
        {bruiseRuns.length > 0 && (
          <>
            <h2>{t('Plots')}</h2>
            <div className="view-switch" role="group" aria-label={t('Plots')}>
              <button
                type="button"
                aria-pressed={!series}
                className={series ? undefined : 'active'}
                onClick={() => showSeries(false)}
              >
                {t('Side by side')}
              </button>
              <button
                type="button"
                aria-pressed={series}
                className={series ? 'active' : undefined}
                onClick={() => showSeries(true)}
              >
                {t('One series')}
              </button>
            </div>
            {series ? <Series runs={bruiseRuns} /> : <RunPlots runs={bruiseRuns} />}
          </>
        )}
      </>
    );
  }

  return (
    <Layout>
      <section className="tool-page results-page compare-page">
        <p>
          <Link to="/results">{t('← All results')}</Link>
        </p>
        <h1>{t('Compare runs')}</h1>
        {body}
      </section>
    </Layout>
  );
}
