/** /analysis: feature selection and upload (product-spec.md sections 2, 4, 5, 8). */
import { useEffect, useMemo, useState } from 'react';
import { useLocation, useNavigate } from 'react-router-dom';
import Layout from '#web/components/Layout.tsx';
import Dropzone from '#web/components/Dropzone.tsx';
import { apiFetch, logAction } from '#web/api/client.ts';
import featuresPlugin, { FEATURE_DESCRIPTIONS } from '@mango/plugin-features';
import { summarizeNames } from '#web/lib/featureFormat.ts';
import { imageRefsToPngFiles, isFileList, isImageRefList } from '#web/lib/imageFiles.ts';
import { saveAnalysisSession, toAnalysisState } from '#web/lib/analysisSession.ts';
import ScrollTopButton from './ScrollTopButton.tsx';
import '../../tool-pages.css';
import './analysis.css';
import { useTranslation } from 'react-i18next';
import { JOB_THRESHOLD, runBatchJob, type JobUpdate } from '#web/lib/jobs.ts';
import { featureFailures, featureItemsOf } from './results.ts';
import JobProgress from '#web/components/JobProgress.tsx';
import FailedPhotos from '#web/components/FailedPhotos.tsx';
import { runFailures, type PhotoFailure } from '#web/lib/failures.ts';
import type { AnalysisState } from '#web/lib/analysisSession.ts';
import MetaFields from '#web/components/MetaFields.tsx';
import ScaleInputs, { scaleFields, scaleNumbers, type ScaleText } from '#web/components/ScaleInputs.tsx';
import { appendMeta, NO_META, warnMetaGaps, type MetaInput } from '#web/lib/meta.ts';
import { readRefusal, refusalIn, type Refusal } from '#web/lib/refusal.ts';
import RefusalNote from '#web/components/RefusalNote.tsx';
import { FEATURE_CATEGORIES, FEATURE_DISPLAY_NAMES, FEATURE_IDS, type FeatureId } from '@mango/plugin-features/names';

const ANALYZE_ENDPOINT = '/api-py/python/analyze';

/** More than JOB_THRESHOLD photos: one batch job with a progress bar, then the same results page. */
async function analyzeAsJob(
  files: File[],
  selectedIds: string[],
  isolate: boolean,
  perFruit: boolean,
  onUpdate: (u: JobUpdate) => void,
  meta?: MetaInput,
  scale: Record<string, number> = {},
) {
  const run = await runBatchJob(
    featuresPlugin,
    files,
    { features: selectedIds, ...(isolate ? { isolate } : {}), ...(perFruit ? { perFruit, ...scale } : {}) },
    onUpdate,
    false,
    meta,
  );
  const state = toAnalysisState({
    selectedFeatures: selectedIds,
    analysisResults: featureItemsOf(run),
    selectedFiles: files,
  });
  return { state, failed: runFailures(run), total: run.items.length };
}

type Category = keyof typeof FEATURE_CATEGORIES;
const CATEGORIES = Object.keys(FEATURE_CATEGORIES) as Category[];
const CATEGORY_LABELS: Record<Category, string> = {
  color: 'Color',
  texture: 'Texture',
  shape: 'Shape',
  others: 'Others',
};

export default function Analysis() {
  const { t } = useTranslation();
  const location = useLocation();
  const navigate = useNavigate();
  const state = location.state as { selectedFiles?: unknown; images?: unknown; selectedFeatures?: unknown } | null;

  const [files, setFiles] = useState<File[]>(() => (isFileList(state?.selectedFiles) ? state.selectedFiles : []));
  const [selected, setSelected] = useState<Set<FeatureId>>(() => {
    // Coming back from the results keeps the previous choice.
    const fromState: unknown[] = Array.isArray(state?.selectedFeatures) ? state.selectedFeatures : [];
    return new Set(FEATURE_IDS.filter((id) => fromState.includes(id)));
  });
  const [category, setCategory] = useState<Category>('color');
  const [query, setQuery] = useState('');
  const [isolate, setIsolate] = useState(false);
  const [perFruit, setPerFruit] = useState(false);
  // the scale gives each fruit's lengths and areas in cm / cm² (per-fruit rows only)
  const [scale, setScale] = useState<ScaleText>({ referenceMm: '', pxPerCm: '' });
  const [meta, setMeta] = useState<MetaInput>(NO_META);
  const [loadingImages, setLoadingImages] = useState(false);
  const [processing, setProcessing] = useState(false);
  const [job, setJob] = useState<JobUpdate | null>(null);
  /** the last batch's photos that could not be scored, and the results of the others */
  const [outcome, setOutcome] = useState<{ failed: PhotoFailure[]; total: number; result: AnalysisState } | null>(null);
  /** why the server refused the last upload (413, 429 with Retry-After), shown under the spec's alert */
  const [refusal, setRefusal] = useState<Refusal | null>(null);

  /** Keeps the results; opens them, or stays listing the photos that could not be scored. */
  const finish = (result: AnalysisState, failed: PhotoFailure[], total: number) => {
    saveAnalysisSession(result);
    void logAction(`Features Analysis: ${selectedIds.join(',')}`, result.analysisResults[0]?.run_id);
    if (failed.length === 0) navigate('/analysis/result', { state: result });
    else setOutcome({ failed, total, result });
  };

  // Images handed over by another tool as {url, name}: fetched and turned into png files, once.
  const images = state?.images;
  useEffect(() => {
    if (!isImageRefList(images) || images.length === 0) return;
    let cancelled = false;
    setLoadingImages(true);
    imageRefsToPngFiles(images)
      .then((pngs) => !cancelled && setFiles((current) => [...current, ...pngs]))
      .catch((e: unknown) => console.error('Could not load the images handed over', e))
      .finally(() => !cancelled && setLoadingImages(false));
    return () => {
      cancelled = true;
    };
  }, [images]);

  const visible = useMemo(() => {
    const q = query.trim().toLowerCase();
    return FEATURE_CATEGORIES[category].filter(
      (id) =>
        !q || FEATURE_DISPLAY_NAMES[id].toLowerCase().includes(q) || FEATURE_DESCRIPTIONS[id].toLowerCase().includes(q),
    );
  }, [category, query]);

  const update = (fn: (s: Set<FeatureId>) => void) =>
    setSelected((current) => {
      const next = new Set(current);
      fn(next);
      return next;
    });
  const toggle = (id: FeatureId) => update((s) => (s.has(id) ? s.delete(id) : s.add(id)));
  const selectCategory = () => update((s) => FEATURE_CATEGORIES[category].forEach((id) => s.add(id)));
  const deselectCategory = () => update((s) => FEATURE_CATEGORIES[category].forEach((id) => s.delete(id)));
  const selectAll = () => setSelected(new Set(FEATURE_IDS));
  const deselectAll = () => setSelected(new Set());

  const selectedIds = FEATURE_IDS.filter((id) => selected.has(id));

  const analyze = async () => {
    if (files.length === 0) {
      alert(t('Please select at least one image to upload.'));
      return;
    }
    if (selectedIds.length === 0) {
      alert(t('Please select at least one feature to analyze.'));
      return;
    }
    setProcessing(true);
    setOutcome(null);
    setRefusal(null);
    if (files.length > JOB_THRESHOLD) {
      try {
        const {
          state: result,
          failed,
          total,
        } = await analyzeAsJob(files, selectedIds, isolate, perFruit, setJob, meta, scaleNumbers(scale));
        if (!result) throw new Error('no results');
        warnMetaGaps(result.analysisResults, t);
        finish(result, failed, total);
      } catch (e) {
        console.error('Feature analysis job failed', e);
        setRefusal(refusalIn(e));
        alert(t('Error processing the image.'));
      } finally {
        setJob(null);
        setProcessing(false);
      }
      return;
    }
    const form = new FormData();
    for (const f of files) form.append('images', f, f.name);
    form.append('features', JSON.stringify(selectedIds));
    if (isolate) form.append('isolate', 'true');
    if (perFruit) {
      form.append('per_fruit', 'true');
      for (const [name, text] of Object.entries(scaleFields(scale))) form.append(name, text);
    }
    appendMeta(form, meta);
    try {
      const res = await apiFetch(ANALYZE_ENDPOINT, { method: 'POST', body: form });
      if (!res.ok) {
        // the spec's alert, and the server's reason (and time to wait) inline under the form
        setRefusal(await readRefusal(res));
        alert(t('Error processing the image.'));
        return;
      }
      const data: unknown = await res.json();
      const result = toAnalysisState({ selectedFeatures: selectedIds, analysisResults: data, selectedFiles: files });
      if (!result) {
        console.error('Feature analysis answered no results', data);
        alert(t('Error processing the image.'));
        return;
      }
      warnMetaGaps(result.analysisResults, t);
      finish(result, featureFailures(result.analysisResults), files.length);
    } catch (e) {
      console.error('Feature analysis failed', e);
      alert(t('Error processing the image.'));
    } finally {
      setProcessing(false);
    }
  };

  const selectedNames = selectedIds.map((id) => t(FEATURE_DISPLAY_NAMES[id]));

  return (
    <Layout>
      <section className="tool-page">
        <h1>{t('Feature Analysis')}</h1>
        <p className="tool-intro">
          {t('Choose the features to measure, add photos, and get one row of values per image.')}
        </p>

        <div className="card">
          <div className="feature-toolbar">
            <div role="tablist" aria-label={t('Feature categories')} className="feature-tabs">
              {CATEGORIES.map((c) => (
                <button
                  key={c}
                  type="button"
                  role="tab"
                  aria-selected={c === category}
                  className={`tab${c === category ? ' tab-active' : ''}`}
                  onClick={() => setCategory(c)}
                >
                  {t(CATEGORY_LABELS[c])}
                </button>
              ))}
            </div>
            <input
              type="search"
              className="feature-search"
              placeholder={t('Search features...')}
              aria-label={t('Search features in this category')}
              value={query}
              onChange={(e) => setQuery(e.target.value)}
            />
          </div>

          <div className="feature-bulk">
            <button type="button" className="btn btn-secondary btn-small" onClick={selectCategory}>
              {t('Select Category')}
            </button>
            <button type="button" className="btn btn-secondary btn-small" onClick={deselectCategory}>
              {t('Deselect Category')}
            </button>
            <button type="button" className="btn btn-secondary btn-small" onClick={selectAll}>
              {t('Select All Categories')}
            </button>
            <button type="button" className="btn btn-secondary btn-small" onClick={deselectAll}>
              {t('Deselect All')}
            </button>
          </div>

          <ul
            className="feature-list"
            role="tabpanel"
            aria-label={t('{{category}} features', { category: t(CATEGORY_LABELS[category]) })}
          >
            {visible.map((id) => (
              <li key={id} className={selected.has(id) ? 'feature-item feature-on' : 'feature-item'}>
                <label>
                  <input type="checkbox" checked={selected.has(id)} onChange={() => toggle(id)} data-feature={id} />
                  <span className="feature-name">{t(FEATURE_DISPLAY_NAMES[id])}</span>
                  <span className="feature-desc">{t(FEATURE_DESCRIPTIONS[id])}</span>
                </label>
              </li>
            ))}
            {visible.length === 0 && <li className="empty-state">{t('No feature matches your search.')}</li>}
          </ul>

          <p className="feature-summary" data-testid="selected-summary">
            <strong>{t('Selected features ({{count}}):', { count: selectedIds.length })}</strong>{' '}
            {selectedIds.length === 0 ? t('none') : summarizeNames(selectedNames)}
          </p>
        </div>

        <div className="card" style={{ marginTop: 20 }}>
          <Dropzone files={files} onChange={setFiles} />
          {loadingImages && (
            <p className="tool-status" role="status">
              {t('Loading images...')}
            </p>
          )}
          <label className="isolate-option">
            <input type="checkbox" checked={isolate} onChange={(e) => setIsolate(e.target.checked)} />{' '}
            {t('Isolate fruit (remove background first)')}
          </label>
          <label className="isolate-option">
            <input type="checkbox" checked={perFruit} onChange={(e) => setPerFruit(e.target.checked)} />{' '}
            {t('Also measure each fruit on its own (one row per fruit)')}
          </label>
          {perFruit && (
            <fieldset className="scale-options">
              <legend>{t('Scale (optional: each fruit in cm and cm²)')}</legend>
              <ScaleInputs value={scale} onChange={setScale} />
            </fieldset>
          )}
          <MetaFields value={meta} onChange={setMeta} />
          {job && <JobProgress update={job} />}
          <RefusalNote refusal={refusal} />
          {outcome && (
            <FailedPhotos
              failures={outcome.failed}
              total={outcome.total}
              onView={
                outcome.failed.length < outcome.total
                  ? () => navigate('/analysis/result', { state: outcome.result })
                  : undefined
              }
            />
          )}
          <div className="tool-actions">
            <button
              type="button"
              className="btn btn-primary"
              onClick={() => void analyze()}
              disabled={processing || loadingImages}
            >
              {t(processing ? 'Analyzing...' : 'Analyze')}
            </button>
          </div>
        </div>
      </section>
      <ScrollTopButton threshold={200} />
    </Layout>
  );
}
