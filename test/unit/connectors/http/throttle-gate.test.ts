import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { ThrottleGate, type GatePass } from '../../../../src/connectors/http/throttle-gate';
import { TokenBucket } from '../../../../src/connectors/http/token-bucket';

/** The gate on vitest's fake clock: time moves only when a test advances it. */
function fakeClock() {
  return {
    now: () => Date.now(),
    sleep: (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms)),
  };
}

/** Lets every pending promise callback run. */
function settle(): Promise<void> {
  return new Promise((resolve) => setImmediate(resolve));
}

function enterMany(gate: ThrottleGate, count: number): Promise<GatePass[]> {
  return Promise.all(Array.from({ length: count }, () => gate.enter()));
}

describe('ThrottleGate', () => {
  beforeEach(() => {
    vi.useFakeTimers({ now: 0, toFake: ['setTimeout', 'Date'] });
  });

  afterEach(() => {
    vi.useRealTimers();
  });

  it('lets at most the configured number of attempts through, the others in order of arrival', async () => {
    const gate = new ThrottleGate({ maxConcurrency: 2, ...fakeClock() });
    const order: number[] = [];
    const first = await gate.enter();
    const second = await gate.enter();
    const waiting = [3, 4, 5].map((n) => gate.enter().then((pass) => (order.push(n), pass)));
    expect(gate.stats).toMatchObject({ inFlight: 2, queued: 3 });
    first.leave('ok');
    await settle();
    expect(order).toEqual([3]);
    second.leave('ok');
    const passes = await Promise.all(waiting.slice(0, 2));
    expect(order).toEqual([3, 4]);
    passes.forEach((pass) => pass.leave('ok'));
    (await waiting[2]!).leave('ok');
    expect(order).toEqual([3, 4, 5]);
    expect(gate.stats).toMatchObject({ inFlight: 0, queued: 0 });
  });

  it('pauses every caller until the longest Retry-After has passed, and says how long each waited', async () => {
    const gate = new ThrottleGate({ maxConcurrency: 4, ...fakeClock() });
    gate.pause(2_000);
    gate.pause(500);
    expect(gate.stats.pausedUntil).toBe(2_000);
    let passes: GatePass[] | undefined;
    void enterMany(gate, 3).then((entered) => (passes = entered));
    await vi.advanceTimersByTimeAsync(1_999);
    expect(passes).toBeUndefined();
    await vi.advanceTimersByTimeAsync(1);
    expect(passes?.map((pass) => pass.pausedMs)).toEqual([2_000, 2_000, 2_000]);
    expect(gate.stats.throttleWaitMs).toBe(6_000);
    passes!.forEach((pass) => pass.leave('ok'));
    const after = await gate.enter();
    expect(after.pausedMs).toBe(0);
    after.leave('ok');
  });

  it('waits again when the pause is lengthened while a caller waits', async () => {
    let now = 0;
    let extend = true;
    const gate = new ThrottleGate({
      maxConcurrency: 1,
      now: () => now,
      sleep: async (ms) => {
        now += ms;
        if (extend) {
          extend = false;
          gate.pause(1_000);
        }
      },
    });
    gate.pause(500);
    const pass = await gate.enter();
    expect(now).toBe(1_500);
    expect(pass.pausedMs).toBe(1_500);
    pass.leave('ok');
  });

  it('does not spin on a clock that does not move', async () => {
    const gate = new ThrottleGate({
      maxConcurrency: 1,
      now: () => 0,
      sleep: async () => undefined,
    });
    gate.pause(1_000);
    const pass = await gate.enter();
    expect(pass.pausedMs).toBe(0);
    pass.leave('ok');
  });

  it('halves the limit once per burst of throttled answers, never below 1, and grows it back to at most the maximum', async () => {
    const gate = new ThrottleGate({ maxConcurrency: 8, ...fakeClock() });
    const burst = await enterMany(gate, 8);
    burst.forEach((pass) => pass.leave('throttled'));
    expect(gate.stats.limit).toBe(4);
    for (let round = 0; round < 4; round++) {
      const next = await enterMany(gate, gate.stats.limit);
      next.forEach((pass) => pass.leave('throttled'));
    }
    expect(gate.stats.limit).toBe(1);
    for (let i = 0; i < 60; i++) (await gate.enter()).leave('ok');
    expect(gate.stats.limit).toBe(8);
    for (let i = 0; i < 100; i++) (await gate.enter()).leave('ok');
    expect(gate.stats.limit).toBe(8);
  });

  it('ignores throttled answers to attempts started before the last decrease', async () => {
    const gate = new ThrottleGate({ maxConcurrency: 8, ...fakeClock() });
    const old = await enterMany(gate, 8);
    old[0]!.leave('throttled');
    expect(gate.stats.limit).toBe(4);
    // Four answers come back fine: slots free up and new attempts start.
    old.slice(1, 5).forEach((pass) => pass.leave('ok'));
    const fresh = await enterMany(gate, gate.stats.limit - gate.stats.inFlight);
    expect(fresh.length).toBeGreaterThan(0);
    // The rest of the old burst answers 429 late: still the same burst.
    old.slice(5).forEach((pass) => pass.leave('throttled'));
    expect(gate.stats.limit).toBe(4);
    // An attempt started after the decrease that meets a 429 is a new round.
    fresh[0]!.leave('throttled');
    expect(gate.stats.limit).toBe(2);
    fresh.slice(1).forEach((pass) => pass.leave('ok'));
  });

  it('keeps callers beyond a lowered limit queued until enough attempts have left', async () => {
    const gate = new ThrottleGate({ maxConcurrency: 4, ...fakeClock() });
    const running = await enterMany(gate, 4);
    let admitted = 0;
    const queued = [gate.enter(), gate.enter()].map((entry) =>
      entry.then((pass) => (admitted++, pass)),
    );
    running[0]!.leave('throttled');
    running[1]!.leave('failed');
    await settle();
    expect(gate.stats).toMatchObject({ limit: 2, inFlight: 2, queued: 2 });
    expect(admitted).toBe(0);
    running[2]!.leave('ok');
    running[3]!.leave('ok');
    const passes = await Promise.all(queued);
    expect(admitted).toBe(2);
    passes.forEach((pass) => pass.leave('ok'));
  });

  it('counts a pass only once however often it leaves', async () => {
    const gate = new ThrottleGate({ maxConcurrency: 2, ...fakeClock() });
    const pass = await gate.enter();
    pass.leave('ok');
    pass.leave('ok');
    expect(gate.stats.inFlight).toBe(0);
  });

  it("paces attempts to the target's quota, each taking its share with its slot in hand", async () => {
    const writes = new TokenBucket({ capacity: 2, windowMs: 2_000 }, 0);
    const budget = { buckets: new Map([['writes', writes]]), learn: () => false };
    const gate = new ThrottleGate({ maxConcurrency: 4, ...fakeClock(), budget });
    const entered: number[] = [];
    const attempts = Array.from({ length: 4 }, () =>
      gate.enter({ writes: 1 }).then((pass) => {
        entered.push(Date.now());
        pass.leave('ok');
        return pass;
      }),
    );
    await settle();
    expect(entered).toEqual([0, 0]);
    await vi.advanceTimersByTimeAsync(2_000);
    const passes = await Promise.all(attempts);
    // Two at once (the burst), then one per second: the quota's rate.
    expect(entered).toEqual([0, 0, 1_000, 2_000]);
    expect(passes.map((pass) => pass.pacedMs)).toEqual([0, 0, 1_000, 2_000]);
    expect(gate.stats.pacedMs).toBe(3_000);
  });
});
