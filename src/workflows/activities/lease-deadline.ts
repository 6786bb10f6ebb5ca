import { withSendDeadline } from '../../connectors/http/send-deadline';
import type { WorkflowServices } from '../workflow-services';

/**
 * What a write activity's input carries of its request's lease: the orchestrator adds
 * when the lease ends (absent in inputs from before, and for writes under no lease).
 */
export interface UnderLease {
  leaseEndsAtMs?: number;
}

/** Clocks of activity hosts and of the lease's writers may differ by this much. */
const CLOCK_SKEW_MS = 5_000;
/**
 * The most of its lease a write asks to be left: what the orchestrator leaves at least
 * before a write (it renews the lease once half of it has passed, 5 minutes of which).
 */
const MAX_MARGIN_MS = 150_000;

/**
 * Runs a write activity's body under its request's lease (DESIGN invariant 7): no attempt
 * of its calls to the target starts once less of the lease is left than one attempt may
 * take (the connector's timeout, and the clocks' skew). Refused with ACCOUNT_LEASE_ENDING:
 * the orchestrator renews the lease and sends the write again. A timeout past
 * `MAX_MARGIN_MS` only shortens what is left when the last attempt starts.
 */
export function underLease<T>(
  s: WorkflowServices,
  input: UnderLease & { connector: string },
  accountId: string,
  body: () => Promise<T>,
): Promise<T> {
  if (input.leaseEndsAtMs === undefined) return body();
  const timeoutMs = s.registry.settings(input.connector)?.timeoutMs ?? MAX_MARGIN_MS;
  const marginMs = Math.min(timeoutMs + CLOCK_SKEW_MS, MAX_MARGIN_MS);
  return withSendDeadline(
    {
      notAfterMs: input.leaseEndsAtMs - marginMs,
      now: s.now ?? Date.now,
      subject: `account "${accountId}" on connector "${input.connector}"`,
    },
    body,
  );
}
