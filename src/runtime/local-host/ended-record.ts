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
 * How many ended instances are packed together. One buffer for several: each compression
 * has a fixed cost (a zlib stream and its state) about as high as compressing one record,
 * and records of one orchestration share most of their text, so together they also pack
 * smaller. Reading one back inflates its whole batch, which only queries do.
 */
export const PACK_BATCH = 16;

/**
 * Packs ended instances' histories and actions into compressed buffers, off the V8 heap. In
 * Azure the task hub keeps histories in storage, not in the worker; the local driver keeps
 * every instance of the process for status and history queries, and the events' texts
 * (inputs, results) would otherwise stay on the heap, which the collector then lets grow in
 * proportion (issue 15: peak RSS of a bulk run). Nothing runs on an ended instance, so only
 * queries unpack it. Instances are packed `PACK_BATCH` at a time: until its batch is full,
 * an ended instance keeps its record as it is.
 */
export class EndedRecords {
  private waiting: DriverInstance[] = [];

  /** Packs the instance's record with those of the instances that ended before it. */
  pack(instance: DriverInstance): void {
    if (instance.packed !== undefined || this.waiting.includes(instance)) return;
    this.waiting.push(instance);
    if (this.waiting.length >= PACK_BATCH) this.flush();
  }

  /** Packs the instances waiting for their batch to fill. */
  flush(): void {
    const batch = this.waiting;
    if (batch.length === 0) return;
    this.waiting = [];
    // v8 serialisation keeps what JSON would not (a timer's NaN fire time, undefined inputs).
    // Each record on its own, so that reading one back deserialises only that one.
    const parts = batch.map((instance) =>
      serialize({ history: instance.history, actions: instance.actions } satisfies RunRecord),
    );
    const buffer = deflateRawSync(Buffer.concat(parts), { level: 1 });
    let start = 0;
    batch.forEach((instance, index) => {
      const end = start + (parts[index] as Buffer).length;
      instance.packed = { buffer, start, end };
      instance.history = [];
      instance.actions = [];
      start = end;
    });
  }
}

/**
 * The instance's history and actions, the caller's own to keep or change: unpacked when the
 * instance ended and was packed, else a deep copy of the live arrays (the instance may run on).
 */
export function runRecordOf(instance: DriverInstance): RunRecord {
  const { packed } = instance;
  if (packed === undefined) {
    return { history: copy(instance.history), actions: copy(instance.actions) };
  }
  return deserialize(inflated(packed.buffer).subarray(packed.start, packed.end)) as RunRecord;
}

/** The batch inflated last: queries often read the instances of one batch one after another. */
let lastInflated: { buffer: Buffer; data: Buffer } | undefined;

function inflated(buffer: Buffer): Buffer {
  if (lastInflated?.buffer !== buffer) lastInflated = { buffer, data: inflateRawSync(buffer) };
  return lastInflated.data;
}
