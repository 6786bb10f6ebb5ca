import * as df from 'durable-functions';
import { describe, expect, it } from 'vitest';
import { retryDelayMs, toRetryPolicy } from '../../../src/runtime/local-host/retry-policy';

describe('retryDelayMs', () => {
  const policy = {
    firstRetryIntervalMs: 1_000,
    maxNumberOfAttempts: 5,
    backoffCoefficient: 2,
    maxRetryIntervalMs: 5_000,
  };

  it.each([
    [1, 1_000],
    [2, 2_000],
    [3, 4_000],
    [4, 5_000],
  ])('after %i failed attempts waits %i ms', (failed, expected) => {
    expect(retryDelayMs(policy, failed)).toBe(expected);
  });
});

describe('toRetryPolicy', () => {
  it('reads RetryOptions with DurableTask defaults for what the orchestrator left unset', () => {
    expect(toRetryPolicy(new df.RetryOptions(250, 3))).toEqual({
      firstRetryIntervalMs: 250,
      maxNumberOfAttempts: 3,
      backoffCoefficient: 1,
      maxRetryIntervalMs: Number.POSITIVE_INFINITY,
    });
  });
});
