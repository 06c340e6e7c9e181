import { useEffect, useMemo, useRef, useState } from 'react';
import { Link, useNavigate } from 'react-router-dom';
import Layout from '#web/components/Layout.tsx';
import { apiJson } from '#web/api/client.ts';
import { MSG } from '#web/account/messages.ts';
import {
  filterHistory,
  formatTime,
  operationSummary,
  sortHistory,
  type HistoryRecord,
  type SortDir,
  type SortKey,
} from './history.ts';
import '#web/account/account.css';
import { useTranslation } from 'react-i18next';
import { useFormat } from '#web/i18n/index.ts';
import { FEATURE_DISPLAY_NAMES, type FeatureId } from '@mango/plugin-features/names';

const COLUMNS: { key: SortKey; label: string }[] = [
  { key: 'operation_type', label: 'Operation Type' },
  { key: 'username', label: 'User' },
  { key: 'organization', label: 'Organization' },
  { key: 'time_stamp', label: 'Date/Time' },
];

type Popup = 'user' | 'organization' | null;

/** The signed-in user's operation history: sortable columns, live filters by user and organization. */
export default function Dashboard() {
  const { t } = useTranslation();
  const fmt = useFormat();
  const navigate = useNavigate();
  const [rows, setRows] = useState<HistoryRecord[] | null>(null);
  const [sort, setSort] = useState<{ key: SortKey; dir: SortDir }>({ key: 'time_stamp', dir: 'desc' });
  const [userFilter, setUserFilter] = useState('');
  const [orgFilter, setOrgFilter] = useState('');
  const [popup, setPopup] = useState<Popup>(null);

  useEffect(() => {
    let cancelled = false;
    apiJson<HistoryRecord[]>('/api-node/user/history')
      .then(({ ok, data }) => {
        if (cancelled) return;
        if (!ok || !Array.isArray(data)) {
          console.error('Failed to fetch history', data);
          setRows([]);
        } else setRows(data);
      })
      .catch((e: unknown) => {
        console.error('Error fetching history:', e);
        if (!cancelled) setRows([]);
      });
    return () => {
      cancelled = true;
    };
  }, []);

  const shown = useMemo(
    () => sortHistory(filterHistory(rows ?? [], userFilter, orgFilter), sort.key, sort.dir),
    [rows, userFilter, orgFilter, sort],
  );

  const toggleSort = (key: SortKey) =>
    setSort((s) => (s.key === key ? { key, dir: s.dir === 'asc' ? 'desc' : 'asc' } : { key, dir: 'asc' }));

  if (rows === null) {
    return (
      <Layout>
        <p className="page-loading">{t('Loading history...')}</p>
      </Layout>
    );
  }

  return (
    <Layout className="dashboard">
      <div className="dashboard-head">
        <h1>{t('Operation History')}</h1>
        <div className="filter-buttons">
          <FilterPopup
            id="user"
            label={t('Filter by user')}
            placeholder={t('User name contains...')}
            value={userFilter}
            onChange={setUserFilter}
            open={popup === 'user'}
            onToggle={(o) => setPopup(o ? 'user' : null)}
          />
          <FilterPopup
            id="organization"
            label={t('Filter by organization')}
            placeholder={t('Organization contains...')}
            value={orgFilter}
            onChange={setOrgFilter}
            open={popup === 'organization'}
            onToggle={(o) => setPopup(o ? 'organization' : null)}
          />
        </div>
      </div>
      {rows.length === 0 ? (
        <section className="card empty-state">
          <p>{t(MSG.noOperations)}</p>
          <button type="button" className="btn btn-primary" onClick={() => navigate('/home')}>
            {t('Perform your first operation')}
          </button>
        </section>
      ) : (
        <div className="table-wrap card">
          <table className="history-table">
            <thead>
              <tr>
                {COLUMNS.map((c) => {
                  const active = sort.key === c.key;
                  return (
                    <th
                      key={c.key}
                      scope="col"
                      aria-sort={active ? (sort.dir === 'asc' ? 'ascending' : 'descending') : 'none'}
                    >
                      <button type="button" className="sort-button" onClick={() => toggleSort(c.key)}>
                        {t(c.label)}
                        <span className="sort-mark" aria-hidden="true">
                          {active ? (sort.dir === 'asc' ? '▲' : '▼') : '↕'}
                        </span>
                      </button>
                    </th>
                  );
                })}
                <th scope="col">{t('Status')}</th>
              </tr>
            </thead>
            <tbody>
              {shown.map((r, i) => (
                <tr key={`${r.time_stamp}-${r.operation_type}-${i}`}>
                  <td className="operation-cell">
                    <OperationName type={r.operation_type} runId={r.run_id} />
                  </td>
                  <td>{r.username}</td>
                  <td>{r.organization}</td>
                  <td>
                    <time dateTime={r.time_stamp}>{formatTime(r.time_stamp, fmt.locale)}</time>
                  </td>
                  <td>
                    <span className="status-badge">{t('Completed')}</span>
                  </td>
                </tr>
              ))}
              {shown.length === 0 && (
                <tr>
                  <td colSpan={5} className="muted">
                    {t('No operations match the filters.')}
                  </td>
                </tr>
              )}
            </tbody>
          </table>
        </div>
      )}
    </Layout>
  );
}

interface FilterPopupProps {
  id: string;
  label: string;
  placeholder: string;
  value: string;
  onChange: (v: string) => void;
  open: boolean;
  onToggle: (open: boolean) => void;
}

function FilterPopup({ id, label, placeholder, value, onChange, open, onToggle }: FilterPopupProps) {
  const { t } = useTranslation();
  const input = useRef<HTMLInputElement>(null);
  useEffect(() => {
    if (open) input.current?.focus();
  }, [open]);
  return (
    <div className="filter">
      <button
        type="button"
        className={`btn btn-secondary${value ? ' filter-active' : ''}`}
        aria-expanded={open}
        aria-controls={`filter-${id}`}
        onClick={() => onToggle(!open)}
      >
        {t(label)}
        {value ? `: ${value}` : ''}
      </button>
      {open && (
        <div className="filter-popup card" id={`filter-${id}`} role="dialog" aria-label={t(label)}>
          <label htmlFor={`filter-${id}-input`}>{t(label)}</label>
          <input
            ref={input}
            id={`filter-${id}-input`}
            type="text"
            placeholder={placeholder}
            value={value}
            onChange={(e) => onChange(e.target.value)}
            onKeyDown={(e) => (e.key === 'Escape' || e.key === 'Enter') && onToggle(false)}
          />
          <div className="modal-actions">
            <button type="button" className="btn btn-secondary btn-small" onClick={() => onChange('')}>
              {t('Clear')}
            </button>
            <button type="button" className="btn btn-primary btn-small" onClick={() => onToggle(false)}>
              {t('Done')}
            </button>
          </div>
        </div>
      )}
    </div>
  );
}

/** A feature id's display name (translated by the caller); an unknown id as it is. */
const featureName = (id: string) => FEATURE_DISPLAY_NAMES[id as FeatureId] ?? id;

/**
 * The operation cell: the operation's name translated; a feature analysis summarised with its
 * number of features, the full list on hover (title) and for screen readers.
 */
function OperationName({ type, runId }: { type: string; runId?: string | null }) {
  const { t } = useTranslation();
  const summary = operationSummary(type);
  const text = t(summary.label, { count: summary.count });
  const list = summary.featureIds?.map((id) => t(featureName(id))).join(', ');
  const title = runId ? (list ? `${list}. ${t('Open the stored run')}` : t('Open the stored run')) : list;
  return runId ? (
    <Link to={`/results/${runId}`} title={title} aria-label={list ? `${text}: ${list}` : undefined}>
      {text}
    </Link>
  ) : (
    <span title={title} aria-label={list ? `${text}: ${list}` : undefined}>
      {text}
    </span>
  );
}
