import { describe, expect, it } from 'vitest';
import {
  ACTION_TYPE,
  settledAction,
  toReplayedAction,
} from '../../../../src/runtime/local-host/replayed-action';

describe('settledAction', () => {
  it('keeps an activity with its input as text, and lets go of the executor input object', () => {
    let reads = 0;
    const state = {
      get requestId() {
        reads += 1;
        return 'r1';
      },
    };
    const replayed = toReplayedAction({
      actionType: ACTION_TYPE.CallActivity,
      functionName: 'recordStep',
      input: state,
    });
    expect(reads).toBe(0);
    const settled = settledAction(replayed);
    expect(settled).toEqual({ kind: 'activity', name: 'recordStep', input: '{"requestId":"r1"}' });
    expect(reads).toBe(1);
    // Plain data now: reading it again serializes nothing, and a copy keeps the input.
    expect(Object.getOwnPropertyDescriptor(settled, 'input')).toHaveProperty('value');
    expect(structuredClone(settled)).toEqual(settled);
    expect(reads).toBe(1);
  });

  it('keeps an activity with retry with its policy, and its string input as the text it is', () => {
    const replayed = toReplayedAction({
      actionType: ACTION_TYPE.CallActivityWithRetry,
      functionName: 'indexRequestEnd',
      input: '"already json"',
      retryOptions: {
        firstRetryIntervalInMilliseconds: 2_000,
        maxNumberOfAttempts: 3,
        backoffCoefficient: 2,
        maxRetryIntervalInMilliseconds: 10_000,
      },
    });
    const settled = settledAction(replayed);
    expect(settled).toEqual({
      kind: 'activityWithRetry',
      name: 'indexRequestEnd',
      input: '"already json"',
      retry: {
        firstRetryIntervalMs: 2_000,
        maxNumberOfAttempts: 3,
        backoffCoefficient: 2,
        maxRetryIntervalMs: 10_000,
      },
    });
    expect(Object.getOwnPropertyDescriptor(settled, 'input')).toHaveProperty('value');
  });

  it('keeps an activity without input without one', () => {
    const settled = settledAction(
      toReplayedAction({ actionType: ACTION_TYPE.CallActivity, functionName: 'probe' }),
    );
    expect(settled).toEqual({ kind: 'activity', name: 'probe', input: undefined });
  });

  it('keeps a timer as it is', () => {
    const timer = toReplayedAction({
      actionType: ACTION_TYPE.CreateTimer,
      fireAt: new Date(Date.UTC(2026, 10, 24, 9, 5)),
      isCanceled: true,
    });
    expect(settledAction(timer)).toEqual({
      kind: 'timer',
      fireAt: Date.UTC(2026, 10, 24, 9, 5),
      canceled: true,
    });
  });
});
