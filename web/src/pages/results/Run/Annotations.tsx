/**
 * The run page's annotations (issue 28 item 2): "Download annotations (COCO)" (the run's corrected
 * photos, GET /api-node/runs/{id}/annotations?format=coco) and "Import annotations" (a COCO JSON, a
 * CVAT "Segmentation mask 1.1" zip or a Label Studio JSON, posted to the same route), then the
 * answer: how many photos matched and each entry that did not, with the server's reason. The run
 * is read again after an import, so its figures show the imported truth as corrected.
 */
import { useRef, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { downloadAnnotations, importAnnotations, type ImportedAnnotations } from '#web/lib/runs.ts';

export default function Annotations({ runId, onImported }: { runId: string; onImported: () => void }) {
  const { t } = useTranslation();
  const input = useRef<HTMLInputElement>(null);
  const [busy, setBusy] = useState(false);
  const [answer, setAnswer] = useState<ImportedAnnotations | null>(null);
  const [error, setError] = useState('');

  const download = () => {
    setError('');
    downloadAnnotations(runId).catch((e: unknown) => setError((e as Error).message));
  };
  const upload = async (file: File | undefined) => {
    if (!file) return;
    setBusy(true);
    setError('');
    setAnswer(null);
    try {
      const out = await importAnnotations(runId, file);
      setAnswer(out);
      if (out.matched.length > 0) onImported();
    } catch (e) {
      setError((e as Error).message);
    } finally {
      setBusy(false);
      if (input.current) input.current.value = '';
    }
  };

  return (
    <div className="card run-annotations" data-testid="run-annotations">
      <h2>{t('Annotations')}</h2>
      <div className="tool-actions">
        <button type="button" className="btn btn-secondary" onClick={download}>
          {t('Download annotations (COCO)')}
        </button>
        <label className="btn btn-secondary">
          {t('Import annotations')}
          <input
            ref={input}
            type="file"
            accept=".json,.zip,application/json,application/zip"
            className="visually-hidden"
            data-testid="annotations-input"
            disabled={busy}
            onChange={(e) => void upload(e.target.files?.[0])}
          />
        </label>
      </div>
      <p className="field-hint">
        {t('COCO JSON, CVAT zip (Segmentation mask 1.1) or Label Studio JSON; photos are matched by file name.')}
      </p>
      {busy && <p role="status">{t('Importing annotations...')}</p>}
      {answer && (
        <div role="status" data-testid="annotations-answer">
          <p data-testid="annotations-matched">
            {t('Photos matched: {{n}}', { n: answer.matched.length })}
            {answer.matched.length > 0 && `: ${answer.matched.map((m) => m.filename).join(', ')}`}
          </p>
          {answer.unmatched.length > 0 && (
            <>
              <p data-testid="annotations-unmatched-count">{t('Not matched: {{n}}', { n: answer.unmatched.length })}</p>
              <ul>
                {answer.unmatched.map((u, k) => (
                  <li key={k} data-testid="annotations-unmatched">
                    <span className="file-name">{u.name}</span>: {u.reason}
                  </li>
                ))}
              </ul>
            </>
          )}
        </div>
      )}
      {error && (
        <p className="form-error" role="alert">
          {t(error)}
        </p>
      )}
    </div>
  );
}
