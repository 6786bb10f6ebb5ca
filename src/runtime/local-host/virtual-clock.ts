/** A virtual clock as the replay driver sees it: shared with the other parts of a test. */
export interface VirtualClockPort {
  /** Milliseconds since the epoch, virtual. */
  now(): number;
  /** Moves the clock forward to `ms` (never backwards). */
  advanceTo(ms: number): void;
  /** Optional: called after every advance, so that due timers fire when someone else advances. */
  onAdvance?(listener: (now: number) => void): () => void;
}

/** The driver's clock: the real one, real time sped up (timers on setTimeout), or a virtual one. */
export type DriverClock = 'real' | FlowingClock | VirtualClockPort;

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

/** A clock whose time passes by itself: the real one, or real time sped up (tests, benchmarks). */
export interface FlowingClock {
  readonly flowing: true;
  /** Milliseconds since the epoch, on this clock. */
  now(): number;
  /** Real milliseconds until `ms` of this clock have passed. */
  realMs(ms: number): number;
  /** Waits `ms` of this clock. */
  sleep(ms: number): Promise<void>;
}

/** The real clock. */
export const REAL_CLOCK: FlowingClock = {
  flowing: true,
  now: () => Date.now(),
  realMs: (ms) => ms,
  sleep: (ms) => new Promise((resolve) => setTimeout(resolve, Math.max(0, ms))),
};

/**
 * Real time sped up `scale` times: a fault suite or a benchmark runs the same shape of
 * waits (Retry-After, replication lag, the 30 s re-read window) in a fraction of the time,
 * with every part (driver, sandboxes, transports) on this one clock.
 *
 * @example
 * const clock = new ScaledClock(20); // 30 s of this clock pass in 1.5 s
 */
export class ScaledClock implements FlowingClock {
  readonly flowing = true as const;
  private readonly realStart = performance.now();

  constructor(
    readonly scale: number,
    private readonly startMs: number = Date.now(),
  ) {
    if (!(scale > 0)) throw new RangeError(`ScaledClock: scale ${scale} must be > 0`);
  }

  now(): number {
    return Math.floor(this.startMs + (performance.now() - this.realStart) * this.scale);
  }

  realMs(ms: number): number {
    return Math.max(0, ms / this.scale);
  }

  sleep(ms: number): Promise<void> {
    return new Promise((resolve) => setTimeout(resolve, this.realMs(ms)));
  }
}

/** The flowing clock a driver clock stands for; undefined for a virtual clock. */
export function flowingClock(clock: DriverClock): FlowingClock | undefined {
  if (clock === 'real') return REAL_CLOCK;
  return 'flowing' in clock ? clock : undefined;
}

/** The time of any driver clock. */
export function clockNow(clock: DriverClock): number {
  return clock === 'real' ? Date.now() : clock.now();
}
