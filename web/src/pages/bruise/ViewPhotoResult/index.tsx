/**
 * /viewphoto/result: one bruise result in detail; without imageData in state, back to the table. A
 * result of a stored run (`run_id`) whose photo the run kept has a "Correct" button that opens the
 * mask editor on it (issue 28); once corrected, the page shows the figures in force, marked corrected,
 * with the model's % beside them, and the overlay of the corrected masks (drawn in the browser from
 * the kept photo and its latest truth, in the model overlay's colours).
 */
import { Fragment, useEffect, useState } from 'react';
import { Navigate, useLocation, useNavigate } from 'react-router-dom';
import Layout from '#web/components/Layout.tsx';
import TableHead from '#web/components/TableHead.tsx';
import OverlayImage from '#web/components/OverlayImage.tsx';
import QualityFlags from '#web/components/QualityFlags.tsx';
import { GRADE_PRESETS } from '@mango/plugin-bruise/grades';
import { toRows } from '#web/lib/bruiseResults.ts';
import { fruitGradeText } from '#web/lib/fruitGrade.ts';
import '../../tool-pages.css';
import { useTranslation } from 'react-i18next';
import { useFormat } from '#web/i18n/index.ts';
import { apiJson } from '#web/api/client.ts';
import type { RunItem, StoredRun } from '#web/lib/runs.ts';
import { correctedOverlayUrl, itemBase } from '#web/lib/keptPhoto.ts';
import MaskEditor from '../../results/MaskEditor/index.tsx';

const FRUIT_COLUMNS = [
  { label: 'Fruit' },
  { label: 'Pixels', numeric: true },
  { label: 'Bruise pixels', numeric: true },
  { label: 'Bruise %', numeric: true },
  { label: 'Lesions', numeric: true },
];
/** A graded result's fruit also show their grade. */
const GRADED_FRUIT_COLUMNS = [...FRUIT_COLUMNS, { label: 'Grade' }];

export default function ViewPhotoResult() {
  const { t } = useTranslation();
  const fmt = useFormat();
  const location = useLocation();
  const navigate = useNavigate();
  const shown = toRows([(location.state as { imageData?: unknown } | null)?.imageData])?.[0];
  const runId = shown?.run_id ?? null;
  // The stored run's item of this photo (by file name): whether its photo was kept, its truth.
  const [stored, setStored] = useState<RunItem | null | undefined>(runId ? undefined : null);
  const [runOptions, setRunOptions] = useState<Record<string, unknown> | undefined>(undefined);
  const [editing, setEditing] = useState(false);
  const [reloads, setReloads] = useState(0);
  useEffect(() => {
    if (!runId || !shown) return;
    let cancelled = false;
    void apiJson<StoredRun>(`/api-node/runs/${encodeURIComponent(runId)}`).then((r) => {
      if (cancelled) return;
      const same = r.ok ? r.data.items.filter((i) => i.filename === shown.filename) : [];
      const match =
        same.find((i) => (i.model_result ?? i.result).bruise_percent === shown.bruise_percent) ?? same[0] ?? null;
      setStored(match);
      if (r.ok) setRunOptions(r.data.options);
    });
    return () => {
      cancelled = true;
    };
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [runId, shown?.filename, reloads]);
  // Corrected: the overlay of the latest truth (keyed by its version), drawn once it is read.
  const truthBase = stored?.truth && runId ? itemBase(runId, stored.position) : null;
  const truthKey = truthBase && `${truthBase}@${stored?.truth?.version}`;
  const [corrected, setCorrected] = useState<{ key: string; src: string | null } | null>(null);
  // its model result gives the marks (reference ring, card outline); the run's options its size
  const modelResult = stored?.model_result;
  useEffect(() => {
    if (!truthBase || !truthKey) return;
    let cancelled = false;
    correctedOverlayUrl(truthBase, modelResult ?? {}, runOptions)
      .catch((e: unknown) => {
        console.error('Could not draw the corrected overlay', e);
        return null;
      })
      .then((src) => !cancelled && setCorrected({ key: truthKey, src }));
    return () => {
      cancelled = true;
    };
  }, [truthBase, truthKey, modelResult, runOptions]);
  if (!shown) return <Navigate to="/showarea/accuracy" replace />;
  // Corrected: the figures in force, and their overlay once drawn (the model's until then).
  const correctedSrc = corrected?.key === truthKey ? corrected.src : null;
  const imageData = stored?.truth
    ? {
        ...shown,
        ...(stored.result as Partial<typeof shown>),
        ...(correctedSrc ? { overlay_img: correctedSrc } : {}),
      }
    : shown;
  const modelPercent = stored?.truth ? Number(stored.model_result?.bruise_percent) : null;

  const back = () => {
    // The table's history entry still holds its results (with overlays): go back to it when we came from there.
    const idx = (window.history.state as { idx?: number } | null)?.idx ?? 0;
    if (idx > 0) navigate(-1);
    else navigate('/showarea/accuracy');
  };
  const fruits = imageData.fruits ?? [];
  const graded = Boolean(imageData.grades);

  return (
    <Layout>
      <section className="tool-page">
        <h1>{t('Bruise Result')}</h1>
        <div className="result-grid">
          <div className="card">
            <OverlayImage row={imageData} corrected={Boolean(correctedSrc)} />
          </div>
          <div className="card">
            <dl className="facts" aria-label={t('Result')}>
              <dt>{t('Filename')}</dt>
              <dd data-testid="filename" className="file-name" title={imageData.filename}>
                {imageData.filename}
              </dd>
              <dt>{t('Total mango pixels')}</dt>
              <dd data-testid="total-pixels">{fmt.integer(imageData.total_mango_pixels)}</dd>
              <dt>{t('Bruise')}</dt>
              <dd data-testid="bruise-percent">
                {fmt.fixed(imageData.bruise_percent)}%
                {modelPercent !== null && (
                  <>
                    {' '}
                    <span className="corrected-mark" data-testid="corrected-mark">
                      {t('corrected')}
                    </span>{' '}
                    <span data-testid="model-percent">
                      {t('model: {{value}} %', { value: fmt.fixed(modelPercent) })}
                    </span>
                  </>
                )}
              </dd>
              <dt>{t('Non-bruise')}</dt>
              <dd data-testid="non-bruise-percent">{fmt.fixed(imageData.non_bruise_percent)}%</dd>
              {Object.entries(imageData.meta ?? {}).map(([name, value]) => (
                <Fragment key={`meta.${name}`}>
                  <dt>{name}</dt>
                  <dd data-testid="meta-value">{value ?? '–'}</dd>
                </Fragment>
              ))}
              {imageData.grades && (
                <>
                  <dt>{t('Grades')}</dt>
                  <dd data-testid="grades">{t(GRADE_PRESETS[imageData.grades]?.name ?? imageData.grades)}</dd>
                </>
              )}
              {typeof imageData.bruise_pixels === 'number' && (
                <>
                  <dt>{t('Bruise pixels')}</dt>
                  <dd>{imageData.bruise_pixels}</dd>
                </>
              )}
              {typeof imageData.fruit_area_cm2 === 'number' && (
                <>
                  <dt>{t('Fruit area')}</dt>
                  <dd>{fmt.fixed(imageData.fruit_area_cm2)} cm²</dd>
                </>
              )}
              {imageData.colour_card && (
                <>
                  <dt>{t('Colour card')}</dt>
                  <dd data-testid="colour-card">
                    {imageData.colour_card.found
                      ? t('found: {{patches}} patches, colour difference {{before}} → {{after}} (median ΔE2000)', {
                          patches: imageData.colour_card.patches,
                          before: fmt.fixed(imageData.colour_card.delta_e_before?.median, 1),
                          after: fmt.fixed(imageData.colour_card.delta_e_after?.median, 1),
                        })
                      : t('not found (colours as photographed)')}
                  </dd>
                </>
              )}
              {typeof imageData.bruise_area_cm2 === 'number' && (
                <>
                  <dt>{t('Bruise area')}</dt>
                  <dd>{fmt.fixed(imageData.bruise_area_cm2)} cm²</dd>
                </>
              )}
            </dl>
            <QualityFlags flags={imageData.quality?.flags} />
            <div className="tool-actions">
              <button type="button" className="btn btn-primary" onClick={back}>
                {t('Back')}
              </button>
              {runId &&
                stored !== undefined &&
                (stored?.photo_kept ? (
                  <button
                    type="button"
                    className="btn"
                    onClick={() => setEditing(true)}
                    title={t('Correct the masks of this photo')}
                  >
                    {t('Correct')}
                  </button>
                ) : (
                  <span className="muted photo-not-kept" data-testid="photo-not-kept">
                    {t('photo not kept')}
                  </span>
                ))}
            </div>
          </div>
        </div>
        {editing && stored && runId && (
          <MaskEditor
            runId={runId}
            item={stored}
            runOptions={runOptions}
            onSaved={() => setReloads((n) => n + 1)}
            onClose={() => setEditing(false)}
          />
        )}
        {fruits.length > 0 && (
          <div className="card" style={{ marginTop: 20 }}>
            <h2>{t('Fruits in this photo')}</h2>
            <div className="table-wrap">
              <table className="results-table" aria-label={t('Fruits')}>
                <TableHead columns={graded ? GRADED_FRUIT_COLUMNS : FRUIT_COLUMNS} />
                <tbody>
                  {fruits.map((f, i) => (
                    <tr key={i} data-testid="fruit-row">
                      <td>{i + 1}</td>
                      <td className="num">{fmt.integer(f.pixels)}</td>
                      <td className="num">{f.bruise_pixels}</td>
                      <td className="num">{fmt.fixed(f.bruise_percent)}</td>
                      <td className="num">{f.lesion_count}</td>
                      {graded && <td data-testid="fruit-grade">{fruitGradeText(f, t)}</td>}
                    </tr>
                  ))}
                </tbody>
              </table>
            </div>
          </div>
        )}
      </section>
    </Layout>
  );
}
