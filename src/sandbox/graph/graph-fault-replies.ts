import type { CallFault } from '../faults/fault-decider.js';
import { GraphRequestError, toGraphErrorReply } from './graph-error.js';
import type { GraphReply } from './graph-error.js';

/**
 * 429 `TooManyRequests` with `Retry-After` in seconds, or (`omitHeader`) without one, which
 * Graph also sends (graph-behaviour.md: Errors and throttling).
 */
export function throttledReply(
  retryAfterSeconds: number,
  nowMs: number,
  omitHeader = false,
): GraphReply {
  return toGraphErrorReply(
    new GraphRequestError(
      429,
      'TooManyRequests',
      omitHeader
        ? 'Your request is throttled temporarily. Please try again later.'
        : `Your request is throttled temporarily. Please try after ${retryAfterSeconds} seconds.`,
      omitHeader ? {} : { headers: { 'Retry-After': String(retryAfterSeconds) } },
    ),
    nowMs,
  );
}

/** A gateway's 504: the call may or may not have been applied. */
export function gatewayTimeoutReply(nowMs: number): GraphReply {
  return toGraphErrorReply(
    new GraphRequestError(504, 'GatewayTimeout', 'The gateway did not receive a timely response.'),
    nowMs,
  );
}

/** The answer of an injected fault other than a reset, which has no answer. */
export function callFaultReply(
  fault: Exclude<CallFault, { kind: 'reset' }>,
  nowMs: number,
): GraphReply {
  if (fault.kind !== 'server error') {
    return throttledReply(fault.retryAfterSeconds, nowMs, fault.omitRetryAfter === true);
  }
  if (fault.status === 504) return gatewayTimeoutReply(nowMs);
  return toGraphErrorReply(
    new GraphRequestError(
      503,
      'serviceNotAvailable',
      'The service is temporarily unavailable. Please retry later.',
    ),
    nowMs,
  );
}
