import type { RequestContext } from '../api-types';

/** Who asked, with the governance workflow's case beside it. */
export function RequestedBy({ context }: { context: RequestContext }) {
  return (
    <>
      {context.requestedBy ?? ''}
      {context.correlationId === undefined ? null : (
        <span class="muted"> ({context.correlationId})</span>
      )}
    </>
  );
}
