import { describe, expect, it } from 'vitest';
import {
  newDriverInstance,
  type DriverInstance,
} from '../../../../src/runtime/local-host/driver-instance';
import { packEndedRecord, runRecordOf } from '../../../../src/runtime/local-host/ended-record';
import { historyEvent } from '../../../../src/runtime/local-host/history-events';

const AT = Date.UTC(2026, 10, 24, 9, 0);

/** An instance that scheduled an activity (input undefined) and a timer whose fire time is NaN. */
function ranInstance(): DriverInstance {
  const instance = newDriverInstance('i-1', 'provisioningRequest', '{"requestId":"r1"}', AT);
  instance.history = [
    historyEvent.orchestratorStarted(AT),
    historyEvent.executionStarted(AT, 'provisioningRequest', '{"requestId":"r1"}'),
    historyEvent.taskScheduled(AT, 0, 'recordStep', undefined),
    historyEvent.taskCompleted(AT + 1, 0, '{"ok":true}'),
  ];
  instance.actions = [
    { action: { kind: 'activity', name: 'recordStep', input: undefined }, episode: 0, eventId: 0 },
    {
      action: { kind: 'timer', fireAt: Number.NaN, canceled: true },
      episode: 1,
      eventId: 1,
    },
  ];
  return instance;
}

describe('packEndedRecord', () => {
  it('moves the history and actions off the instance into one buffer that reads back whole', () => {
    const instance = ranInstance();
    const { history, actions } = structuredClone({
      history: instance.history,
      actions: instance.actions,
    });
    packEndedRecord(instance);
    expect(instance.packed).toBeInstanceOf(Buffer);
    expect(instance.history).toEqual([]);
    expect(instance.actions).toEqual([]);
    const record = runRecordOf(instance);
    expect(record.history).toEqual(history);
    // What JSON would lose: an undefined input stays a key, a NaN fire time stays NaN.
    expect(record.actions).toEqual(actions);
    expect('input' in record.actions[0]!.action).toBe(true);
    expect((record.actions[1]!.action as { fireAt: number }).fireAt).toBeNaN();
  });

  it('packs an instance once: packing it again keeps what it holds', () => {
    const instance = ranInstance();
    packEndedRecord(instance);
    const packed = instance.packed;
    packEndedRecord(instance);
    expect(instance.packed).toBe(packed);
    expect(runRecordOf(instance).history).toHaveLength(4);
  });
});

describe('runRecordOf', () => {
  it.each([
    ['a running instance', false],
    ['an ended, packed instance', true],
  ])('gives the caller of %s a record of its own to change', (_which, packed) => {
    const instance = ranInstance();
    if (packed) packEndedRecord(instance);
    const first = runRecordOf(instance);
    first.history.pop();
    (first.history[0] as { IsPlayed: boolean }).IsPlayed = true;
    first.actions.length = 0;
    const second = runRecordOf(instance);
    expect(second.history).toHaveLength(4);
    expect(second.history[0]!.IsPlayed).toBe(false);
    expect(second.actions).toHaveLength(2);
    if (!packed) expect(instance.history).toEqual(second.history);
  });
});
