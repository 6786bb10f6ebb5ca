import { describe, expect, it } from 'vitest';
import { throttledDetails, throttledFor } from '../../../../src/connectors/http/throttled-for';

describe('throttledFor', () => {
  it('says how long the call waited, over how many 429s, and the limit', () => {
    expect(
      throttledFor({ throttledWaitMs: 125_400, throttledAnswers: 14, maxThrottleWaitMs: 120_000 }),
    ).toBe(
      ' (throttled: waited 125 s over 14 answers 429; the limit is maxThrottleWaitSeconds = 120)',
    );
  });

  it('names the setting when the limit is not known, and counts the answer itself at least', () => {
    expect(throttledFor({})).toBe(
      ' (throttled: waited 0 s over 1 answer 429; the limit is the setting maxThrottleWaitSeconds)',
    );
  });
});

describe('throttledDetails', () => {
  it('gives the waited time and the count of 429s', () => {
    expect(throttledDetails({ throttledWaitMs: 2_500, throttledAnswers: 3 })).toEqual({
      throttledWaitMs: 2_500,
      throttledAnswers: 3,
    });
  });

  it('gives the last Retry-After as it was read where the answer came in', () => {
    expect(throttledDetails({ retryAfterMs: 600_000 })).toEqual({
      throttledWaitMs: 0,
      throttledAnswers: 1,
      retryAfterMs: 600_000,
    });
    expect(throttledDetails({})).not.toHaveProperty('retryAfterMs');
  });
});
