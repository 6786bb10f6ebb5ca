import type { OrchestrationHandler } from 'durable-functions';
import { describe, expect, it } from 'vitest';
import { VirtualClock } from '../../../src/runtime/local-host/virtual-clock';
import { START, WAIT_MS, useDrivers } from './driver-test-kit';

const driverWith = useDrivers();

/** Lets pending promise callbacks and the driver's setImmediate episodes run. */
const settle = async () => {
  for (let i = 0; i < 5; i++) await new Promise<void>((resolve) => setImmediate(resolve));
};

/** Whether a promise has settled by now (after the pending callbacks ran). */
async function settled(promise: Promise<unknown>): Promise<boolean> {
  let done = false;
  void promise.then(() => (done = true));
  await settle();
  return done;
}

describe('OrchestrationDriver: instances before their first activity (the queue poller waits on them)', () => {
  it('counts an instance as starting until its first activity ends, not its later ones', async () => {
    const twoSteps: OrchestrationHandler = function* (context) {
      yield context.df.callActivity('step', `${context.df.instanceId}/1`);
      return (yield context.df.callActivity('step', `${context.df.instanceId}/2`)) as string;
    };
    const releases = new Map<string, () => void>();
    const driver = driverWith({
      orchestrators: { twoSteps },
      activities: {
        step: (input) =>
          new Promise((resolve) => releases.set(String(input), () => resolve(input))),
      },
    });
    await driver.startNew('twoSteps', 'a', null);
    await driver.startNew('twoSteps', 'b', null);
    await settle();
    // Two starting: fewer than 3 at once, fewer than 2 only once one is past its first step.
    expect(await settled(driver.whenFewerStarting(3))).toBe(true);
    const belowTwo = driver.whenFewerStarting(2);
    const belowOne = driver.whenFewerStarting(1);
    expect(await settled(belowTwo)).toBe(false);
    releases.get('a/1')!();
    expect(await settled(belowTwo)).toBe(true);
    expect(await settled(belowOne)).toBe(false);
    // a's second activity running does not make it starting again.
    expect(releases.has('a/2')).toBe(true);
    expect(await settled(driver.whenFewerStarting(2))).toBe(true);
    releases.get('b/1')!();
    expect(await settled(belowOne)).toBe(true);
    releases.get('a/2')!();
    releases.get('b/2')!();
    expect((await driver.waitFor('a', WAIT_MS)).output).toBe('a/2');
    expect((await driver.waitFor('b', WAIT_MS)).output).toBe('b/2');
  });

  it('does not count an instance that waits on a timer, or ended, without an activity', async () => {
    const clock = new VirtualClock(START);
    const later: OrchestrationHandler = function* (context) {
      yield context.df.createTimer(new Date(context.df.currentUtcDateTime.getTime() + 3_600_000));
      return 'late';
    };
    const quick: OrchestrationHandler = function* () {
      yield* [];
      return 'done';
    };
    const driver = driverWith({
      orchestrators: { later, quick },
      activities: {},
      clock,
      autoAdvance: false,
    });
    await driver.startNew('later', 'timer-1', null);
    await driver.startNew('quick', 'quick-1', null);
    await settle();
    expect(await settled(driver.whenFewerStarting(1))).toBe(true);
    expect((await driver.getStatus('timer-1'))?.runtimeStatus).toBe('Running');
    expect((await driver.getStatus('quick-1'))?.runtimeStatus).toBe('Completed');
  });

  it('releases a waiter as soon as the driver closes, while the work under way drains', async () => {
    const stuck: OrchestrationHandler = function* (context) {
      return (yield context.df.callActivity('never', null)) as unknown;
    };
    let release: (() => void) | undefined;
    const driver = driverWith({
      orchestrators: { stuck },
      activities: { never: () => new Promise((resolve) => (release = () => resolve(null))) },
    });
    await driver.startNew('stuck', 'stuck-1', null);
    await settle();
    const waiting = driver.whenFewerStarting(1);
    expect(await settled(waiting)).toBe(false);
    // Released as the close begins, while the activity is still running (not by its end).
    const closing = driver.close();
    await settle();
    expect(await settled(waiting)).toBe(true);
    expect(await settled(driver.whenFewerStarting(1))).toBe(true);
    release?.();
    await closing;
  });
});
