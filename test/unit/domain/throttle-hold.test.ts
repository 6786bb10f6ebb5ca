import { describe, expect, it } from 'vitest';
import type { SerializedError } from '../../../src/domain/errors';
import {
  stepThrottling,
  throttleHoldDelayMs,
  throttleHoldExpired,
  throttleHoldNotice,
  throttleHoldReason,
} from '../../../src/domain/throttle-hold';

const throttled: SerializedError = {
  code: 'TARGET_THROTTLED',
  message: 'connector "hr-app": PATCH /Groups/g1 for group "Sales" answered 429',
  retryable: false,
  status: 429,
  object: 'g1',
  details: { throttledWaitMs: 120_000, throttledAnswers: 6, retryAfterMs: 300_000 },
};

describe('stepThrottling', () => {
  it("reads the throttled call's wait and the last Retry-After from TARGET_THROTTLED", () => {
    expect(stepThrottling(throttled)).toEqual({ waitedMs: 120_000, retryAfterMs: 300_000 });
    expect(stepThrottling({ ...throttled, details: {} })).toEqual({ waitedMs: 0 });
  });

  it('is undefined for any other failure: a request is held for throttling only', () => {
    expect(stepThrottling({ ...throttled, code: 'TARGET_UNAVAILABLE' })).toBeUndefined();
    expect(stepThrottling(undefined)).toBeUndefined();
  });
});

describe('throttleHoldDelayMs', () => {
  const none = { holds: 0, waitedMs: 0 };

  it('waits what the Retry-After asks, at least 5 s', () => {
    expect(throttleHoldDelayMs({ waitedMs: 0, retryAfterMs: 300_000 }, none, 3_600_000)).toBe(
      300_000,
    );
    expect(throttleHoldDelayMs({ waitedMs: 0, retryAfterMs: 1_000 }, none, 3_600_000)).toBe(5_000);
  });

  it('without a Retry-After, waits 30 s doubling with each hold, up to 10 minutes', () => {
    const delays = [0, 1, 2, 5, 30].map((holds) =>
      throttleHoldDelayMs({ waitedMs: 0 }, { holds, waitedMs: 0 }, 86_400_000),
    );
    expect(delays).toEqual([30_000, 60_000, 120_000, 600_000, 600_000]);
  });

  it('is undefined once the wait would take the request past its limit', () => {
    const throttling = { waitedMs: 0, retryAfterMs: 300_000 };
    expect(throttleHoldDelayMs(throttling, { holds: 1, waitedMs: 300_000 }, 600_000)).toBe(300_000);
    expect(throttleHoldDelayMs(throttling, { holds: 1, waitedMs: 300_001 }, 600_000)).toBe(
      undefined,
    );
    // maxThrottleHoldMinutes 0: never held.
    expect(throttleHoldDelayMs(throttling, none, 0)).toBeUndefined();
  });
});

describe('what the operator reads', () => {
  it('says what the request waits for while it waits, and after each hold', () => {
    expect(throttleHoldReason('hr-app', { waitedMs: 0, retryAfterMs: 300_000 })).toBe(
      'waits for the throttling of connector "hr-app" (429 Too Many Requests; its last Retry-After asked for 5 min), then runs the step again from its start',
    );
    expect(throttleHoldNotice('hr-app', 30_000, { waitedMs: 0 })).toBe(
      'held 30 s for the throttling of connector "hr-app" (429 Too Many Requests, no Retry-After), then ran the step again from its start',
    );
  });

  it('fails the step with TARGET_THROTTLED naming the target, the wait and the last Retry-After', () => {
    const error = throttleHoldExpired(
      'hr-app',
      throttled,
      { waitedMs: 120_000, retryAfterMs: 300_000 },
      { holds: 11, waitedMs: 3_420_000 },
      60,
    );
    expect(error).toMatchObject({
      code: 'TARGET_THROTTLED',
      retryable: false,
      status: 429,
      object: 'g1',
      details: { requestThrottledMs: 3_420_000, throttleHolds: 11, retryAfterMs: 300_000 },
    });
    expect(error.message).toBe(
      'connector "hr-app" kept throttling: the request waited 57 min for it in all (11 holds on a durable timer) ' +
        'and the last Retry-After asked for 5 min more, past the limit of 60 min (maxThrottleHoldMinutes); ' +
        'what the step wrote before is journaled, the steps after it did not run. ' +
        'Last answer: connector "hr-app": PATCH /Groups/g1 for group "Sales" answered 429',
    );
  });
});
