import type { RequestContext } from '../api-types';

/**
 * Who asked, with the governance workflow's case beside it, and who the service saw submit
 * the request where that is someone else: what the caller typed is not proof of who it was.
 */
export function RequestedBy({ context }: { context: RequestContext }) {
  const { requestedBy, submittedBy } = context;
  return (
    <>
      {requestedBy ?? ''}
      {context.correlationId === undefined ? null : (
        <span class="muted"> ({context.correlationId})</span>
      )}
      {submittedBy === undefined || submittedBy === requestedBy ? null : (
        <span class="muted">
          {requestedBy === undefined ? '' : ' '}submitted by {submittedBy}
        </span>
      )}
    </>
  );
}
