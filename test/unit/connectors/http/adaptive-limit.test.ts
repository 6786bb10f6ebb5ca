import { describe, expect, it } from 'vitest';
import { AdaptiveLimit } from '../../../../src/connectors/http/adaptive-limit';

/** `count` answers, each in the round the limit is in when it is given. */
function answer(limit: AdaptiveLimit, count: number, signal: 'ok' | 'failed', latencyMs = 20) {
  for (let i = 0; i < count; i++) limit.answered(signal, limit.round, latencyMs);
}

describe('AdaptiveLimit (AIMD)', () => {
  it('grows by one per round of answers up to the configured ceiling, never past it', () => {
    const limit = new AdaptiveLimit(8);
    limit.answered('throttled', limit.round, 20);
    expect(limit.current).toBe(4);
    // About one per `limit` answers.
    answer(limit, 5, 'ok');
    expect(limit.current).toBe(5);
    answer(limit, 200, 'ok');
    expect(limit.current).toBe(8);
  });

  it('lets fewer in while the target queues what it gets: latency twice its unloaded latency and 50 ms over', () => {
    const limit = new AdaptiveLimit(16);
    answer(limit, 20, 'ok', 40);
    expect(limit.current).toBe(16);
    // The target slows down as it is loaded: 300 ms instead of 40.
    answer(limit, 60, 'ok', 300);
    expect(limit.current).toBeLessThan(6);
    // Noise under 50 ms over the baseline is no signal.
    const calm = new AdaptiveLimit(16);
    answer(calm, 20, 'ok', 5);
    answer(calm, 60, 'ok', 40);
    expect(calm.current).toBe(16);
  });

  it('halves once a fifth of the recent answers failed, once per round', () => {
    const limit = new AdaptiveLimit(16);
    answer(limit, 16, 'ok');
    const round = limit.round;
    for (let i = 0; i < 3; i++) limit.answered('failed', round, 0);
    expect(limit.current).toBe(16);
    // The fourth failure of the same round halves it; the rest of that round does not again.
    for (let i = 0; i < 4; i++) limit.answered('failed', round, 0);
    expect(limit.current).toBe(8);
  });

  it("leaves the limit alone for a quota's 429 (the pacing answers for it)", () => {
    const limit = new AdaptiveLimit(8);
    for (let i = 0; i < 10; i++) limit.answered('quota', limit.round, 0);
    expect(limit.current).toBe(8);
  });
});
