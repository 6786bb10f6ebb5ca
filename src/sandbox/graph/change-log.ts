/**
 * An ordered history of directory changes for delta queries (graph-behaviour.md: Batching
 * and incremental reads): every entry gets the next position, so a delta token is a
 * position and a round is the range between two. Entries carry the time they were
 * committed: a delta round, like every read, is served by a replica that shows only what
 * was committed long enough ago (`visiblePosition`), and what it does not show yet comes in
 * the next round.
 */
export class ChangeLog<E> {
  private readonly entries: E[] = [];
  /** The latest commit time of the entries up to each position: never decreases. */
  private readonly latestAt: number[] = [];

  /** The position of the latest change (0 before any). */
  get position(): number {
    return this.entries.length;
  }

  /** Appends a change committed at `at` (seeding: -Infinity, visible to every read). */
  record(entry: E, at: number): void {
    const before = this.latestAt[this.latestAt.length - 1] ?? Number.NEGATIVE_INFINITY;
    this.entries.push(entry);
    this.latestAt.push(Math.max(before, at));
  }

  /**
   * The last position a replica serving changes committed up to `asOf` has: every entry up to
   * it was committed by then (a seed after a lagging write waits for that write).
   */
  visiblePosition(asOf: number): number {
    let low = 0;
    let high = this.latestAt.length;
    while (low < high) {
      const middle = (low + high) >>> 1;
      if (this.latestAt[middle]! <= asOf) low = middle + 1;
      else high = middle;
    }
    return low;
  }

  /** The entries after `from` up to and including `to`, in order. */
  range(from: number, to: number): readonly E[] {
    return this.entries.slice(Math.max(0, from), Math.max(from, to));
  }

  /**
   * The entries after `from` up to `to` folded into one change per object (`keyOf`), in the
   * order of each object's last change, as a delta round lists them.
   */
  fold<F extends { lastSeq: number }>(
    from: number,
    to: number,
    keyOf: (entry: E) => string,
    start: (key: string) => F,
    apply: (change: F, entry: E) => void,
  ): F[] {
    const folded = new Map<string, F>();
    let seq = Math.max(0, from);
    for (const entry of this.range(from, to)) {
      seq += 1;
      const key = keyOf(entry);
      let change = folded.get(key);
      if (change === undefined) {
        change = start(key);
        folded.set(key, change);
      }
      change.lastSeq = seq;
      apply(change, entry);
    }
    return [...folded.values()].sort((a, b) => a.lastSeq - b.lastSeq);
  }
}
