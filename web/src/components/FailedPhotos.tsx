/**
 * The photos of a batch that could not be scored, listed inline with their reason (issue 27 item 5):
 * the good photos were scored; `onView` opens their results.
 */
import { useTranslation } from 'react-i18next';
import { FAILURE_REASONS, type PhotoFailure } from '#web/lib/failures.ts';

export interface FailedPhotosProps {
  failures: readonly PhotoFailure[];
  /** photos in the batch */
  total: number;
  /** opens the results of the photos that were scored (absent when none was) */
  onView?: () => void;
}

export default function FailedPhotos({ failures, total, onView }: FailedPhotosProps) {
  const { t } = useTranslation();
  return (
    <div className="failed-photos" role="alert" data-testid="failed-photos">
      <p>{t('{{failed}} of {{total}} photos could not be processed.', { failed: failures.length, total })}</p>
      <ul>
        {failures.map((f, i) => {
          const reason = f.code ? FAILURE_REASONS[f.code] : undefined;
          return (
            <li key={`${f.filename}-${i}`} data-testid="failed-photo" title={f.error}>
              <span className="file-name">{f.filename}</span>
              <span className="failed-reason">{reason ? t(reason) : f.error}</span>
            </li>
          );
        })}
      </ul>
      {onView ? (
        <button type="button" className="btn btn-primary" onClick={onView}>
          {t('View the results of the scored photos ({{count}})', { count: total - failures.length })}
        </button>
      ) : (
        <p>{t('No photo could be scored.')}</p>
      )}
    </div>
  );
}
