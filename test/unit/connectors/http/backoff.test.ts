import { describe, expect, it } from 'vitest';
import { backoffDelay, throttleBackoffDelay } from '../../../../src/connectors/http/backoff';

const policy = { baseDelayMs: 100, maxDelayMs: 1000 };

describe('backoffDelay', () => {
  it.each([
    [0, 1, 99],
    [1, 1, 199],
    [3, 1, 799],
    [4, 1, 999],
    [10, 1, 999],
    [3, 0, 0],
    [3, 0.5, 400],
  ])('attempt %i with random %f waits %i ms', (attempt, random, expected) => {
    expect(backoffDelay(attempt, policy, () => (random === 1 ? 0.9999 : random))).toBe(expected);
  });
});

describe('throttleBackoffDelay', () => {
  it.each([
    [0, 0, 50],
    [0, 0.9999, 99],
    [3, 0, 400],
    [3, 0.5, 600],
    [10, 0, 500],
  ])(
    'attempt %i with random %f waits %i ms, never less than half the ceiling',
    (attempt, random, expected) => {
      expect(throttleBackoffDelay(attempt, policy, () => random)).toBe(expected);
    },
  );
});
