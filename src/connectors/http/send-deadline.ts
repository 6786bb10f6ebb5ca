import { AsyncLocalStorage } from 'node:async_hooks';
import { context, createContextKey } from '@opentelemetry/api';
import { ProvisioningError } from '../../domain/errors';

/**
 * The last instant a write may be sent: a request's writes to an account run under its
 * lease (DESIGN invariant 7), and an attempt sent after the lease may have run out could
 * interleave with the next holder's writes.
 */
export interface SendDeadline {
  /** No attempt starts after this instant (ms, on `now`'s clock). */
  notAfterMs: number;
  /** The clock the lease is judged on (the orchestrations'). */
  now: () => number;
  /** What the lease is for, in messages: `account "ada" on connector "hr"`. */
  subject: string;
}

/**
 * Where the deadline is carried. With OpenTelemetry's context manager in place (telemetry
 * on), in its context: on Node 20 every AsyncLocalStorage in use adds work to every promise
 * the process creates (issue 19: a second one was a good part of what telemetry cost), and
 * that manager is one already. Without one (telemetry off, and tests), in a storage of its
 * own.
 */
const DEADLINE = createContextKey('provisioning.send_deadline');
const own = new AsyncLocalStorage<SendDeadline>();

function currentDeadline(): SendDeadline | undefined {
  return (context.active().getValue(DEADLINE) as SendDeadline | undefined) ?? own.getStore();
}

/**
 * Runs `body` with every attempt of every call it makes held to `deadline`: the
 * transport checks it before each attempt (the first and every retry, after any wait for
 * the target's gate), and refuses with ACCOUNT_LEASE_ENDING once it has passed. Checked
 * here too, before anything starts.
 *
 * @example
 * await withSendDeadline({ notAfterMs, now, subject }, () => connector.writeMemberships(account, ops));
 */
export async function withSendDeadline<T>(
  deadline: SendDeadline,
  body: () => Promise<T>,
): Promise<T> {
  refuseIfPassed(deadline);
  const carried = context.active().setValue(DEADLINE, deadline);
  // The no-op manager (none registered) runs the body in the root context: then the storage.
  return context.with(carried, () =>
    context.active() === carried ? body() : own.run(deadline, body),
  );
}

/**
 * Before an attempt: throws ACCOUNT_LEASE_ENDING when the call runs under a deadline that
 * has passed, after `release` (what the attempt holds, such as its gate slot).
 */
export function refuseAfterSendDeadline(release: () => void, maybeApplied = false): void {
  const deadline = currentDeadline();
  if (deadline === undefined || deadline.now() <= deadline.notAfterMs) return;
  release();
  refuseIfPassed(deadline, maybeApplied);
}

/**
 * Throws ACCOUNT_LEASE_ENDING once the deadline has passed; `maybeApplied`: an earlier
 * attempt of the call may have been applied (its answer lost), which a refusal of the next
 * one does not undo: only a read can tell.
 */
function refuseIfPassed(deadline: SendDeadline, maybeApplied = false): void {
  const late = deadline.now() - deadline.notAfterMs;
  if (late <= 0) return;
  throw new ProvisioningError(
    'ACCOUNT_LEASE_ENDING',
    `${deadline.subject}: a write was not sent, too little of the request's lease was left ` +
      `(${Math.ceil(late / 1000)} s past the last moment to send); the request renews the lease first`,
    { details: { lateMs: late, ...(maybeApplied ? { maybeApplied: true } : {}) } },
  );
}
