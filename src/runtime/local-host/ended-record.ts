import { deserialize, serialize } from 'node:v8';
import { deflateRawSync, inflateRawSync } from 'node:zlib';
import { copy, type DriverInstance, type RecordedAction } from './driver-instance';
import type { HistoryEvent } from './history-events';

/** An instance's history and scheduled actions: what the task hub keeps of its run. */
export interface RunRecord {
  history: HistoryEvent[];
  actions: RecordedAction[];
}

/**
 * Packs an ended instance's history and actions into one compressed buffer, off the V8
 * heap. In Azure the task hub keeps histories in storage, not in the worker; the local
 * driver keeps every instance of the process for status and history queries, and the
 * events' texts (inputs, results) would otherwise stay on the heap, which the collector
 * then lets grow in proportion (issue 15: peak RSS of a bulk run). Nothing runs on an
 * ended instance, so only queries unpack it.
 */
export function packEndedRecord(instance: DriverInstance): void {
  if (instance.packed !== undefined) return;
  const record: RunRecord = { history: instance.history, actions: instance.actions };
  // v8 serialisation keeps what JSON would not (a timer's NaN fire time, undefined inputs).
  instance.packed = deflateRawSync(serialize(record), { level: 1 });
  instance.history = [];
  instance.actions = [];
}

/**
 * The instance's history and actions, the caller's own to keep or change: unpacked when the
 * instance ended, else a deep copy of the live arrays (the instance may run on).
 */
export function runRecordOf(instance: DriverInstance): RunRecord {
  if (instance.packed === undefined) {
    return { history: copy(instance.history), actions: copy(instance.actions) };
  }
  return deserialize(inflateRawSync(instance.packed)) as RunRecord;
}
