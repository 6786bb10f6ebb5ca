import type { TruthEvent } from './truth-event.js';

/** Keeps a long-running local host bounded; a fault run commits a few thousand changes. */
const MAX_EVENTS = 200_000;

/**
 * The changes a sandbox committed through its API, in commit order. Seeding records
 * nothing; writes that change nothing record nothing.
 */
export class TruthLog {
  private readonly events: TruthEvent[] = [];
  private seq = 0;

  /** Appends a committed change, numbering it after every change recorded before. */
  record(event: Omit<TruthEvent, 'seq'>): void {
    this.seq += 1;
    this.events.push(Object.freeze({ seq: this.seq, ...event }));
    if (this.events.length > MAX_EVENTS) this.events.splice(0, MAX_EVENTS / 2);
  }

  /** A copy of the events, oldest first. */
  list(): readonly TruthEvent[] {
    return [...this.events];
  }

  /** Forgets the events; sequence numbers go on from where they were. */
  clear(): void {
    this.events.length = 0;
  }
}
