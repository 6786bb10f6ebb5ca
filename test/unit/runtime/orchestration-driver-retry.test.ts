import type { OrchestrationHandler } from 'durable-functions';
import { describe, expect, it } from 'vitest';
import { HISTORY_EVENT } from '../../../src/runtime/local-host/history-events';
import { VirtualClock } from '../../../src/runtime/local-host/virtual-clock';
import { START, WAIT_MS, count, retryOptions, useDrivers } from './driver-test-kit';

const driverWith = useDrivers();

describe('OrchestrationDriver: callActivityWithRetry', () => {
  it('retries with backoff on the durable clock until an attempt succeeds', async () => {
    const clock = new VirtualClock(START);
    const attempts: number[] = [];
    const retrying: OrchestrationHandler = function* (context) {
      const value = (yield context.df.callActivityWithRetry(
        'flaky',
        retryOptions(1_000, 3, 2),
        'x',
      )) as string;
      const after = (yield context.df.callActivity('echo', 'next')) as string;
      return [value, after];
    };
    const driver = driverWith({
      orchestrators: { retrying },
      activities: {
        flaky: async () => {
          attempts.push(clock.now() - START);
          if (attempts.length < 3) throw new Error(`attempt ${attempts.length} failed`);
          return 'ok';
        },
        echo: async (input) => input,
      },
      clock,
    });

    await driver.startNew('retrying', 'retry-1', null);
    const state = await driver.waitFor('retry-1', WAIT_MS);

    expect(state.output).toEqual(['ok', 'next']);
    // First retry after 1 s, the second after 2 s more (backoff coefficient 2).
    expect(attempts).toEqual([0, 1_000, 3_000]);
    const history = driver.history('retry-1');
    expect(count(history, HISTORY_EVENT.TaskFailed)).toBe(2);
    expect(count(history, HISTORY_EVENT.TimerFired)).toBe(2);
    await expect(driver.verifyReplay('retry-1')).resolves.toBeUndefined();
  });

  it('hands the last failure to the orchestrator once the attempts are exhausted', async () => {
    const clock = new VirtualClock(START);
    let calls = 0;
    const exhausting: OrchestrationHandler = function* (context) {
      try {
        yield context.df.callActivityWithRetry('broken', retryOptions(500, 2), null);
        return 'not reached';
      } catch (error) {
        return error instanceof Error ? error.message : 'not an Error';
      }
    };
    const driver = driverWith({
      orchestrators: { exhausting },
      activities: {
        broken: async () => {
          calls += 1;
          throw new Error(`still broken (${calls})`);
        },
      },
      clock,
    });

    await driver.startNew('exhausting', 'retry-2', null);
    const state = await driver.waitFor('retry-2', WAIT_MS);

    expect(calls).toBe(2);
    expect(state.runtimeStatus).toBe('Completed');
    expect(state.output).toContain("Activity function 'broken' failed: still broken (2)");
    await expect(driver.verifyReplay('retry-2')).resolves.toBeUndefined();
  });

  it('keeps sequence ids straight for parallel retried activities failing at different times', async () => {
    const clock = new VirtualClock(START);
    const failuresLeft: Record<string, number> = { a: 1, b: 2 };
    const parallel: OrchestrationHandler = function* (context) {
      const results = (yield context.df.Task.all([
        context.df.callActivityWithRetry('sometimes', retryOptions(100, 4), 'a'),
        context.df.callActivityWithRetry('sometimes', retryOptions(300, 4), 'b'),
        context.df.createTimer(new Date(context.df.currentUtcDateTime.getTime() + 150)),
      ])) as unknown[];
      const last = (yield context.df.callActivity('sometimes', 'c')) as string;
      return [results[0], results[1], last];
    };
    const driver = driverWith({
      orchestrators: { parallel },
      activities: {
        sometimes: async (input) => {
          const key = String(input);
          if ((failuresLeft[key] ?? 0) > 0) {
            failuresLeft[key] = (failuresLeft[key] ?? 0) - 1;
            throw new Error(`${key} not yet`);
          }
          return `${key} done`;
        },
      },
      clock,
    });

    await driver.startNew('parallel', 'retry-3', null);
    const state = await driver.waitFor('retry-3', WAIT_MS);

    expect(state.output).toEqual(['a done', 'b done', 'c done']);
    await expect(driver.verifyReplay('retry-3')).resolves.toBeUndefined();
  });
  it('keeps sequence ids straight when a retried failure arrives together with another result', async () => {
    const clock = new VirtualClock(START);
    let failures = 0;
    const racing: OrchestrationHandler = function* (context) {
      const retried = context.df.callActivityWithRetry('failsOnce', retryOptions(100, 2), null);
      // Both answer at once: the quick result resumes the orchestrator while the failure waits.
      yield context.df.Task.any([context.df.callActivity('quick', null), retried]);
      const next = (yield context.df.callActivity('quick', 'next')) as string;
      return [next, (yield retried) as string];
    };
    const driver = driverWith({
      orchestrators: { racing },
      activities: {
        quick: async (input) => `quick ${String(input)}`,
        failsOnce: async () => {
          failures += 1;
          if (failures === 1) throw new Error('first attempt fails');
          return 'retried';
        },
      },
      clock,
    });

    await driver.startNew('racing', 'retry-4', null);
    const state = await driver.waitFor('retry-4', WAIT_MS);

    expect(state.output).toEqual(['quick next', 'retried']);
    await expect(driver.verifyReplay('retry-4')).resolves.toBeUndefined();
  });
});
