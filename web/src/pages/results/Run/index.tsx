/**
 * /results/:id: one stored run. Summary statistics with a threshold the user sets, a histogram of
 * bruise % over the photos (recharts), the plots by metadata (plots/RunPlots.tsx), the per-photo table expandable per fruit, the photos beside
 * their overlays, exports (tables, results JSON, zip, the HTML report), the corrected masks' annotations
 * (download as COCO, import COCO, CVAT or Label Studio: Annotations.tsx) and delete.
 */
import { Fragment, useEffect, useMemo, useState } from 'react';
import { Link, useNavigate, useParams } from 'react-router-dom';
import { Bar, BarChart, CartesianGrid, ResponsiveContainer, Tooltip, XAxis, YAxis } from 'recharts';
import { histogramBins, summaryStats } from '@mango/core/results';
import { GRADE_PRESETS, lotSummary } from '@mango/plugin-bruise/grades';
import { runGradeRules } from '@mango/plugin-bruise/grade-option';
import Layout from '#web/components/Layout.tsx';
import ConfirmDialog from '#web/components/ConfirmDialog.tsx';
import TableHead, { metaHeadColumns } from '#web/components/TableHead.tsx';
import FruitFeatureTable, { hasFruitRows } from '#web/components/FruitFeatureTable.tsx';
import { metaCell, metaColumnsOf } from '#web/lib/meta.ts';
import EmptyState from '#web/components/EmptyState.tsx';
import QualityFlags from '#web/components/QualityFlags.tsx';
import { formatTime } from '#web/pages/home/Dashboard/history.ts';
import { bruiseItems } from '../bruiseItems.ts';
import {
  failedItems,
  deleteRun,
  downloadExport,
  fetchRun,
  type ExportFormat,
  type RunItem,
  type StoredRun,
} from '#web/lib/runs.ts';
import '../../tool-pages.css';
import '../results.css';
import MaskEditor from '../MaskEditor/index.tsx';
import { useTranslation } from 'react-i18next';
import { runKindLabel } from '#web/lib/runKinds.ts';
import { useFormat } from '#web/i18n/index.ts';
import { fruitGradeText } from '#web/lib/fruitGrade.ts';
import RunPlots from '../plots/RunPlots.tsx';
import Rescore from './Rescore.tsx';
import Annotations from './Annotations.tsx';
import { DEFAULT_REPORT_THRESHOLD } from '@mango/plugin-bruise/report';
import { isBruiseFigures } from '@mango/plugin-bruise/results';
import { type FeatureResultItem } from '@mango/plugin-features/results';

const PHOTO_COLUMNS = [
  { label: 'Details', hidden: true },
  { label: 'Photo' },
  { label: 'Fruit', numeric: true },
  { label: 'Fruit pixels', numeric: true },
  { label: 'Bruise %', numeric: true },
  { label: 'Non-Bruise %', numeric: true },
  { label: 'Lesions', numeric: true },
  { label: 'Colour difference', numeric: true },
  { label: 'Bruise cm²', numeric: true },
  { label: 'Grade' },
];

/** A photo's grades: each grade with its fruit count, e.g. "Class I ×2, Extra". */
function gradeCounts(grades: (string | null | undefined)[]): string {
  const counts = new Map<string, number>();
  for (const g of grades) if (g) counts.set(g, (counts.get(g) ?? 0) + 1);
  return [...counts].map(([g, n]) => (n > 1 ? `${g} ×${n}` : g)).join(', ') || '–';
}

const EXPORTS: { format: ExportFormat; label: string; bruiseOnly?: boolean; otherLabel?: string }[] = [
  // another kind of run: its first declared table (features, classes, cut-outs)
  { format: 'csv', label: 'Per-fruit CSV', otherLabel: 'CSV table' },
  { format: 'images-csv', label: 'Per-image CSV', bruiseOnly: true },
  { format: 'zip', label: 'ZIP (tables, overlays, provenance)' },
  // the kept photos scored again: overlays at the photo's size and the masks
  { format: 'zip-full', label: 'Download full resolution (zip)', bruiseOnly: true },
  { format: 'json', label: 'Results JSON' },
  { format: 'html', label: 'Report (HTML)', bruiseOnly: true },
  { format: 'provenance', label: 'Provenance' },
];

/**
 * Why a corrected photo shows the model's overlay (its item's `corrected_overlay`): a correction
 * saved before corrected overlays were stored, which the server draws at its start when it can.
 */
const MODEL_OVERLAY_REASONS: Record<Exclude<NonNullable<RunItem['corrected_overlay']>, 'drawn'>, string> = {
  'photo-not-kept': "The photo was not kept, so the corrected masks cannot be drawn: this is the model's overlay",
  pending: "The overlay of the corrected masks is being drawn: this is the model's overlay until then",
  'not-drawn': "This kind of run draws no overlay of corrected masks: this is the model's overlay",
  failed: "The overlay of the corrected masks could not be drawn: this is the model's overlay",
};

const num = (v: number | null | undefined, digits = 2) =>
  typeof v === 'number' && Number.isFinite(v) ? v.toFixed(digits) : '–';

/**
 * What a run item holds, in a line: its error, an analysis' feature ids, or another plugin's figures
 * (numbers and texts by name; a list of named parts, such as K-Means classes, as name and percent).
 */
function itemSummary(result: Record<string, unknown>): string {
  if (typeof result.error === 'string' && result.error) return result.error;
  const features = result.features;
  if (features && typeof features === 'object') return Object.keys(features).join(', ');
  const parts = Object.entries(result).flatMap(([key, v]): string[] => {
    if (key === 'filename' || key === 'image_name') return [];
    if (typeof v === 'number' || typeof v === 'string') return [`${key}: ${v}`];
    if (Array.isArray(v))
      return v.flatMap((e) =>
        e && typeof e === 'object' && 'name' in e
          ? [`${String(e.name)} ${'percent' in e ? `${String(e.percent)} %` : ''}`.trim()]
          : [],
      );
    return [];
  });
  return parts.length ? parts.join(', ') : '–';
}

export default function Run() {
  const { t, i18n } = useTranslation();
  const fmt = useFormat();
  const { id = '' } = useParams();
  const navigate = useNavigate();
  const [run, setRun] = useState<StoredRun | null | undefined>(undefined);
  const [error, setError] = useState('');
  const [threshold, setThreshold] = useState(DEFAULT_REPORT_THRESHOLD);
  const [expanded, setExpanded] = useState<Set<number>>(new Set());
  const [confirming, setConfirming] = useState(false);
  const [editing, setEditing] = useState<number | null>(null);
  const [reloads, setReloads] = useState(0);

  useEffect(() => {
    let cancelled = false;
    fetchRun(id)
      .then((r) => !cancelled && setRun(r))
      .catch((e: unknown) => !cancelled && setError((e as Error).message));
    return () => {
      cancelled = true;
    };
  }, [id, reloads]);

  const photos = useMemo(() => (run ? bruiseItems(run) : []), [run]);
  const runOnly = useMemo(() => (run ? [run] : []), [run]);
  const failed = useMemo(() => (run ? failedItems(run) : []), [run]);
  const percents = useMemo(() => photos.map((p) => p.figures.bruise_percent), [photos]);
  // A full-resolution export scores the kept photos again: every scored photo must be kept.
  const photosKept = photos.length > 0 && photos.every((p) => p.item.photo_kept);
  const flagged = useMemo(() => photos.filter((p) => (p.figures.quality?.flags.length ?? 0) > 0), [photos]);
  const stats = useMemo(() => summaryStats(percents, threshold), [percents, threshold]);
  const bins = useMemo(() => histogramBins(percents), [percents]);
  // The lot summary of a graded run (in the order of its rules).
  // The photos' experiment metadata, one column per name (none when no photo has any).
  const metaNames = useMemo(() => (run ? metaColumnsOf(run.items) : []), [run]);
  // A feature analysis per fruit: its items' per-fruit rows (each item's result with its metadata).
  const featureItems = useMemo(
    () =>
      run && !run.items.some((i) => isBruiseFigures(i.result as never))
        ? run.items.map((i) => ({ ...(i.result as FeatureResultItem), image_name: i.filename, meta: i.meta }))
        : [],
    [run],
  );
  const lot = useMemo(() => {
    const items = photos.map((p) => p.figures);
    const id = items.find((f) => f.grades)?.grades;
    // the rules' own order: the run's grade set (a preset or a lab's rules, its options), else the preset named
    return id ? lotSummary(items, runGradeRules(run?.options) ?? GRADE_PRESETS[id]) : null;
  }, [photos, run?.options]);

  if (error) {
    return (
      <Layout>
        <p className="form-error" role="alert">
          {t(error)}
        </p>
      </Layout>
    );
  }
  if (run === undefined) {
    return (
      <Layout>
        <p className="page-loading">{t('Loading run...')}</p>
      </Layout>
    );
  }
  if (run === null) {
    return (
      <Layout>
        <section className="tool-page">
          <EmptyState message={t('Run not found')} to="/results" action={t('Back to results')} />
        </section>
      </Layout>
    );
  }

  // Bruise figures get the bruise layout (charts, per-fruit rows); any other run its items' summaries.
  const bruise = run.items.some((i) => isBruiseFigures(i.result as never));
  const toggle = (i: number) =>
    setExpanded((s) => {
      const next = new Set(s);
      if (next.has(i)) next.delete(i);
      else next.add(i);
      return next;
    });
  const exportAs = (format: ExportFormat) =>
    // the HTML report in the page's language
    downloadExport(run.id, format, threshold, i18n.language).catch((e: unknown) => alert(t((e as Error).message)));
  const remove = async () => {
    setConfirming(false);
    try {
      await deleteRun(run.id);
      navigate('/results', { replace: true });
    } catch (e) {
      alert(t((e as Error).message));
    }
  };

  return (
    <Layout>
      <section className="tool-page results-page">
        <p>
          <Link to="/results">{t('← All results')}</Link>
        </p>
        <h1>{runKindLabel(run.operation, i18n.language)}</h1>
        <dl className="facts run-facts">
          <dt>{t('Date/Time')}</dt>
          <dd>
            <time dateTime={run.created_at}>{formatTime(run.created_at, fmt.locale)}</time>
          </dd>
          <dt>{t('Photos')}</dt>
          <dd>{run.item_count}</dd>
          {bruise && (
            <>
              <dt>{t('Method')}</dt>
              <dd>
                {run.method ?? '–'} ({t('ran:')} {run.method_used ?? '–'})
              </dd>
              <dt>{t('Model')}</dt>
              <dd>{run.model_id ?? t('none (classical)')}</dd>
            </>
          )}
          <dt>{t('Software')}</dt>
          <dd>
            Mango Bruise Tracker {run.app_version}
            {run.plugin_version ? t(', plugin {{version}}', { version: run.plugin_version }) : ''}
          </dd>
          <dt>{t('By')}</dt>
          <dd>
            {run.username} ({run.organization})
          </dd>
        </dl>

        <div className="tool-actions run-exports" role="group" aria-label={t('Export')}>
          {EXPORTS.filter((e) => bruise || !e.bruiseOnly).map((e) => (
            <button
              key={e.format}
              type="button"
              className="btn btn-secondary"
              onClick={() => void exportAs(e.format)}
              disabled={e.format === 'zip-full' && !photosKept}
              title={e.format === 'zip-full' && !photosKept ? t('The photos of this run were not kept') : undefined}
            >
              {t(bruise ? e.label : (e.otherLabel ?? e.label))}
            </button>
          ))}
          <button type="button" className="btn btn-danger" onClick={() => setConfirming(true)}>
            {t('Delete run')}
          </button>
        </div>

        {bruise && <Rescore run={run} onChange={() => setReloads((n) => n + 1)} />}

        {bruise && <Annotations runId={run.id} onImported={() => setReloads((n) => n + 1)} />}

        {bruise && (
          <>
            <h2>{t('Summary')}</h2>
            <div className="card run-summary">
              <label className="threshold">
                {t('Threshold (bruise %)')}
                <input
                  type="number"
                  min={0}
                  max={100}
                  step={0.5}
                  value={threshold}
                  onChange={(e) => setThreshold(Math.min(100, Math.max(0, Number(e.target.value) || 0)))}
                />
              </label>
              <dl className="stat-cards" data-testid="run-stats">
                <div>
                  <dt>{t('n')}</dt>
                  <dd>{stats.n}</dd>
                </div>
                <div>
                  <dt>{t('Mean bruise %')}</dt>
                  <dd>{num(stats.mean)}</dd>
                </div>
                <div>
                  <dt>{t('Median bruise %')}</dt>
                  <dd>{num(stats.median)}</dd>
                </div>
                <div>
                  <dt>{t('90th percentile')}</dt>
                  <dd>{num(stats.p90)}</dd>
                </div>
                <div>
                  <dt>{t('Share over {{threshold}} %', { threshold })}</dt>
                  <dd>{stats.share_over === null ? '–' : `${fmt.fixed(100 * stats.share_over, 1)} %`}</dd>
                </div>
              </dl>
            </div>

            {lot && (
              <>
                <h2>{t('Lot summary')}</h2>
                <div className="card run-lot" data-testid="run-lot">
                  <p>
                    {t('Grades:')} <strong>{lot.grades}</strong> –{' '}
                    {t('{{graded}} of {{total}} fruit graded', { graded: lot.graded, total: lot.fruit_count })}
                    {lot.accepted_share !== null && (
                      <>
                        {t(', accepted:')} <strong>{lot.accepted}</strong> ({fmt.fixed(100 * lot.accepted_share, 1)} %)
                      </>
                    )}
                  </p>
                  <table className="results-table lot-table" aria-label={t('Fruit per grade')}>
                    <TableHead
                      columns={[{ label: 'Grade' }, { label: 'Fruit', numeric: true }, { label: 'Accepted' }]}
                    />
                    <tbody>
                      {lot.counts.map((c) => (
                        <tr key={c.grade}>
                          <td>{t(c.grade)}</td>
                          <td className="num">{c.count}</td>
                          <td>{t(c.accepted ? 'yes' : 'no')}</td>
                        </tr>
                      ))}
                    </tbody>
                  </table>
                  {lot.size_estimated > 0 && (
                    <p className="field-hint">
                      {t("Size group estimated from the fruit's area for {{count}} fruit (no weights given).", {
                        count: lot.size_estimated,
                      })}
                    </p>
                  )}
                </div>
              </>
            )}

            <h2>{t('Histogram of bruise %')}</h2>
            <div className="card run-histogram" data-testid="run-histogram">
              <ResponsiveContainer width="100%" height={260}>
                <BarChart data={bins} margin={{ top: 10, right: 20, bottom: 20, left: 0 }}>
                  <CartesianGrid strokeDasharray="3 3" vertical={false} />
                  <XAxis
                    dataKey="label"
                    label={{ value: t('bruise % of the photo'), position: 'insideBottom', offset: -10 }}
                  />
                  <YAxis allowDecimals={false} label={{ value: t('photos'), angle: -90, position: 'insideLeft' }} />
                  <Tooltip formatter={(v) => [String(v), t('photos')]} labelFormatter={(l) => `${String(l)} %`} />
                  <Bar dataKey="count" fill="#e0892b" isAnimationActive={false} />
                </BarChart>
              </ResponsiveContainer>
            </div>

            <h2>{t('Plots')}</h2>
            <RunPlots runs={runOnly} />
          </>
        )}

        {bruise && failed.length > 0 && (
          <div className="card" role="alert" data-testid="run-failed">
            <p>
              {t('{{failed}} of {{total}} photos could not be processed.', {
                failed: failed.length,
                total: run.items.length,
              })}
            </p>
            <ul>
              {failed.map(({ item, error: reason }) => (
                <li key={item.id}>
                  {item.filename}: {reason}
                </li>
              ))}
            </ul>
          </div>
        )}

        {bruise && flagged.length > 0 && (
          <div className="card" data-testid="run-quality" style={{ marginTop: 20 }}>
            <h2>{t('Photo quality')}</h2>
            <p>
              {t(
                '{{flagged}} of {{total}} photos were flagged by the photo-quality checks; they were scored all the same.',
                {
                  flagged: flagged.length,
                  total: photos.length,
                },
              )}
            </p>
            {flagged.map(({ item, figures }) => (
              <div key={item.id} data-testid="run-quality-photo">
                <strong className="file-name" title={item.filename}>
                  {item.filename}
                </strong>
                <QualityFlags flags={figures.quality?.flags} />
              </div>
            ))}
          </div>
        )}

        <h2>{t('Photos')}</h2>
        <div className="card">
          <div className="table-wrap">
            {bruise ? (
              <table className="results-table run-table" aria-label={t('Photos of the run')}>
                <TableHead columns={[...PHOTO_COLUMNS, ...metaHeadColumns(metaNames)]} />
                <tbody>
                  {photos.map(({ item, figures }, i) => (
                    <Fragment key={item.id}>
                      <tr data-testid="run-photo">
                        <td>
                          <button
                            type="button"
                            className="btn-link"
                            aria-expanded={expanded.has(i)}
                            aria-label={t('Fruit of {{name}}', { name: item.filename })}
                            onClick={() => toggle(i)}
                          >
                            {expanded.has(i) ? '▾' : '▸'}
                          </button>
                        </td>
                        <td className="file-name" title={item.filename}>
                          {item.filename}
                        </td>
                        <td className="num">{figures.fruits.length}</td>
                        <td className="num">{fmt.integer(figures.total_mango_pixels)}</td>
                        <td className="num">{fmt.fixed(figures.bruise_percent)}</td>
                        <td className="num">{fmt.fixed(figures.non_bruise_percent)}</td>
                        <td className="num">{figures.fruits.reduce((a, f) => a + f.lesion_count, 0)}</td>
                        <td className="num">{num(figures.colour_difference ?? figures.severity, 1)}</td>
                        <td className="num">{num(figures.bruise_area_cm2)}</td>
                        <td>{gradeCounts(figures.fruits.map((f) => f.grade && t(f.grade)))}</td>
                        {metaNames.map((name) => (
                          <td key={name} data-testid="meta-cell">
                            {metaCell(item, name)}
                          </td>
                        ))}
                      </tr>
                      {expanded.has(i) &&
                        figures.fruits.map((f, k) => (
                          <tr key={k} className="fruit-row" data-testid="run-fruit">
                            <td />
                            <td>
                              {t('fruit {{n}} at ({{x}}, {{y}})', { n: k + 1, x: f.bbox.x, y: f.bbox.y })}{' '}
                              {f.bbox.width}×{f.bbox.height}
                            </td>
                            <td />
                            <td className="num">{fmt.integer(f.pixels)}</td>
                            <td className="num">{fmt.fixed(f.bruise_percent)}</td>
                            <td className="num">{fmt.fixed(100 - f.bruise_percent)}</td>
                            <td className="num">{f.lesion_count}</td>
                            <td className="num">{num(f.colour_difference, 1)}</td>
                            <td className="num">{num(f.bruise_area_cm2)}</td>
                            <td data-testid="fruit-grade">{fruitGradeText(f, t)}</td>
                            {metaNames.map((name) => (
                              <td key={name} />
                            ))}
                          </tr>
                        ))}
                    </Fragment>
                  ))}
                </tbody>
              </table>
            ) : (
              <table className="results-table" aria-label={t('Images of the analysis')}>
                <TableHead
                  columns={[
                    { label: 'Image' },
                    ...metaHeadColumns(metaNames),
                    { label: run.items.some((i) => 'features' in i.result) ? 'Features' : 'Result' },
                  ]}
                />
                <tbody>
                  {run.items.map((item) => (
                    <tr key={item.id} data-testid="run-photo">
                      <td className="file-name" title={item.filename}>
                        {item.filename}
                      </td>
                      {metaNames.map((name) => (
                        <td key={name} data-testid="meta-cell">
                          {metaCell(item, name)}
                        </td>
                      ))}
                      <td>{itemSummary(item.result)}</td>
                    </tr>
                  ))}
                </tbody>
              </table>
            )}
          </div>
        </div>

        {hasFruitRows(featureItems) && (
          <>
            <h2>{t('Features per fruit')}</h2>
            <div className="card" data-testid="run-fruit-features">
              <FruitFeatureTable items={featureItems} />
            </div>
          </>
        )}

        {bruise && (
          <>
            <h2>{t('Overlays')}</h2>
            <div className="run-gallery" data-testid="run-gallery">
              {photos.map(({ item, figures }) => (
                <figure key={item.id} className="card">
                  <div className="pair">
                    {item.photo_thumbnail && (
                      <img src={item.photo_thumbnail} alt={t('Photo {{name}}', { name: item.filename })} />
                    )}
                    {item.overlay_thumbnail && (
                      <span className="overlay-thumb">
                        <img
                          src={item.overlay_thumbnail}
                          alt={t('Overlay of {{name}}', { name: item.filename })}
                          data-overlay={item.model_overlay_thumbnail ? 'corrected' : 'model'}
                        />
                        {item.model_overlay_thumbnail && (
                          // drawn from the corrected masks (the model's overlay is kept for audit)
                          <span
                            className="corrected-badge"
                            data-testid="overlay-corrected-badge"
                            title={t('The overlay of the corrected masks')}
                          >
                            {t('corrected masks')}
                          </span>
                        )}
                        {item.corrected_overlay && item.corrected_overlay !== 'drawn' && (
                          // a correction saved before corrected overlays were stored: the model's is shown, and why
                          <span
                            className="corrected-badge model-overlay-badge"
                            data-testid="overlay-model-badge"
                            data-reason={item.corrected_overlay}
                            title={t(MODEL_OVERLAY_REASONS[item.corrected_overlay])}
                          >
                            {t("model's overlay")}
                          </span>
                        )}
                      </span>
                    )}
                  </div>
                  <figcaption className="file-name" title={item.filename}>
                    {item.filename} – <span data-testid="photo-percent">{fmt.fixed(figures.bruise_percent)} %</span>
                    {item.truth && (
                      <>
                        {' '}
                        <span className="corrected-mark" data-testid="corrected-mark">
                          {t('corrected')}
                        </span>{' '}
                        <span data-testid="model-percent">
                          {t('model: {{value}} %', {
                            value: fmt.fixed(Number((item.model_result as { bruise_percent?: number }).bruise_percent)),
                          })}
                        </span>
                      </>
                    )}
                    <br />
                    {item.photo_kept ? (
                      <button type="button" className="btn" onClick={() => setEditing(item.position)}>
                        {t('Correct')}
                      </button>
                    ) : (
                      <span className="muted photo-not-kept" data-testid="photo-not-kept">
                        {t('photo not kept')}
                      </span>
                    )}
                  </figcaption>
                </figure>
              ))}
            </div>
            {editing !== null && (
              <MaskEditor
                key={editing}
                runId={run.id}
                item={run.items.find((i) => i.position === editing)!}
                runOptions={run.options}
                onSaved={() => setReloads((n) => n + 1)}
                onClose={() => setEditing(null)}
              />
            )}
          </>
        )}
      </section>
      <ConfirmDialog
        open={confirming}
        title={t('Delete run')}
        message={t('Delete this run and its stored results? This cannot be undone.')}
        confirmLabel={t('Delete')}
        onConfirm={() => void remove()}
        onCancel={() => setConfirming(false)}
      />
    </Layout>
  );
}
