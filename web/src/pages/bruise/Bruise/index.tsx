/** /bruise: Bruised Area Calculation upload page (product-spec.md sections 2, 4, 5, 8). */
import { useState } from 'react';
import { useNavigate } from 'react-router-dom';
import { wireName } from '@mango/core';
import { GRADE_PRESETS, needsScale, scaleNeededMessage } from '@mango/plugin-bruise/grades';
import { BruiseOptions } from '@mango/plugin-bruise/schema';
import Layout from '#web/components/Layout.tsx';
import Dropzone from '#web/components/Dropzone.tsx';
import ConfirmDialog from '#web/components/ConfirmDialog.tsx';
import { apiFetch, logAction } from '#web/api/client.ts';
import { readRefusal, refusalIn, type Refusal } from '#web/lib/refusal.ts';
import RefusalNote from '#web/components/RefusalNote.tsx';
import { saveUploadedFiles, toRows } from '#web/lib/bruiseResults.ts';
import { JOB_THRESHOLD, runBatchJob, type JobUpdate } from '#web/lib/jobs.ts';
import bruisePlugin from '@mango/plugin-bruise';
import { bruiseRowsOf, splitBruiseAnswer } from './results.ts';
import JobProgress from '#web/components/JobProgress.tsx';
import FailedPhotos from '#web/components/FailedPhotos.tsx';
import { runFailures, type PhotoFailure } from '#web/lib/failures.ts';
import type { BruiseRow } from '#web/lib/bruiseResults.ts';
import MetaFields from '#web/components/MetaFields.tsx';
import { appendMeta, NO_META, warnMetaGaps, type MetaInput } from '#web/lib/meta.ts';
import ScaleInputs, { scaleFields, scaleNumbers, type ScaleText } from '#web/components/ScaleInputs.tsx';
import '../../tool-pages.css';
import { useTranslation } from 'react-i18next';

const BRUISE_ENDPOINT = '/api-py/python/bruise_detection/DeepLearning';

/** The optional scale fields of the form, by bruise option: the API's `reference_mm` and `px_per_cm` (typed text). */
export interface ScaleFields extends ScaleText {
  /** a grade preset id, or '' for none */
  grades: string;
  /** the colour card options (unset: the schema's defaults, auto and classic) */
  colourCard?: BruiseOptions['colourCard'];
  cardKind?: BruiseOptions['cardKind'];
}

/** The colour card options that differ from the schema's defaults, by wire name (`colour_card`, `card_kind`). */
export function cardFields(scale: ScaleFields): Record<string, string> {
  const out: Record<string, string> = {};
  for (const key of ['colourCard', 'cardKind'] as const) {
    const value = scale[key];
    if (value && value !== BruiseOptions.shape[key].parse(undefined)) out[wireName(key)] = value;
  }
  return out;
}

export { SCALE_LIMITS, scaleFields } from '#web/components/ScaleInputs.tsx';

/** The bruise options of a batch job: the typed scale by wire name, as numbers, and the grades. */
export function jobOptions(scale: ScaleFields): Record<string, unknown> {
  return { ...scaleNumbers(scale), ...cardFields(scale), ...(scale.grades ? { grades: scale.grades } : {}) };
}

/**
 * Why the server would refuse these options for a single request (/api-py answers it), checked
 * before a batch is uploaded: grades in cm² without a scale. Null when there is nothing to refuse.
 */
export function jobRefusal(scale: ScaleFields): string | null {
  const rules = scale.grades ? GRADE_PRESETS[scale.grades] : undefined;
  return rules && needsScale(rules) && Object.keys(scaleFields(scale)).length === 0 ? scaleNeededMessage(rules) : null;
}

export default function Bruise() {
  const { t } = useTranslation();
  const navigate = useNavigate();
  const [files, setFiles] = useState<File[]>([]);
  const [confirming, setConfirming] = useState(false);
  const [processing, setProcessing] = useState(false);
  const [scale, setScale] = useState<ScaleFields>({ referenceMm: '', pxPerCm: '', grades: '' });
  const [job, setJob] = useState<JobUpdate | null>(null);
  /** the last batch's photos that could not be scored, and the results of the others */
  const [outcome, setOutcome] = useState<{ failed: PhotoFailure[]; total: number; results: BruiseRow[] } | null>(null);
  /** why the server refused the last upload (413, 429 with Retry-After), shown under the spec's alert */
  const [refusal, setRefusal] = useState<Refusal | null>(null);

  /**
   * The results of a batch: its scored rows are kept and shown; when some photos could not be scored
   * the page stays and lists them with their reason, the results one click away.
   */
  const finish = (results: BruiseRow[], failed: PhotoFailure[], total: number, runId: string | null | undefined) => {
    saveUploadedFiles(results);
    if (results.length > 0) void logAction('Bruised Area Calculation', runId);
    if (failed.length === 0) navigate('/showarea/accuracy', { state: { results } });
    else setOutcome({ failed, total, results });
  };
  const [meta, setMeta] = useState<MetaInput>(NO_META);

  const onProcess = () => {
    if (files.length === 0) {
      alert(t('Please select files to upload.'));
      return;
    }
    setOutcome(null);
    setRefusal(null);
    setConfirming(true);
  };

  /**
   * More than JOB_THRESHOLD photos: one batch job with a progress bar, then the same results page:
   * the same options (scale and grades), and the full-size overlays kept with the run.
   */
  const runAsJob = async () => {
    try {
      const refused = jobRefusal(scale);
      if (refused) {
        alert(t('Error: {{detail}}', { detail: refused }));
        return;
      }
      const run = await runBatchJob(bruisePlugin, files, jobOptions(scale), setJob, true, meta);
      const results = bruiseRowsOf(run);
      warnMetaGaps(results, t);
      finish(results, runFailures(run), run.items.length, run.id);
    } catch (e) {
      console.error('Bruised area calculation job failed', e);
      setRefusal(refusalIn(e));
      alert(t('Error: {{detail}}', { detail: (e as Error).message }));
    } finally {
      setJob(null);
      setProcessing(false);
    }
  };

  const onConfirm = async () => {
    setConfirming(false);
    setProcessing(true);
    if (files.length > JOB_THRESHOLD) return runAsJob();
    const form = new FormData();
    for (const f of files) form.append('images', f, f.name);
    for (const [name, text] of Object.entries({ ...scaleFields(scale), ...cardFields(scale) })) form.append(name, text);
    if (scale.grades) form.append('grades', scale.grades);
    // A photo that cannot be scored is answered in its place; the others are scored.
    form.append('keep_going', 'true');
    appendMeta(form, meta);
    try {
      const res = await apiFetch(BRUISE_ENDPOINT, { method: 'POST', body: form });
      if (!res.ok) {
        const refused = await readRefusal(res);
        setRefusal(refused);
        alert(
          refused.reason ? t('Error: {{detail}}', { detail: t(refused.reason) }) : t('Failed to process the request.'),
        );
        return;
      }
      const answer: unknown = await res.json();
      const { scored, failed } = splitBruiseAnswer(answer);
      const results = Array.isArray(answer) ? toRows(scored) : null;
      if (!results) {
        alert(t('Failed to process the request.'));
        return;
      }
      warnMetaGaps(results, t);
      finish(results, failed, files.length, results[0]?.run_id);
    } catch (e) {
      console.error('Bruised area calculation failed', e);
      alert(t('Error processing the files. Please check the console for details.'));
    } finally {
      setProcessing(false);
    }
  };

  return (
    <Layout>
      <section className="tool-page">
        <h1>{t('Bruised Area Calculation')}</h1>
        <p className="tool-intro">
          {t(
            'Upload photos of mangoes. Each photo is segmented into fruit and bruise, and the bruised share of the fruit is reported with an overlay image.',
          )}
        </p>
        <div className="card">
          <Dropzone files={files} onChange={setFiles} />
          <fieldset className="scale-options">
            <legend>{t('Scale (optional: areas in cm²)')}</legend>
            <ScaleInputs value={scale} onChange={setScale} />
            <label>
              {t('Grades')}
              <select
                name="grades"
                value={scale.grades}
                onChange={(e) => setScale({ ...scale, grades: e.target.value })}
              >
                <option value="">{t('None')}</option>
                {Object.values(GRADE_PRESETS).map((rules) => (
                  <option key={rules.id} value={rules.id}>
                    {needsScale(rules) ? t('{{name}} (cm², needs a scale)', { name: t(rules.name) }) : t(rules.name)}
                  </option>
                ))}
              </select>
            </label>
            <p className="field-hint">
              {t(
                'Put a coin or a round sticker beside the fruit and give its diameter: the scale is measured in each photo. A typed pixels-per-cm wins.',
              )}
            </p>
          </fieldset>
          <fieldset className="scale-options">
            <legend>{t('Colour card')}</legend>
            <label>
              <input
                type="checkbox"
                name={wireName('colourCard')}
                checked={(scale.colourCard ?? 'auto') === 'auto'}
                onChange={(e) => setScale({ ...scale, colourCard: e.target.checked ? 'auto' : 'off' })}
              />
              {t('Correct the colours to a ColorChecker in the photo')}
            </label>
            <label>
              {t('Card')}
              <select
                name={wireName('cardKind')}
                value={scale.cardKind ?? 'classic'}
                disabled={scale.colourCard === 'off'}
                onChange={(e) => setScale({ ...scale, cardKind: e.target.value as BruiseOptions['cardKind'] })}
              >
                <option value="classic">{t('ColorChecker Classic')}</option>
                <option value="passport">{t('ColorChecker Passport')}</option>
              </select>
            </label>
            <p className="field-hint">
              {t(
                "With a ColorChecker beside the fruit, each photo is corrected to the card's known colours before it is scored, and the card gives the scale when no other is given. A photo without a card is scored as it is.",
              )}
            </p>
          </fieldset>
          <MetaFields value={meta} onChange={setMeta} />
          <div className="tool-actions">
            <button type="button" className="btn btn-secondary" onClick={() => setFiles([])} disabled={processing}>
              {t('Clear')}
            </button>
            <button type="button" className="btn btn-primary" onClick={onProcess} disabled={processing}>
              {t(processing ? 'Processing...' : 'Process')}
            </button>
          </div>
          {processing && !job && (
            <p className="tool-status" role="status">
              {t('Processing...')}
            </p>
          )}
          {job && <JobProgress update={job} />}
          <RefusalNote refusal={refusal} />
          {outcome && (
            <FailedPhotos
              failures={outcome.failed}
              total={outcome.total}
              onView={
                outcome.results.length > 0
                  ? () => navigate('/showarea/accuracy', { state: { results: outcome.results } })
                  : undefined
              }
            />
          )}
        </div>
      </section>
      <ConfirmDialog
        open={confirming}
        title={t('Confirm processing')}
        message={t(
          files.length === 1
            ? 'Calculate the bruised area of 1 image?'
            : 'Calculate the bruised area of {{count}} images?',
          { count: files.length },
        )}
        onConfirm={() => void onConfirm()}
        onCancel={() => setConfirming(false)}
      />
    </Layout>
  );
}
