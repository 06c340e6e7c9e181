/**
 * The run page's re-scoring (issue 28 item 4): a run re-scored from another, or re-scored itself,
 * shown beside the other run photo by photo (each model's bruise %, the difference, the mean and
 * median difference, the models' ids and sha256); and the "Re-score with another model" control,
 * listing the server's model versions (hidden when there is only one), which starts the job, shows
 * its progress and links to the new run.
 */
import { useEffect, useMemo, useState } from 'react';
import { Link } from 'react-router-dom';
import { useTranslation } from 'react-i18next';
import TableHead from '#web/components/TableHead.tsx';
import { useFormat } from '#web/i18n/index.ts';
import { fetchRun, type StoredRun } from '#web/lib/runs.ts';
import { fetchModels, followRescore, startRescore, type ModelVersion } from '#web/lib/rescore.ts';
import { compareRuns, shortSha } from '@mango/plugin-bruise/compare';

const COLUMNS = [
  { label: 'Photo' },
  { label: 'First model (bruise %)', numeric: true },
  { label: 'Second model (bruise %)', numeric: true },
  { label: 'Difference (points)', numeric: true },
];

/** The two runs side by side: `first` the run re-scored, `second` its re-scoring. */
function SideBySide({ first, second }: { first: StoredRun; second: StoredRun }) {
  const { t } = useTranslation();
  const fmt = useFormat();
  const c = useMemo(() => compareRuns(first, second), [first, second]);
  const pct = (v: number | null) => (v === null ? '–' : fmt.fixed(v));
  const signed = (v: number | null) => (v === null ? '–' : `${v > 0 ? '+' : ''}${fmt.fixed(v)}`);
  const model = (r: StoredRun) => `${r.model_id ?? '–'} (sha256 ${shortSha(r.model_sha256)})`;
  return (
    <div className="card rescore-compare" data-testid="rescore-compare">
      <dl className="facts">
        <dt>{t('First model')}</dt>
        <dd data-testid="rescore-first-model">
          <Link to={`/results/${first.id}`}>{model(first)}</Link>
        </dd>
        <dt>{t('Second model')}</dt>
        <dd data-testid="rescore-second-model">
          <Link to={`/results/${second.id}`}>{model(second)}</Link>
        </dd>
      </dl>
      <dl className="stat-cards" data-testid="rescore-stats">
        <div>
          <dt>{t('Photos in both')}</dt>
          <dd>{c.n}</dd>
        </div>
        <div>
          <dt>{t('Mean difference')}</dt>
          <dd data-testid="rescore-mean">{signed(c.mean_difference)}</dd>
        </div>
        <div>
          <dt>{t('Median difference')}</dt>
          <dd data-testid="rescore-median">{signed(c.median_difference)}</dd>
        </div>
        <div>
          <dt>{t('Mean absolute difference')}</dt>
          <dd>{c.mean_absolute_difference === null ? '–' : fmt.fixed(c.mean_absolute_difference)}</dd>
        </div>
      </dl>
      <div className="table-wrap">
        <table className="results-table" aria-label={t('Bruise % of each model')}>
          <TableHead columns={COLUMNS} />
          <tbody>
            {c.photos.map((p, k) => (
              <tr key={k} data-testid="rescore-photo">
                <td className="file-name" title={p.filename}>
                  {p.filename}
                </td>
                <td className="num">{pct(p.first)}</td>
                <td className="num">{pct(p.second)}</td>
                <td className="num">{signed(p.difference)}</td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
    </div>
  );
}

type Started =
  { state: 'running'; done: number; total: number } | { state: 'ended'; runId: string | null; end: string };

/** "Re-score with another model": the versions other than the run's, the job's progress, the new run. */
function RescoreControl({ run, onDone }: { run: StoredRun; onDone: () => void }) {
  const { t } = useTranslation();
  const [versions, setVersions] = useState<ModelVersion[]>([]);
  const [chosen, setChosen] = useState('');
  const [started, setStarted] = useState<Started | null>(null);
  const [error, setError] = useState('');

  useEffect(() => {
    let cancelled = false;
    fetchModels()
      .then((v) => !cancelled && setVersions(v))
      .catch(() => !cancelled && setVersions([]));
    return () => {
      cancelled = true;
    };
  }, []);
  // The versions of the task of the run's model (all of them when the server no longer has it).
  const task = versions.find((v) => v.id === run.model_id)?.task;
  const choices = versions.filter((v) => !task || v.task === task);
  if (choices.length <= 1 || !run.model_id) return null;
  const kept = run.items.some((i) => i.photo_kept);
  const model = chosen || choices.find((v) => v.id !== run.model_id)?.id || choices[0].id;

  const start = async () => {
    setError('');
    try {
      const id = await startRescore(run.id, model);
      setStarted({ state: 'running', done: 0, total: 0 });
      const end = await followRescore(id, (p) =>
        setStarted({ state: 'running', done: p.done + p.failed, total: p.total }),
      );
      setStarted({ state: 'ended', runId: end.run_id, end: end.state });
      onDone();
    } catch (e) {
      setStarted(null);
      setError((e as Error).message);
    }
  };
  const running = started?.state === 'running';

  return (
    <div className="card rescore-control" data-testid="rescore-control">
      <label>
        {t('Re-score with another model')}{' '}
        <select
          value={model}
          onChange={(e) => setChosen(e.target.value)}
          disabled={running}
          data-testid="rescore-model"
        >
          {choices.map((v) => (
            <option key={v.id} value={v.id}>
              {v.id} ({shortSha(v.sha256)}){v.active ? ` – ${t('in force')}` : ''}
              {v.id === run.model_id ? ` – ${t('this run')}` : ''}
            </option>
          ))}
        </select>
      </label>{' '}
      <button
        type="button"
        className="btn btn-secondary"
        onClick={() => void start()}
        disabled={running || !kept}
        title={kept ? undefined : t('The photos of this run were not kept')}
      >
        {t('Re-score')}
      </button>
      {running && (
        <p role="status" data-testid="rescore-progress">
          {t('Re-scoring: {{done}} of {{total}} photos', { done: started.done, total: started.total })}
        </p>
      )}
      {started?.state === 'ended' && (
        <p role="status" data-testid="rescore-done">
          {started.end === 'done' ? t('Re-scored.') : t('The re-scoring ended: {{state}}', { state: started.end })}{' '}
          {started.runId && <Link to={`/results/${started.runId}`}>{t('Open the re-scored run')}</Link>}
        </p>
      )}
      {error && (
        <p className="form-error" role="alert">
          {t(error)}
        </p>
      )}
    </div>
  );
}

/**
 * The run's re-scorings: beside the run it was re-scored from, or beside one of its re-scorings (the
 * newest unless another is chosen); then the control that makes another.
 */
export default function Rescore({ run, onChange }: { run: StoredRun; onChange: () => void }) {
  const { t } = useTranslation();
  const [pick, setPick] = useState<string | null>(null);
  const otherId = run.rescored_from ?? pick ?? run.rescores.at(-1)?.id ?? null;
  const [other, setOther] = useState<StoredRun | null | undefined>(undefined);

  useEffect(() => {
    let cancelled = false;
    setOther(undefined);
    if (otherId)
      fetchRun(otherId)
        .then((r) => !cancelled && setOther(r))
        .catch(() => !cancelled && setOther(null));
    return () => {
      cancelled = true;
    };
  }, [otherId]);

  const pair = other ? (run.rescored_from ? [other, run] : [run, other]) : null;
  return (
    <section className="run-rescore" aria-label={t('Re-scoring')}>
      {otherId && (
        <>
          <h2>{run.rescored_from ? t('Re-scored from another run') : t('Re-scored with other models')}</h2>
          {!run.rescored_from && run.rescores.length > 1 && (
            <label>
              {t('Re-scoring')}{' '}
              <select value={otherId} onChange={(e) => setPick(e.target.value)} data-testid="rescore-pick">
                {run.rescores.map((r) => (
                  <option key={r.id} value={r.id}>
                    {r.model_id ?? '–'} ({shortSha(r.model_sha256)}), {r.created_at}
                  </option>
                ))}
              </select>
            </label>
          )}
          {other === null && <p className="muted">{t('The other run was deleted.')}</p>}
          {pair && <SideBySide first={pair[0]} second={pair[1]} />}
        </>
      )}
      <RescoreControl run={run} onDone={onChange} />
    </section>
  );
}
