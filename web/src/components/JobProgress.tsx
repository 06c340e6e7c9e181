import { useTranslation } from 'react-i18next';
import type { JobUpdate } from '#web/lib/jobs.ts';
import './job-progress.css';

/** The progress of a batch job: its upload, then the photos scored so far. */
export default function JobProgress({ update }: { update: JobUpdate }) {
  const { t } = useTranslation();
  const percent = Math.round(update.fraction * 100);
  const text =
    update.phase === 'uploading'
      ? t('Uploading {{total}} photos: {{percent}}%', { total: update.total, percent })
      : t('Processed {{finished}} of {{total}} photos', { finished: update.finished, total: update.total });
  return (
    <div className="job-progress" role="status">
      <progress max={100} value={percent} aria-label={t('Job progress')} />
      <span data-testid="job-progress">{text}</span>
    </div>
  );
}
