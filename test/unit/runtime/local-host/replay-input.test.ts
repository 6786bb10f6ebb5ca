import type { OrchestrationHandler } from 'durable-functions';
import { describe, expect, it } from 'vitest';
import { HISTORY_EVENT } from '../../../../src/runtime/local-host/history-events';
import { WAIT_MS, useDrivers } from '../driver-test-kit';

const driverWith = useDrivers();

/**
 * The executor turns every `Timestamp` string it finds in the trigger into a Date
 * (Utils.parseTimestampsAsDates), the input included. The driver hands it an input without
 * one where that walk does not look: what the orchestrator reads must not change.
 */
describe('OrchestrationDriver: the input as the executor reads it', () => {
  /** Reads its input in each of its three episodes, and what type each Timestamp has. */
  const seen: string[][] = [];
  const reader: OrchestrationHandler = function* (context) {
    const input = context.df.getInput<{ Timestamp?: unknown; nested?: { Timestamp?: unknown } }>();
    const types = [input.Timestamp, input.nested?.Timestamp].map((value) =>
      value instanceof Date ? 'Date' : typeof value,
    );
    seen.push(types);
    yield context.df.callActivity('noop', null);
    yield context.df.callActivity('noop', null);
    return types;
  };

  it('turns a Timestamp string anywhere in the input into a Date, in every episode, as the library does', async () => {
    seen.length = 0;
    const driver = driverWith({
      orchestrators: { reader },
      activities: { noop: async () => null },
    });
    await driver.startNew('reader', 'ts-1', {
      Timestamp: '2025-03-01T08:00:00.000Z',
      nested: { Timestamp: '2025-03-01T09:00:00.000Z' },
    });

    const state = await driver.waitFor('ts-1', WAIT_MS);

    expect(state.output).toEqual(['Date', 'Date']);
    expect(seen).toEqual([
      ['Date', 'Date'],
      ['Date', 'Date'],
      ['Date', 'Date'],
    ]);
    expect(
      driver.history('ts-1').filter((e) => e.EventType === HISTORY_EVENT.OrchestratorStarted),
    ).toHaveLength(3);
    // The status query still shows the input as it was sent.
    expect(state.input).toEqual({
      Timestamp: '2025-03-01T08:00:00.000Z',
      nested: { Timestamp: '2025-03-01T09:00:00.000Z' },
    });
  });

  it('hands an input without a Timestamp over unchanged, in every episode', async () => {
    seen.length = 0;
    const driver = driverWith({
      orchestrators: { reader },
      activities: { noop: async () => null },
    });
    await driver.startNew('reader', 'ts-2', { nested: { at: '2025-03-01T09:00:00.000Z' } });

    const state = await driver.waitFor('ts-2', WAIT_MS);

    expect(state.output).toEqual(['undefined', 'undefined']);
    expect(seen).toHaveLength(3);
    expect(state.input).toEqual({ nested: { at: '2025-03-01T09:00:00.000Z' } });
    await expect(driver.verifyReplay('ts-2')).resolves.toBeUndefined();
  });
});
