/** A virtual clock as the replay driver sees it: shared with the other parts of a test. */
export interface VirtualClockPort {
  /** Milliseconds since the epoch, virtual. */
  now(): number;
  /** Moves the clock forward to `ms` (never backwards). */
  advanceTo(ms: number): void;
  /** Optional: called after every advance, so that due timers fire when someone else advances. */
  onAdvance?(listener: (now: number) => void): () => void;
}

/** The driver's clock: the real one (timers on setTimeout) or a virtual one. */
export type DriverClock = 'real' | VirtualClockPort;

/**
 * A virtual clock for tests and demos: time moves only when advanced, by the test or by
 * the driver's auto-advance to its next durable timer.
 *
 * @example
 * const clock = new VirtualClock(Date.parse('2025-01-01T00:00:00Z'));
 * clock.advanceBy(30_000);
 */
export class VirtualClock implements VirtualClockPort {
  private current: number;
  private readonly listeners = new Set<(now: number) => void>();

  constructor(startMs: number = Date.now()) {
    this.current = startMs;
  }

  now(): number {
    return this.current;
  }

  /** Moves to `ms` when that is later than now; earlier values are ignored (time is monotonic). */
  advanceTo(ms: number): void {
    if (!Number.isFinite(ms)) throw new RangeError(`advanceTo: ${ms} is not a time`);
    if (ms <= this.current) return;
    this.current = ms;
    for (const listener of [...this.listeners]) listener(this.current);
  }

  /** Moves forward by `ms` milliseconds (not negative). */
  advanceBy(ms: number): void {
    if (!(ms >= 0)) throw new RangeError(`advanceBy: ${ms} is not a duration`);
    this.advanceTo(this.current + ms);
  }

  /** Registers a listener called after each advance; returns the unsubscribe function. */
  onAdvance(listener: (now: number) => void): () => void {
    this.listeners.add(listener);
    return () => {
      this.listeners.delete(listener);
    };
  }
}
