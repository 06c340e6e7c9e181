/** /removebackground: one request per photo with upload progress, then a list of processed pngs. */
import { useState } from 'react';
import { useNavigate } from 'react-router-dom';
import Layout from '#web/components/Layout.tsx';
import Dropzone from '#web/components/Dropzone.tsx';
import ConfirmDialog from '#web/components/ConfirmDialog.tsx';
import SelectableImageList from '#web/components/SelectableImageList.tsx';
import { logAction } from '#web/api/client.ts';
import { uploadWithProgress, readUploadRefusal } from '#web/lib/upload.ts';
import type { Refusal } from '#web/lib/refusal.ts';
import RefusalNote from '#web/components/RefusalNote.tsx';
import { fileStem } from '#web/lib/download.ts';
import { useImageResults } from '#web/lib/useImageResults.ts';
import '../../tool-pages.css';
import './removebackground.css';
import { useTranslation } from 'react-i18next';

const REMOVE_BACKGROUND_ENDPOINT = '/api-py/python/remove_background';
const PROCESSED_ZIP_NAME = 'processed_images.zip';
const FAILED = 'Failed to remove background. Please try again.';

/** A processed image entry: name (already prefixed 'processed-'), object URL, png blob. */
interface Processed {
  name: string;
  url: string;
  blob: Blob;
}

function processedName(original: string): string {
  return `processed-${fileStem(original)}.png`;
}

export default function RemoveBackground() {
  const { t } = useTranslation();
  const navigate = useNavigate();
  const [files, setFiles] = useState<File[]>([]);
  const [confirming, setConfirming] = useState(false);
  const [processing, setProcessing] = useState(false);
  const [progress, setProgress] = useState(0);
  const [current, setCurrent] = useState('');
  const [error, setError] = useState('');
  /** why the server refused a photo (413, 429 with Retry-After): a line each under the error */
  const [refusals, setRefusals] = useState<{ name: string; refusal: Refusal }[]>([]);
  // Object URLs die with the page (the analysis page gets Files, not URLs).
  const results = useImageResults<Processed>();

  const onRemove = () => {
    if (files.length === 0) {
      alert(t('Please upload images first!'));
      return;
    }
    setConfirming(true);
  };

  const run = async () => {
    setConfirming(false);
    setProcessing(true);
    setError('');
    setRefusals([]);
    setProgress(0);
    const batch = files;
    const done: Processed[] = [];
    let failed = false;
    for (let i = 0; i < batch.length; i++) {
      const file = batch[i];
      setCurrent(file.name);
      const form = new FormData();
      form.append('images', file, file.name);
      try {
        const res = await uploadWithProgress(REMOVE_BACKGROUND_ENDPOINT, form, (fraction) =>
          setProgress(Math.round(((i + fraction) / batch.length) * 100)),
        );
        if (!res.ok) {
          const refusal = await readUploadRefusal(res);
          setRefusals((list) => [...list, { name: file.name, refusal }]);
          failed = true;
        } else {
          const blob = res.body.type === 'image/png' ? res.body : new Blob([res.body], { type: 'image/png' });
          const entry = { name: processedName(file.name), url: results.objectUrl(blob), blob };
          done.push(entry);
          results.add([entry]);
        }
      } catch (e) {
        console.error(`Remove background failed for ${file.name}:`, e);
        failed = true;
      }
      setProgress(Math.round(((i + 1) / batch.length) * 100));
    }
    if (failed) setError(FAILED);
    if (done.length > 0) {
      void logAction('Remove Background');
      // Photos done are taken off the upload list; failed ones stay for another try.
      const doneNames = new Set(done.map((d) => d.name));
      setFiles((list) => list.filter((f) => !doneNames.has(processedName(f.name))));
    }
    setCurrent('');
    setProcessing(false);
  };

  const sendToAnalysis = () => {
    const chosen = results.chosen();
    if (!chosen) return;
    const selectedFiles = chosen.map((p) => new File([p.blob], p.name, { type: 'image/png' }));
    navigate('/analysis', { state: { selectedFiles } });
  };

  const reset = () => {
    setFiles([]);
    results.reset();
    setError('');
    setRefusals([]);
    setProgress(0);
  };

  return (
    <Layout>
      <section className="tool-page">
        <h1>{t('Remove Background')}</h1>
        <p className="tool-intro">
          {t('Cut the fruit out of its background. Each photo comes back as a png with a transparent background.')}
        </p>
        <div className="card">
          <Dropzone files={files} onChange={setFiles} />
          {error && (
            <div className="alert" role="alert">
              <div>{t(error)}</div>
              {refusals.map(({ name, refusal }, i) => (
                <RefusalNote key={`${name}-${i}`} refusal={refusal} name={name} />
              ))}
            </div>
          )}
          {processing && (
            <div className="upload-progress" role="status">
              <progress max={100} value={progress} aria-label={t('Progress')} />
              <span data-testid="progress">
                {t('Processing {{name}}... {{progress}}%', { name: current, progress })}
              </span>
            </div>
          )}
          <div className="tool-actions">
            <button type="button" className="btn btn-secondary" onClick={reset} disabled={processing}>
              {t('Reset')}
            </button>
            <button type="button" className="btn btn-primary" onClick={onRemove} disabled={processing}>
              {processing ? `${t('Processing...')} ${progress}%` : t('Remove Background')}
            </button>
          </div>
        </div>

        <SelectableImageList
          title={t('Processed images')}
          items={results.items}
          selected={results.selected}
          onSelectedChange={results.setSelected}
          classPrefix="processed"
          altPrefix="Background removed"
          zipName={PROCESSED_ZIP_NAME}
          onSendToAnalysis={sendToAnalysis}
        />
      </section>
      <ConfirmDialog
        open={confirming}
        title={t('Confirm background removal')}
        message={t(
          files.length === 1 ? 'Remove the background of 1 image?' : 'Remove the background of {{count}} images?',
          { count: files.length },
        )}
        onConfirm={() => void run()}
        onCancel={() => setConfirming(false)}
      />
    </Layout>
  );
}
