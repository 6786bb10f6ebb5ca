import type { OrchestrationHandler } from 'durable-functions';
import { describe, expect, it } from 'vitest';
import { HISTORY_EVENT } from '../../../src/runtime/local-host/history-events';
import { OrchestrationDriver } from '../../../src/runtime/local-host/orchestration-driver';
import { VirtualClock } from '../../../src/runtime/local-host/virtual-clock';
import { START, WAIT_MS, count, useDrivers } from './driver-test-kit';

const driverWith = useDrivers();

describe('OrchestrationDriver: durable timers on a virtual clock', () => {
  const pollUntilVisible: OrchestrationHandler = function* (context) {
    const started = context.df.currentUtcDateTime.getTime();
    let reads = 0;
    for (;;) {
      reads += 1;
      const visible = (yield context.df.callActivity('readGroup', reads)) as boolean;
      const now = context.df.currentUtcDateTime.getTime();
      if (visible || now - started >= 30_000) return { visible, reads, waitedMs: now - started };
      context.df.setCustomStatus({ reads });
      yield context.df.createTimer(new Date(now + 1_000));
    }
  };

  function pollingDriver(clock: VirtualClock, visibleAfterMs: number): OrchestrationDriver {
    return driverWith({
      orchestrators: { pollUntilVisible },
      // A sandbox-like target that makes a write visible only after some virtual time.
      activities: { readGroup: async () => clock.now() - START >= visibleAfterMs },
      clock,
    });
  }

  it('re-reads every second until the change is visible, in virtual time', async () => {
    const clock = new VirtualClock(START);
    const driver = pollingDriver(clock, 10_000);

    await driver.startNew('pollUntilVisible', 'poll-1', null);
    const state = await driver.waitFor('poll-1', WAIT_MS);

    expect(state.output).toEqual({ visible: true, reads: 11, waitedMs: 10_000 });
    expect(clock.now() - START).toBe(10_000);
    expect(state.customStatus).toEqual({ reads: 10 });
    expect(state.lastUpdatedTime).toBe(new Date(START + 10_000).toISOString());
  });

  it('gives up after 30 s of virtual time within milliseconds of wall time', async () => {
    const clock = new VirtualClock(START);
    const driver = pollingDriver(clock, Number.POSITIVE_INFINITY);
    const wallStart = Date.now();

    await driver.startNew('pollUntilVisible', 'poll-2', null);
    const state = await driver.waitFor('poll-2', WAIT_MS);

    expect(state.output).toEqual({ visible: false, reads: 31, waitedMs: 30_000 });
    expect(count(driver.history('poll-2'), HISTORY_EVENT.TimerFired)).toBe(30);
    expect(clock.now() - START).toBe(30_000);
    expect(Date.now() - wallStart).toBeLessThan(3_000);
    await expect(driver.verifyReplay('poll-2')).resolves.toBeUndefined();
  });

  it('fires timers only when a hand-advanced clock reaches them (no auto-advance)', async () => {
    const clock = new VirtualClock(START);
    const napping: OrchestrationHandler = function* (context) {
      yield context.df.createTimer(new Date(context.df.currentUtcDateTime.getTime() + 5_000));
      return context.df.currentUtcDateTime.toISOString();
    };
    const driver = driverWith({
      orchestrators: { napping },
      activities: {},
      clock,
      autoAdvance: false,
    });

    await driver.startNew('napping', 'nap-1', null);
    await driver.idle();
    expect((await driver.getStatus('nap-1'))?.runtimeStatus).toBe('Running');
    clock.advanceBy(4_999);
    await driver.idle();
    expect((await driver.getStatus('nap-1'))?.runtimeStatus).toBe('Running');
    clock.advanceBy(1);

    expect((await driver.waitFor('nap-1', WAIT_MS)).output).toBe(
      new Date(START + 5_000).toISOString(),
    );
  });
});

describe('OrchestrationDriver: real clock', () => {
  it('fires short durable timers on the real clock', async () => {
    const ticking: OrchestrationHandler = function* (context) {
      const start = context.df.currentUtcDateTime.getTime();
      yield context.df.createTimer(new Date(start + 20));
      yield context.df.createTimer(new Date(context.df.currentUtcDateTime.getTime() + 20));
      return context.df.currentUtcDateTime.getTime() - start;
    };
    const driver = driverWith({ orchestrators: { ticking }, activities: {} });

    await driver.startNew('ticking', 'real-1', null);
    const state = await driver.waitFor('real-1', WAIT_MS);

    expect(state.output).toBeGreaterThanOrEqual(40);
    expect(count(driver.history('real-1'), HISTORY_EVENT.TimerFired)).toBe(2);
    await driver.idle();
  });

  it('close cancels pending timers and refuses new instances', async () => {
    const sleeper: OrchestrationHandler = function* (context) {
      yield context.df.createTimer(new Date(context.df.currentUtcDateTime.getTime() + 60_000));
      return 'woke';
    };
    const driver = new OrchestrationDriver({ orchestrators: { sleeper }, activities: {} });
    await driver.startNew('sleeper', 'sleep-1', null);
    const waiting = driver.waitFor('sleep-1', WAIT_MS);
    await new Promise((resolve) => setTimeout(resolve, 20));

    await driver.close();

    await expect(waiting).rejects.toThrow(/closed before "sleep-1" finished/);
    await expect(driver.startNew('sleeper', 'sleep-2', null)).rejects.toThrow(/closed/);
    await expect(driver.idle()).resolves.toBeUndefined();
  });
});
