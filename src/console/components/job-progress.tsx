import type { JobView } from '../api-types';
import { formatDuration, formatTime } from '../format';
import { ErrorPanel } from './error-panel';
import { ApiError } from '../api-client';
import { StatusBadge } from './status-badge';

/**
 * A job while it runs and once it ended. The bar shows how far the job got when the job
 * says so; otherwise it says only that the job is running (an indeterminate bar): the
 * console does not invent progress.
 */
export function JobProgress({ job, label }: { job: JobView; label: string }) {
  const done = job.progress?.done;
  const total = job.progress?.total;
  const known = typeof done === 'number' && typeof total === 'number' && total > 0;
  return (
    <div class="job" aria-live="polite">
      <p>
        {label}: <StatusBadge status={job.status} />{' '}
        <span class="muted">
          started <time dateTime={job.startedAt}>{formatTime(job.startedAt)}</time>
          {job.finishedAt === undefined
            ? ''
            : `, took ${formatDuration(job.startedAt, job.finishedAt)}`}
        </span>
      </p>
      {job.status === 'running' ? (
        <progress aria-label={`${label} progress`} {...(known ? { value: done, max: total } : {})}>
          {known ? `${done} of ${total}` : 'running'}
        </progress>
      ) : null}
      {job.error === undefined ? null : (
        <ErrorPanel error={new ApiError(500, job.error)} title={`${label} failed`} />
      )}
    </div>
  );
}
