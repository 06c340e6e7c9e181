/**
 * The compare page's "one series" view (issue 27 item 1: a fruit_id followed over runs): the compared
 * runs' rows stacked with a `run` column, and the plotted figure over the `day` column (the run's date
 * where a row has none), one line per fruit_id. The stacking, the chart and the CSV are core's
 * (`stackRuns`, `timeChart`, `seriesCsv` in core/src/plots.ts); the figure is the one the runs' plugin
 * declares for its plots. Runs of a kind with other plots (or none) are left out. "Series report"
 * downloads the same series as one HTML file (core/src/series-report.ts, made in the browser: the
 * charts, a table per run and per point, every row), as `mango series --report` writes it.
 */
import { useMemo, useState } from 'react';
import { Link } from 'react-router-dom';
import { useTranslation } from 'react-i18next';
import {
  FRUIT_ID,
  groupingColumns,
  RUN_COLUMN,
  RUN_DATE_COLUMN,
  SERIES_TIME_COLUMN,
  seriesCsv,
  stackRuns,
  timeChart,
  timeSeries,
  type PlotText,
} from '@mango/core/plots';
import type { StoredRun } from '#web/lib/runs.ts';
import { downloadBlob } from '#web/lib/download.ts';
import { plotFieldsOf } from '#web/lib/runKinds.ts';
import { useFormat } from '#web/i18n/index.ts';
import { formatTime } from '#web/pages/home/Dashboard/history.ts';
import Chart from '../plots/Chart.tsx';

export default function Series({ runs }: { runs: StoredRun[] }) {
  const { t, i18n } = useTranslation();
  const fmt = useFormat();
  // the first plotted run's kind decides the figure; runs plotting another one are left out
  const fields = useMemo(() => runs.map((r) => plotFieldsOf(r.operation)).find(Boolean), [runs]);
  const stacked = useMemo(() => runs.filter((r) => fields && plotFieldsOf(r.operation) === fields), [runs, fields]);
  const data = useMemo(
    () =>
      fields &&
      stackRuns(
        stacked.map((r) => ({ id: r.id, created_at: r.created_at, items: r.items })),
        fields,
      ),
    [stacked, fields],
  );
  // the metadata columns the lines may be coloured by (a treatment, a cultivar); none: a colour per fruit
  const groups = useMemo(
    () =>
      data ? groupingColumns(data).filter((c) => ![RUN_COLUMN, RUN_DATE_COLUMN, SERIES_TIME_COLUMN].includes(c)) : [],
    [data],
  );
  const [picked, setPicked] = useState('');
  const column = groups.includes(picked) ? picked : null;
  const chart = useMemo(() => {
    if (!data) return null;
    const text: PlotText = (english, values) => t(english, values ?? {});
    // a phone's narrower card draws it narrower (Chart.tsx fits it to the card)
    return timeChart(data, column, { text, width: 560 });
  }, [data, column, t]);
  if (!data || !fields) return <p>{t('No scored photos to plot.')}</p>;

  const byFruit = timeSeries(data, null).by === 'fruit_id';
  const runOf = new Map(stacked.map((r) => [r.id, r]));
  const columns = data.columns.filter((c) => c !== RUN_COLUMN && c !== RUN_DATE_COLUMN);
  const download = () =>
    downloadBlob(
      new Blob([seriesCsv(data, { newline: '\r\n' })], { type: 'text/csv;charset=utf-8' }),
      `series-${stacked.length}-runs.csv`,
    );
  const downloadReport = async () => {
    const { seriesReportHtml } = await import('@mango/core/series-report');
    const runs = stacked.map((r) => ({ id: r.id, created_at: r.created_at, items: r.items }));
    // in the page's language (its figures the same in both)
    const html = await seriesReportHtml(runs, fields, { lang: i18n.language === 'th' ? 'th' : 'en' });
    downloadBlob(new Blob([html], { type: 'text/html;charset=utf-8' }), `series-${stacked.length}-runs.html`);
  };

  return (
    <section className="compare-series" data-testid="compare-series">
      <p className="field-hint">
        {t(
          'The runs’ photos as one table, with the run of each row. Each fruit_id is one line over the day column (the run’s date for a photo without a day).',
        )}
      </p>
      {runs.length > stacked.length && (
        <p className="field-hint" data-testid="series-left-out">
          {t('Runs of another kind are left out of the series: {{n}}.', { n: runs.length - stacked.length })}
        </p>
      )}
      {!byFruit && data.photos.length > 0 && (
        <p className="field-hint">{t('No photo has a fruit_id: one line per group instead of one per fruit.')}</p>
      )}
      {groups.length > 0 && (
        <div className="plot-controls">
          <label>
            {t('Colour by')}
            <select value={column ?? ''} onChange={(e) => setPicked(e.target.value)} data-testid="series-colour-by">
              <option value="">{t('each fruit')}</option>
              {groups.map((c) => (
                <option key={c} value={c}>
                  {c}
                </option>
              ))}
            </select>
          </label>
        </div>
      )}
      {chart ? <Chart chart={chart} testId="plot-series" /> : <p>{t('No scored photos to plot.')}</p>}
      <div className="tool-actions run-exports">
        <button type="button" className="btn btn-secondary" onClick={download} disabled={data.photos.length === 0}>
          {t('Series CSV')}
        </button>
        <button
          type="button"
          className="btn btn-secondary"
          onClick={() => void downloadReport()}
          disabled={data.photos.length === 0}
        >
          {t('Series report')}
        </button>
      </div>
      <div className="table-wrap">
        <table className="results-table series-table" data-testid="series-table" aria-label={t('Stacked rows')}>
          <thead>
            <tr>
              <th scope="col">{t('Run')}</th>
              <th scope="col">{t('Image')}</th>
              {columns.map((c) => (
                <th scope="col" key={c}>
                  {c}
                </th>
              ))}
              <th scope="col" className="num">
                {t(fields.text.value)}
              </th>
            </tr>
          </thead>
          <tbody>
            {data.photos.map((p, i) => {
              const run = runOf.get(p.meta[RUN_COLUMN] ?? '');
              return (
                <tr
                  key={i}
                  data-testid="series-row"
                  data-run={p.meta[RUN_COLUMN]}
                  data-fruit-id={p.meta[FRUIT_ID] ?? ''}
                  data-value={p.value}
                >
                  <td>
                    {run ? (
                      <Link to={`/results/${run.id}`}>
                        <time dateTime={run.created_at}>{formatTime(run.created_at, fmt.locale)}</time>
                      </Link>
                    ) : (
                      p.meta[RUN_COLUMN]
                    )}
                  </td>
                  <td className="file-name">{p.image}</td>
                  {columns.map((c) => (
                    <td key={c}>{p.meta[c] ?? ''}</td>
                  ))}
                  <td className="num">{fmt.fixed(p.value)}</td>
                </tr>
              );
            })}
          </tbody>
        </table>
      </div>
    </section>
  );
}
