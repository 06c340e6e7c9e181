/**
 * The plots of stored runs (issue 27): bruise % by a metadata column the reader picks (box plot with
 * every photo, each group's n and mean with its 95 % interval, also in a table under it), bruise %
 * over time when a day or date column exists, and lesion area against fruit area. One run on the run
 * page; two or more side by side, with the same column, on the compare page.
 */
import { useMemo, useState } from 'react';
import { useTranslation } from 'react-i18next';
import {
  groupChart,
  groupingColumns,
  groupStats,
  intervalNote,
  NO_GROUP,
  plotData,
  scatterChart,
  timeChart,
  type PlotData,
  type PlotText,
} from '@mango/core/plots';
import type { StoredRun } from '#web/lib/runs.ts';
import { plotFieldsOf } from '#web/lib/runKinds.ts';
import { useFormat } from '#web/i18n/index.ts';
import { formatTime } from '#web/pages/home/Dashboard/history.ts';
import Chart from './Chart.tsx';

const num = (v: number | null, fixed: (v: number) => string) => (v === null ? '–' : fixed(v));

/** Each group's figures under its box plot (what the chart shows, readable and copyable). */
function GroupTable({ data, column }: { data: PlotData; column: string | null }) {
  const { t } = useTranslation();
  const fmt = useFormat();
  const fixed = (v: number) => fmt.fixed(v);
  const rows = groupStats(data.photos, column, data.fields.bounds ?? null);
  return (
    <div className="table-wrap">
      <table className="results-table group-table" data-testid="group-table" aria-label={t('Bruise % per group')}>
        <thead>
          <tr>
            <th scope="col">{column ?? t('Group')}</th>
            <th scope="col" className="num">
              n
            </th>
            <th scope="col" className="num">
              {t('Mean bruise %')}
            </th>
            <th scope="col" className="num">
              {t('95 % interval of the mean')}
            </th>
            <th scope="col" className="num">
              {t('Median bruise %')}
            </th>
            <th scope="col" className="num">
              {t('Quartiles')}
            </th>
          </tr>
        </thead>
        <tbody>
          {rows.map((g) => (
            <tr key={g.group} data-testid="group-row" data-group={g.group} data-n={g.n} data-mean={g.mean ?? ''}>
              <th scope="row">{!column ? t('all photos') : g.group === NO_GROUP ? t(NO_GROUP) : g.group}</th>
              <td className="num">{g.n}</td>
              <td className="num">{num(g.mean, fixed)}</td>
              <td className="num">
                {g.ci_low === null || g.ci_high === null
                  ? '–'
                  : t('{{low}} to {{high}}', { low: fixed(g.ci_low), high: fixed(g.ci_high) })}
              </td>
              <td className="num">{num(g.median, fixed)}</td>
              <td className="num">
                {g.q1 === null || g.q3 === null
                  ? '–'
                  : t('{{low}} to {{high}}', { low: fixed(g.q1), high: fixed(g.q3) })}
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}

/** The plots of one run in a column (the compare page puts several side by side). */
function RunColumn({
  run,
  data,
  column,
  narrow,
  yMax,
}: {
  run: StoredRun;
  data: PlotData;
  column: string | null;
  narrow: boolean;
  yMax?: number;
}) {
  const { t } = useTranslation();
  const fmt = useFormat();
  const text: PlotText = (english, values) => t(english, values ?? {});
  const subtitle = narrow ? formatTime(run.created_at, fmt.locale) : undefined;
  const width = narrow ? 380 : undefined;
  const charts = useMemo(() => {
    // the column may be one another run of the comparison has: this run's photos are then all "(none)"
    const options = { text, subtitle, width, yMax };
    const time = timeChart(data, column, options);
    return { groups: groupChart(data, column, options), time, scatter: scatterChart(data, column, options) };
    // eslint-disable-next-line react-hooks/exhaustive-deps -- `text` follows the language, which `t` carries
  }, [data, column, t, subtitle, width, yMax]);
  if (data.photos.length === 0) return <p>{t('No scored photos to plot.')}</p>;
  return (
    <div className="plot-column" data-testid="plot-column" data-run={run.id}>
      <Chart chart={charts.groups} />
      <GroupTable data={data} column={column} />
      {charts.time && <Chart chart={charts.time} />}
      <Chart chart={charts.scatter} />
    </div>
  );
}

export default function RunPlots({ runs }: { runs: StoredRun[] }) {
  const { t } = useTranslation();
  // each run plotted by its kind's declaration; a run whose kind declares no plots is left out
  const plotted = useMemo(
    () =>
      runs.flatMap((run) => {
        const fields = plotFieldsOf(run.operation);
        return fields ? [{ run, data: plotData(run.items, fields) }] : [];
      }),
    [runs],
  );
  const datas = useMemo(() => plotted.map((p) => p.data), [plotted]);
  const columns = useMemo(() => [...new Set(datas.flatMap(groupingColumns))], [datas]);
  const [picked, setPicked] = useState<string | null>(null);
  const column = picked !== null && columns.includes(picked) ? picked : (columns[0] ?? null);
  const compare = runs.length > 1;
  // side by side, every run's bruise % axis reaches the same top (the largest photo's)
  const yMax = compare ? Math.max(1, ...datas.flatMap((d) => d.photos.map((p) => p.value))) : undefined;
  const time = [...new Set(datas.map((d) => d.time).filter(Boolean))];
  // the intervals' bounds (bruise %: 0 to 100), said once under the controls
  const note = datas[0] ? intervalNote(datas[0].fields, (english, values) => t(english, values ?? {})) : '';
  return (
    <div className="run-plots" data-testid="run-plots">
      <div className="plot-controls">
        {columns.length > 0 ? (
          <label>
            {t('Group by')}
            <select value={column ?? ''} onChange={(e) => setPicked(e.target.value)} data-testid="group-by">
              {columns.map((c) => (
                <option key={c} value={c}>
                  {c}
                </option>
              ))}
            </select>
          </label>
        ) : (
          <p className="field-hint">{t('These photos have no metadata: the plots show all photos as one group.')}</p>
        )}
        {time.length === 0 && columns.length > 0 && (
          <p className="field-hint">{t('A day or date column would add bruise % over time.')}</p>
        )}
        <p className="field-hint">
          {t(
            'Boxes: quartiles, whiskers to 1.5 times the interquartile range; dots: photos; diamonds and bars: each group’s mean with its 95 % confidence interval (Student’s t). Photos without a value are in the group (none).',
          )}
          {note ? ` ${note}` : ''}
        </p>
      </div>
      <div className={compare ? 'plot-columns compare' : 'plot-columns'}>
        {plotted.map(({ run, data }) => (
          <RunColumn key={run.id} run={run} data={data} column={column} narrow={compare} yMax={yMax} />
        ))}
      </div>
    </div>
  );
}
