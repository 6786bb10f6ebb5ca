import type { JobView } from '../api-types';
import { formatDuration, formatTime } from '../format';
import { ErrorPanel } from './error-panel';
import { ApiError } from '../api-client';
import { StatusBadge } from './status-badge';

/**
 * A job while it runs and once it ended. The bar shows how far the job got when the job
 * knows its total; otherwise it runs indeterminate beside the counts the job gives (a
 * catalogue import's groups read and written): the console does not invent progress.
 */
export function JobProgress({ job, label }: { job: JobView; label: string }) {
  const done = job.progress?.done;
  const total = job.progress?.total;
  const known = typeof done === 'number' && typeof total === 'number' && total > 0;
  const read = job.progress?.groupsRead;
  const applied = job.progress?.groupsApplied;
  const counted =
    typeof read === 'number' ? `${read} groups read, ${applied ?? 0} written` : undefined;
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
        <p>
          <progress
            aria-label={`${label} progress`}
            {...(known ? { value: done, max: total } : {})}
          >
            {known ? `${done} of ${total}` : (counted ?? 'running')}
          </progress>{' '}
          {counted === undefined ? null : <span class="muted">{counted}</span>}
        </p>
      ) : null}
      {job.error === undefined ? null : (
        <ErrorPanel error={new ApiError(500, job.error)} title={`${label} failed`} />
      )}
    </div>
  );
}
