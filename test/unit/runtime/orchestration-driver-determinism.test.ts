import type { OrchestrationHandler } from 'durable-functions';
import { describe, expect, it } from 'vitest';
import { WAIT_MS, useDrivers } from './driver-test-kit';

const driverWith = useDrivers();

describe('OrchestrationDriver: determinism', () => {
  it('verifyReplay fails for an orchestrator whose activity input changes between replays', async () => {
    const random: OrchestrationHandler = function* (context) {
      return (yield context.df.callActivity('echo', Math.random())) as number;
    };
    const driver = driverWith({
      orchestrators: { random },
      activities: { echo: async (input) => input },
    });

    await driver.startNew('random', 'nondet-1', null);
    // The task hub does not compare inputs: the live run completes, as in Azure.
    expect((await driver.waitFor('nondet-1', WAIT_MS)).runtimeStatus).toBe('Completed');

    await expect(driver.verifyReplay('nondet-1')).rejects.toThrow(
      /not deterministic: replay of episode \d of 2: action #0: CallActivity "echo": the replay passed a different input/,
    );
  });

  it('fails the instance at run time when a replay schedules a different activity, as the task hub does', async () => {
    let replays = 0;
    const branching: OrchestrationHandler = function* (context) {
      replays += 1;
      yield context.df.callActivity(replays === 1 ? 'first' : 'second', null);
      return 'done';
    };
    const driver = driverWith({
      orchestrators: { branching },
      activities: { first: async () => 1, second: async () => 2 },
    });

    await driver.startNew('branching', 'nondet-2', null);
    const state = await driver.waitFor('nondet-2', WAIT_MS);

    expect(state.runtimeStatus).toBe('Failed');
    expect(state.output).toContain(
      'Non-Deterministic workflow detected: recorded CallActivity "first", replay produced CallActivity "second"',
    );
    await expect(driver.verifyReplay('nondet-2')).rejects.toThrow(/not deterministic/);
  });
  it('rejects waitFor at once when an instance stalls instead of waiting for the timeout', async () => {
    const stalling: OrchestrationHandler = function* (context) {
      const timer = context.df.createTimer(
        new Date(context.df.currentUtcDateTime.getTime() + 1_000),
      );
      // A timer canceled before it is awaited is never scheduled: nothing will wake the instance.
      timer.cancel();
      yield timer;
      return 'woke';
    };
    const driver = driverWith({ orchestrators: { stalling }, activities: {} });
    const wallStart = Date.now();

    await driver.startNew('stalling', 'stall-1', null);

    await expect(driver.waitFor('stall-1', WAIT_MS)).rejects.toThrow(
      /"stall-1" \(stalling\) stalled/,
    );
    expect(Date.now() - wallStart).toBeLessThan(1_000);
  });
});
