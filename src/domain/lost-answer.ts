import type { SerializedError } from './errors';

/**
 * Whether a failed write may still have been applied (scim-interop.md: "answer lost after
 * the write was applied"): the transport says an attempt may have reached the target before
 * the answer was lost (a reset, a timeout: `details.maybeApplied`), or the target or a
 * gateway in front of it answered 5xx after the transport's retries (TARGET_UNAVAILABLE). A
 * refusal (4xx) or a 429 is an answer, and a connection never made sent nothing: the write
 * was not applied. Where it may have been, only a read can tell (DESIGN invariant 11).
 *
 * @example
 * mayHaveBeenApplied({ code: 'TARGET_UNREACHABLE', message: '...', retryable: true, details: { maybeApplied: true } }); // true
 */
export function mayHaveBeenApplied(error: SerializedError): boolean {
  return error.details?.maybeApplied === true || error.code === 'TARGET_UNAVAILABLE';
}

/**
 * Whether an account write that failed certainly left the target as it was: refused (4xx,
 * 429) or never sent, with no attempt before it that may have been applied. Only then may
 * the write's intent be withdrawn (DESIGN invariant 1): a later run of the same write (after
 * a throttling hold, a quarantine, a retry) must not take a change made meanwhile by someone
 * else for its own.
 *
 * @example
 * accountWriteChangedNothing({ code: 'TARGET_THROTTLED', message: '...', retryable: false, status: 429 }); // true
 */
export function accountWriteChangedNothing(error: SerializedError): boolean {
  return !mayHaveBeenApplied(error) && !answeredAny(error);
}

/**
 * Whether a membership write call that failed certainly changed nothing: its error lists
 * every write it sent (`details.failed`), each one refused, and none answered done
 * (`details.written`). An error that does not list them (a read after the writes failed,
 * say) may hide an applied write: not certain.
 *
 * @example
 * membershipCallChangedNothing({ code: 'TARGET_THROTTLED', message: '...', retryable: false, details: { written: [], failed: [] } }); // true
 */
export function membershipCallChangedNothing(error: SerializedError): boolean {
  const failed = failedMembershipWrites(error);
  return (
    failed !== undefined && failed.every((write) => !write.maybeApplied) && !answeredAny(error)
  );
}

/** Whether a failed call's error carries answers to writes it made (`details.written`). */
function answeredAny(error: SerializedError): boolean {
  const written = error.details?.written;
  return Array.isArray(written) && written.length > 0;
}

/**
 * How a write's answer was lost, for notices: "its answer was lost (TARGET_UNREACHABLE)",
 * "answered 504 (TARGET_UNAVAILABLE)", or "answered 429 (TARGET_THROTTLED) after an earlier
 * attempt's answer was lost".
 *
 * @example
 * describeLostAnswer({ code: 'TARGET_UNAVAILABLE', message: '...', retryable: true, status: 504 }); // 'answered 504 (TARGET_UNAVAILABLE)'
 */
export function describeLostAnswer(error: SerializedError): string {
  if (error.status === undefined) return `its answer was lost (${error.code})`;
  const answered = `answered ${error.status} (${error.code})`;
  // A refusal or a 429 that came after an attempt whose answer was lost: that one may have been applied.
  return error.status < 500 && error.details?.maybeApplied === true
    ? `${answered} after an earlier attempt's answer was lost`
    : answered;
}

/**
 * One change a membership write call sent and got no "done" for, as its error lists them
 * (`details.failed`): refused by the target (an answer: nothing applied), or its answer lost
 * (`maybeApplied`: only a read can tell). A call whose error lists them sent nothing else
 * besides what `details.written` holds.
 */
export interface FailedMembershipWrite {
  groupId: string;
  change: 'added' | 'removed';
  code: SerializedError['code'];
  status?: number;
  message: string;
  maybeApplied: boolean;
}

/**
 * The changes a failed membership write call lists (`details.failed`), or undefined when its
 * error does not list them (a connector that says only how the whole call ended).
 *
 * @example
 * failedMembershipWrites({ code: 'GRAPH_PERMISSION_MISSING', message: '...', retryable: false, details: { failed: [] } }); // []
 */
export function failedMembershipWrites(
  error: SerializedError,
): FailedMembershipWrite[] | undefined {
  const failed = error.details?.failed;
  if (!Array.isArray(failed)) return undefined;
  const listed = failed.filter(isFailedMembershipWrite);
  return listed.length === failed.length ? listed : undefined;
}

/** The error of one listed change whose answer was lost: what notices and the step say of it. */
export function lostWriteError(write: FailedMembershipWrite): SerializedError {
  return {
    code: write.code,
    message: write.message,
    retryable: true,
    ...(write.status === undefined ? {} : { status: write.status }),
    object: write.groupId,
  };
}

function isFailedMembershipWrite(value: unknown): value is FailedMembershipWrite {
  if (typeof value !== 'object' || value === null) return false;
  const entry = value as Record<string, unknown>;
  return (
    typeof entry.groupId === 'string' &&
    (entry.change === 'added' || entry.change === 'removed') &&
    typeof entry.code === 'string' &&
    typeof entry.message === 'string' &&
    typeof entry.maybeApplied === 'boolean'
  );
}
