import { describe, expect, it } from 'vitest';
import {
  failedWait,
  isThrottled,
  startProgress,
  throttledWait,
  throttledWaitOf,
  type RetryLimits,
} from '../../../../src/connectors/http/retry-policy';

const limits: RetryLimits = {
  maxRetries: 2,
  maxRetryAfterMs: 60_000,
  maxThrottleWaitMs: 10_000,
  backoff: { baseDelayMs: 200, maxDelayMs: 10_000 },
  random: () => 0,
};

describe('isThrottled', () => {
  it.each([
    [429, undefined, true],
    [429, 2_000, true],
    [503, 2_000, true],
    [503, undefined, false],
    [504, 2_000, false],
    [500, undefined, false],
  ])('%i with Retry-After %s: %s', (status, retryAfter, expected) => {
    expect(isThrottled(status, retryAfter)).toBe(expected);
  });
});

describe('throttledWait', () => {
  it('waits as long as Retry-After says, not bounded by maxRetries, until the budget is spent', () => {
    const progress = startProgress();
    const waits = Array.from({ length: 6 }, () => throttledWait(429, 2_000, 0, progress, limits));
    expect(waits).toEqual([2_000, 2_000, 2_000, 2_000, 2_000, undefined]);
    expect(progress.throttledAnswers).toBe(6);
    expect(throttledWaitOf(progress)).toBe(10_000);
  });

  it('backs off with jitter that never draws 0 when there is no Retry-After (or 0)', () => {
    const progress = startProgress();
    expect(throttledWait(429, undefined, 0, progress, limits)).toBe(100);
    expect(throttledWait(429, 0, 0, progress, limits)).toBe(200);
    expect(throttledWait(429, undefined, 0, progress, limits)).toBe(400);
  });

  it('returns at once when a Retry-After (or a pause already set for every caller) is beyond the budget left', () => {
    const progress = { ...startProgress(), throttledWaitMs: 9_000 };
    expect(throttledWait(429, 2_000, 0, progress, limits)).toBeUndefined();
    expect(throttledWait(429, 500, 0, { ...startProgress() }, limits)).toBe(500);
    expect(throttledWait(429, 500, 20_000, startProgress(), limits)).toBeUndefined();
    expect(
      throttledWait(429, 120_000, 0, startProgress(), { ...limits, maxThrottleWaitMs: 600_000 }),
    ).toBeUndefined();
  });

  it('waits out a 503 with Retry-After on the budget, not as a 429, and marks it maybe applied', () => {
    // graph-behaviour.md: a gateway's 503 can come after the directory committed the change.
    const progress = startProgress();
    expect(throttledWait(503, 1_000, 0, progress, limits)).toBe(1_000);
    expect(progress).toMatchObject({
      throttledAnswers: 0,
      throttledRounds: 1,
      maybeApplied: true,
    });
  });

  it('leaves a 429 unmarked: the target refused the request', () => {
    const progress = startProgress();
    expect(throttledWait(429, 1_000, 0, progress, limits)).toBe(1_000);
    expect(progress.maybeApplied).toBe(false);
  });
});

describe('failedWait', () => {
  it('re-sends a 503/504 up to maxRetries times and marks the call as maybe applied', () => {
    const progress = startProgress();
    expect(failedWait(504, undefined, progress, limits)).toBe(0);
    expect(progress.maybeApplied).toBe(true);
    expect(failedWait(503, undefined, progress, limits)).toBe(0);
    expect(failedWait(503, undefined, progress, limits)).toBeUndefined();
    expect(progress.failures).toBe(2);
  });

  it('leaves the last answer unmarked: only an earlier attempt counts', () => {
    const progress = startProgress();
    expect(failedWait(504, undefined, progress, { ...limits, maxRetries: 0 })).toBeUndefined();
    expect(progress.maybeApplied).toBe(false);
  });

  it('does not re-send other statuses', () => {
    for (const status of [200, 400, 404, 500, 502]) {
      expect(failedWait(status, undefined, startProgress(), limits)).toBeUndefined();
    }
  });

  it('does not wait for a Retry-After beyond maxRetryAfterMs', () => {
    expect(failedWait(504, 3_600_000, startProgress(), limits)).toBeUndefined();
    expect(failedWait(504, 1_000, startProgress(), limits)).toBe(1_000);
  });
});
