/**
 * /results: the signed-in user's stored runs, newest first, filterable, one page at a time ("Load
 * more"); select two or more and Compare opens them side by side (/results/compare?ids=...).
 */
import { useEffect, useState } from 'react';
import { Link, useNavigate } from 'react-router-dom';
import Layout from '#web/components/Layout.tsx';
import TableHead from '#web/components/TableHead.tsx';
import EmptyState from '#web/components/EmptyState.tsx';
import { formatTime } from '#web/pages/home/Dashboard/history.ts';
import { fetchRuns, NO_FILTERS, type RunFilters, type RunSummary } from '#web/lib/runs.ts';
import { RUN_KIND_LABELS, runKindLabel } from '#web/lib/runKinds.ts';
import '../../tool-pages.css';
import '../results.css';
import { useTranslation } from 'react-i18next';
import { useFormat } from '#web/i18n/index.ts';

const COLUMNS = [
  { label: 'Compare', hidden: true },
  { label: 'Date/Time' },
  { label: 'Operation' },
  { label: 'Photos', numeric: true },
  { label: 'Mean bruise %', numeric: true },
  { label: 'Method' },
  { label: 'Open', hidden: true },
];

export default function Runs() {
  const { t, i18n } = useTranslation();
  const fmt = useFormat();
  const [filters, setFilters] = useState<RunFilters>(NO_FILTERS);
  const [runs, setRuns] = useState<RunSummary[] | null>(null);
  const [cursor, setCursor] = useState<string | null>(null);
  const [error, setError] = useState('');
  const [loadingMore, setLoadingMore] = useState(false);
  const [selected, setSelected] = useState<string[]>([]);
  const navigate = useNavigate();
  const toggle = (id: string) => setSelected((s) => (s.includes(id) ? s.filter((x) => x !== id) : [...s, id]));

  // A new filter starts from the first page (the search waits for a pause in typing).
  useEffect(() => {
    let cancelled = false;
    const t = setTimeout(() => {
      fetchRuns(filters, null)
        .then((page) => {
          if (cancelled) return;
          setRuns(page.runs);
          setCursor(page.next_cursor);
          setError('');
        })
        .catch((e: unknown) => !cancelled && setError((e as Error).message));
    }, 250);
    return () => {
      cancelled = true;
      clearTimeout(t);
    };
  }, [filters]);

  const loadMore = async () => {
    if (!cursor) return;
    setLoadingMore(true);
    try {
      const page = await fetchRuns(filters, cursor);
      setRuns((r) => [...(r ?? []), ...page.runs]);
      setCursor(page.next_cursor);
    } catch (e) {
      setError((e as Error).message);
    } finally {
      setLoadingMore(false);
    }
  };

  const set = (patch: Partial<RunFilters>) => setFilters((f) => ({ ...f, ...patch }));

  return (
    <Layout>
      <section className="tool-page results-page">
        <h1>{t('Results')}</h1>
        <p className="tool-intro">
          {t(
            'Every bruise calculation and feature analysis you run is kept here, with the settings and software that produced it.',
          )}
        </p>
        <form className="card run-filters" onSubmit={(e) => e.preventDefault()} aria-label={t('Filter runs')}>
          <label>
            {t('Operation')}
            <select
              value={filters.operation}
              onChange={(e) => set({ operation: e.target.value as RunFilters['operation'] })}
            >
              <option value="">{t('All')}</option>
              {RUN_KIND_LABELS.map(({ operation }) => (
                <option key={operation} value={operation}>
                  {runKindLabel(operation, i18n.language)}
                </option>
              ))}
            </select>
          </label>
          <label>
            {t('From')}
            <input type="date" value={filters.from} onChange={(e) => set({ from: e.target.value })} />
          </label>
          <label>
            {t('To')}
            <input type="date" value={filters.to} onChange={(e) => set({ to: e.target.value })} />
          </label>
          <label className="grow">
            {t('File name')}
            <input
              type="search"
              placeholder={t('Search file names...')}
              value={filters.q}
              onChange={(e) => set({ q: e.target.value })}
            />
          </label>
        </form>
        {error && (
          <p className="form-error" role="alert">
            {t(error)}
          </p>
        )}
        {runs === null ? (
          <p className="page-loading">{t('Loading runs...')}</p>
        ) : runs.length === 0 ? (
          <EmptyState message={t('No runs found')} to="/bruise" action={t('Calculate bruised area')} />
        ) : (
          <div className="card">
            <div className="table-wrap">
              <table className="results-table" aria-label={t('Stored runs')}>
                <TableHead columns={COLUMNS} />
                <tbody>
                  {runs.map((run) => (
                    <tr key={run.id} data-testid="run-row">
                      <td>
                        <input
                          type="checkbox"
                          checked={selected.includes(run.id)}
                          onChange={() => toggle(run.id)}
                          aria-label={t('Compare the run of {{date}}', {
                            date: formatTime(run.created_at, fmt.locale),
                          })}
                        />
                      </td>
                      <td>
                        <time dateTime={run.created_at}>{formatTime(run.created_at, fmt.locale)}</time>
                      </td>
                      <td>{runKindLabel(run.operation, i18n.language)}</td>
                      <td className="num">{run.item_count}</td>
                      <td className="num">
                        {typeof run.summary.mean_bruise_percent === 'number'
                          ? fmt.fixed(run.summary.mean_bruise_percent)
                          : '–'}
                      </td>
                      <td>{run.method_used ?? run.method ?? '–'}</td>
                      <td>
                        <Link className="btn btn-secondary btn-small" to={`/results/${run.id}`}>
                          {t('Open')}
                        </Link>
                      </td>
                    </tr>
                  ))}
                </tbody>
              </table>
            </div>
            <div className="tool-actions compare-actions">
              <button
                type="button"
                className="btn btn-primary"
                disabled={selected.length < 2}
                onClick={() => navigate(`/results/compare?ids=${selected.map(encodeURIComponent).join(',')}`)}
              >
                {t('Compare ({{count}})', { count: selected.length })}
              </button>
              {selected.length < 2 && <span className="field-hint">{t('Select two or more runs to compare.')}</span>}
            </div>
            {cursor && (
              <div className="tool-actions">
                <button
                  type="button"
                  className="btn btn-secondary"
                  onClick={() => void loadMore()}
                  disabled={loadingMore}
                >
                  {t(loadingMore ? 'Loading...' : 'Load more')}
                </button>
              </div>
            )}
          </div>
        )}
      </section>
    </Layout>
  );
}
