/** What a TARGET_THROTTLED message needs to know of the call whose 429 became its answer. */
export interface ThrottledCall {
  throttledWaitMs?: number;
  throttledAnswers?: number;
  /** The wait the call was allowed; unknown when the answer did not come through a transport. */
  maxThrottleWaitMs?: number;
  /** The wait the last 429's `Retry-After` asked for, as the transport (or `$batch`) read it. */
  retryAfterMs?: number;
}

/**
 * " (throttled: waited 125 s over 14 answers 429; the limit is maxThrottleWaitSeconds = 120)":
 * how long a call bore the target's throttling before its 429 became the answer, for
 * TARGET_THROTTLED messages.
 *
 * @example
 * throttledFor({ throttledWaitMs: 125_000, throttledAnswers: 14, maxThrottleWaitMs: 120_000 });
 */
export function throttledFor(call: ThrottledCall): string {
  const seconds = Math.round((call.throttledWaitMs ?? 0) / 1000);
  // The answer being described is a 429 itself, whatever a hand-made answer says.
  const answers = Math.max(1, call.throttledAnswers ?? 1);
  const limit =
    call.maxThrottleWaitMs === undefined
      ? 'the limit is the setting maxThrottleWaitSeconds'
      : `the limit is maxThrottleWaitSeconds = ${Math.round(call.maxThrottleWaitMs / 1000)}`;
  return ` (throttled: waited ${seconds} s over ${answers} answer${answers === 1 ? '' : 's'} 429; ${limit})`;
}

/**
 * The details of a TARGET_THROTTLED error: how long the call waited, over how many 429s, and
 * how long the last one asked to wait (`retryAfterMs`, when it said): the request's
 * throttling hold waits that long before it runs the step again (src/domain/throttle-hold.ts).
 *
 * @example
 * throttledDetails({ throttledWaitMs: 125_000, throttledAnswers: 14, retryAfterMs: 30_000 }); // { throttledWaitMs: 125000, throttledAnswers: 14, retryAfterMs: 30000 }
 */
export function throttledDetails(call: ThrottledCall): {
  throttledWaitMs: number;
  throttledAnswers: number;
  retryAfterMs?: number;
} {
  const { retryAfterMs } = call;
  return {
    throttledWaitMs: call.throttledWaitMs ?? 0,
    throttledAnswers: Math.max(1, call.throttledAnswers ?? 1),
    ...(retryAfterMs === undefined ? {} : { retryAfterMs }),
  };
}
