import type { InstanceSaver } from './instance-saver';

/**
 * Holds an episode's work until the episode's save is written. Work started before that
 * could outlive the save: after a kill, the episode would run again at a new time, with
 * other inputs (journal entries stamped with that time, for one), beside what the first
 * run's work wrote. Written is enough, durable is not needed: the histories are kept in the
 * same Azurite as everything activities write there, and Azurite puts all its tables on disk
 * in one snapshot, so a snapshot that holds anything the work wrote holds the save made
 * before it; a target write that claims a write intent flushes it first
 * (DurableWriteIntents), which puts the save on disk too. Waiting for a flush per episode
 * would serialise the whole database each time (over 100 ms at a few MB, growing with it).
 *
 * Activities must be idempotent all the same (Durable runs them at least once): this only
 * keeps the local host from adding re-runs of its own. A save that fails lets the work
 * start: the instance is no longer saved, and holding its work would only stall it.
 *
 * @example
 * gate.after(saver.save(instance), () => start(work));
 * if (gate.holding) return; // not idle: held work will start
 */
export class SaveGate {
  private readonly pending = new Set<Promise<void>>();

  constructor(private readonly saver: InstanceSaver) {}

  /** Some work waits for a save: the driver is neither idle nor stalled. */
  get holding(): boolean {
    return this.pending.size > 0;
  }

  /** Runs `start` once `saved` (the instance's latest save) is written, or failed. */
  after(saved: Promise<void>, start: () => void): void {
    if (!this.saver.enabled) {
      start();
      return;
    }
    const kept = saved.then(start, start).finally(() => this.pending.delete(kept));
    this.pending.add(kept);
  }

  /** Resolves when no work is held any more. */
  async settled(): Promise<void> {
    await Promise.all([...this.pending]);
  }
}
