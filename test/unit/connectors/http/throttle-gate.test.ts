import { describe, expect, it } from 'vitest';
import { ThrottleGate } from '../../../../src/connectors/http/throttle-gate';

/** A clock that moves only when someone sleeps on it. */
function virtualTime() {
  let now = 0;
  const sleeps: number[] = [];
  return {
    now: () => now,
    sleep: async (ms: number) => {
      sleeps.push(ms);
      now += ms;
    },
    sleeps,
  };
}

describe('ThrottleGate', () => {
  it('lets at most the configured number of attempts through, the others in order of arrival', async () => {
    const time = virtualTime();
    const gate = new ThrottleGate({ maxConcurrency: 2, ...time });
    const order: number[] = [];
    const first = await gate.enter();
    const second = await gate.enter();
    const waiting = [3, 4].map((n) => gate.enter().then((leave) => (order.push(n), leave)));
    expect(gate.stats).toMatchObject({ inFlight: 2, queued: 2 });
    first('ok');
    second('ok');
    const leaves = await Promise.all(waiting);
    expect(order).toEqual([3, 4]);
    leaves.forEach((leave) => leave('ok'));
    expect(gate.stats).toMatchObject({ inFlight: 0, queued: 0 });
  });

  it('pauses every caller until a Retry-After has passed', async () => {
    const time = virtualTime();
    const gate = new ThrottleGate({ maxConcurrency: 4, ...time });
    gate.pause(2_000);
    gate.pause(500);
    const leave = await gate.enter();
    expect(time.now()).toBe(2_000);
    expect(gate.stats.pausedWaitMs).toBe(2_000);
    leave('ok');
  });

  it('halves the limit once per burst of throttled answers, never below 1, and grows it back', async () => {
    const time = virtualTime();
    const gate = new ThrottleGate({ maxConcurrency: 8, ...time });
    const burst = await Promise.all(Array.from({ length: 8 }, () => gate.enter()));
    burst.forEach((leave) => leave('throttled'));
    expect(gate.stats.limit).toBe(4);
    for (let round = 0; round < 3; round++) {
      const next = await Promise.all(Array.from({ length: gate.stats.limit }, () => gate.enter()));
      next.forEach((leave) => leave('throttled'));
    }
    expect(gate.stats.limit).toBe(1);
    for (let i = 0; i < 60; i++) (await gate.enter())('ok');
    expect(gate.stats.limit).toBe(8);
  });
});
