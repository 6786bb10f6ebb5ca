import { describe, expect, it } from 'vitest';
import {
  newDriverInstance,
  type DriverInstance,
} from '../../../../src/runtime/local-host/driver-instance';
import {
  EndedRecords,
  PACK_BATCH,
  runRecordOf,
} from '../../../../src/runtime/local-host/ended-record';
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

/** Packs the instance with others until its batch is full: it is then packed. */
function packFull(instance: DriverInstance, ended = new EndedRecords()): DriverInstance[] {
  const others = Array.from({ length: PACK_BATCH - 1 }, () => ranInstance());
  for (const other of others) ended.pack(other);
  ended.pack(instance);
  return others;
}

describe('EndedRecords', () => {
  it('moves the history and actions off the instance into a buffer that reads back whole', () => {
    const instance = ranInstance();
    const { history, actions } = structuredClone({
      history: instance.history,
      actions: instance.actions,
    });
    packFull(instance);
    expect(instance.packed?.buffer).toBeInstanceOf(Buffer);
    expect(instance.history).toEqual([]);
    expect(instance.actions).toEqual([]);
    const record = runRecordOf(instance);
    expect(record.history).toEqual(history);
    // What JSON would lose: an undefined input stays a key, a NaN fire time stays NaN.
    expect(record.actions).toEqual(actions);
    expect('input' in record.actions[0]!.action).toBe(true);
    expect((record.actions[1]!.action as { fireAt: number }).fireAt).toBeNaN();
  });

  it('packs a batch into one buffer, each instance reading back its own record', () => {
    const instance = ranInstance();
    instance.history.push(historyEvent.orchestratorCompleted(AT + 2));
    const others = packFull(instance);
    expect(new Set([instance, ...others].map((one) => one.packed?.buffer)).size).toBe(1);
    expect(runRecordOf(instance).history).toHaveLength(5);
    for (const other of others) expect(runRecordOf(other).history).toHaveLength(4);
  });

  it('keeps the record of an instance whose batch is not full as it is, until flushed', () => {
    const ended = new EndedRecords();
    const instance = ranInstance();
    ended.pack(instance);
    expect(instance.packed).toBeUndefined();
    expect(runRecordOf(instance).history).toHaveLength(4);
    ended.flush();
    expect(instance.history).toEqual([]);
    expect(runRecordOf(instance).history).toHaveLength(4);
  });

  it('packs an instance once: packing it again keeps what it holds', () => {
    const ended = new EndedRecords();
    const instance = ranInstance();
    ended.pack(instance);
    ended.pack(instance);
    ended.flush();
    const packed = instance.packed;
    ended.pack(instance);
    ended.flush();
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
    if (packed) packFull(instance);
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
