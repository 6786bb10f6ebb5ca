/**
 * A value whose writes are committed at once but reach readers only after a replication
 * delay (graph-behaviour.md: Eventual consistency). Writers see `committed`; readers see
 * `visibleAt(now, delay)`: the latest write at least `delay` ms old, or the seeded value.
 */
export class ReplicatedValue<T> {
  private seeded: T;
  private readonly writes: { at: number; value: T }[] = [];

  constructor(initial: T) {
    this.seeded = initial;
  }

  get committed(): T {
    const last = this.writes[this.writes.length - 1];
    return last === undefined ? this.seeded : last.value;
  }

  /** A write through the API: committed now, visible after the delay. */
  write(value: T, at: number): void {
    this.writes.push({ at, value });
  }

  /** Seeding: visible at once, forgetting pending writes. */
  reset(value: T): void {
    this.seeded = value;
    this.writes.length = 0;
  }

  /**
   * Whether a reader at `now` with this delay sees a state other than the committed one
   * (graph-behaviour.md: a read can show a state older than the truth).
   */
  isStaleAt(now: number, delayMs: number, same: (a: T, b: T) => boolean = Object.is): boolean {
    const visible = this.visibleAt(now, delayMs);
    const committed = this.committed;
    return !Object.is(visible, committed) && !same(visible, committed);
  }

  visibleAt(now: number, delayMs: number): T {
    for (let i = this.writes.length - 1; i >= 0; i -= 1) {
      const write = this.writes[i]!;
      if (write.at + delayMs <= now) return write.value;
    }
    return this.seeded;
  }
}
