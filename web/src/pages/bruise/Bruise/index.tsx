/** /bruise: Bruised Area Calculation upload page (product-spec.md sections 2, 4, 5, 8). */
import { useState } from 'react';
import { useNavigate } from 'react-router-dom';
import Layout from '#web/components/Layout.tsx';
import Dropzone from '#web/components/Dropzone.tsx';
import ConfirmDialog from '#web/components/ConfirmDialog.tsx';
import { apiFetch, logAction } from '#web/api/client.ts';
import { readDetail } from '#web/lib/upload.ts';
import { saveUploadedFiles, toRows } from '#web/lib/bruiseResults.ts';
import { bruiseRowsOf, failedCount, JOB_THRESHOLD, runBatchJob, type JobUpdate } from '#web/lib/jobs.ts';
import JobProgress from '#web/components/JobProgress.tsx';
import '../../tool-pages.css';

const BRUISE_ENDPOINT = '/api-py/python/bruise_detection/DeepLearning';

export default function Bruise() {
  const navigate = useNavigate();
  const [files, setFiles] = useState<File[]>([]);
  const [confirming, setConfirming] = useState(false);
  const [processing, setProcessing] = useState(false);
  const [job, setJob] = useState<JobUpdate | null>(null);

  const onProcess = () => {
    if (files.length === 0) {
      alert('Please select files to upload.');
      return;
    }
    setConfirming(true);
  };

  /** More than JOB_THRESHOLD photos: one batch job with a progress bar, then the same results page. */
  const runAsJob = async () => {
    try {
      const run = await runBatchJob('bruise', files, { method: 'auto' }, setJob);
      const results = bruiseRowsOf(run);
      const failed = failedCount(run);
      if (failed > 0) alert(`${failed} of ${run.items.length} photos could not be processed.`);
      saveUploadedFiles(results);
      void logAction('Bruised Area Calculation', run.id);
      navigate('/showarea/accuracy', { state: { results } });
    } catch (e) {
      console.error('Bruised area calculation job failed', e);
      alert(`Error: ${(e as Error).message}`);
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
    try {
      const res = await apiFetch(BRUISE_ENDPOINT, { method: 'POST', body: form });
      if (!res.ok) {
        const detail = await readDetail(res);
        alert(detail ? `Error: ${detail}` : 'Failed to process the request.');
        return;
      }
      const results = toRows(await res.json());
      if (!results) {
        alert('Failed to process the request.');
        return;
      }
      saveUploadedFiles(results);
      void logAction('Bruised Area Calculation', results[0]?.run_id);
      navigate('/showarea/accuracy', { state: { results } });
    } catch (e) {
      console.error('Bruised area calculation failed', e);
      alert('Error processing the files. Please check the console for details.');
    } finally {
      setProcessing(false);
    }
  };

  return (
    <Layout>
      <section className="tool-page">
        <h1>Bruised Area Calculation</h1>
        <p className="tool-intro">
          Upload photos of mangoes. Each photo is segmented into fruit and bruise, and the bruised share of the fruit is
          reported with an overlay image.
        </p>
        <div className="card">
          <Dropzone files={files} onChange={setFiles} />
          <div className="tool-actions">
            <button type="button" className="btn btn-secondary" onClick={() => setFiles([])} disabled={processing}>
              Clear
            </button>
            <button type="button" className="btn btn-primary" onClick={onProcess} disabled={processing}>
              {processing ? 'Processing...' : 'Process'}
            </button>
          </div>
          {processing && !job && (
            <p className="tool-status" role="status">
              Processing...
            </p>
          )}
          {job && <JobProgress update={job} />}
        </div>
      </section>
      <ConfirmDialog
        open={confirming}
        title="Confirm processing"
        message={`Calculate the bruised area of ${files.length} image${files.length === 1 ? '' : 's'}?`}
        onConfirm={() => void onConfirm()}
        onCancel={() => setConfirming(false)}
      />
    </Layout>
  );
}
