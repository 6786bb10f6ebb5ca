import { describe, expect, it } from 'vitest';
import { backoffDelay } from '../../../../src/connectors/http/backoff';

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
