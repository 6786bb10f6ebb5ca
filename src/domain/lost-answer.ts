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
 * How a write's answer was lost, for notices: "its answer was lost (TARGET_UNREACHABLE)" or
 * "answered 504 (TARGET_UNAVAILABLE)".
 *
 * @example
 * describeLostAnswer({ code: 'TARGET_UNAVAILABLE', message: '...', retryable: true, status: 504 }); // 'answered 504 (TARGET_UNAVAILABLE)'
 */
export function describeLostAnswer(error: SerializedError): string {
  return error.status === undefined
    ? `its answer was lost (${error.code})`
    : `answered ${error.status} (${error.code})`;
}
