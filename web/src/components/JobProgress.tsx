import type { JobUpdate } from '#web/lib/jobs.ts';
import './job-progress.css';

/** The progress of a batch job: its upload, then the photos scored so far. */
export default function JobProgress({ update }: { update: JobUpdate }) {
  const percent = Math.round(update.fraction * 100);
  const text =
    update.phase === 'uploading'
      ? `Uploading ${update.total} photos: ${percent}%`
      : `Processed ${update.finished} of ${update.total} photos`;
  return (
    <div className="job-progress" role="status">
      <progress max={100} value={percent} aria-label="Job progress" />
      <span data-testid="job-progress">{text}</span>
    </div>
  );
}
