export type AttemptSignal = 'ok' | 'throttled' | 'failed';

export interface ThrottleGateOptions {
  /** The configured concurrency: the most attempts in flight at once. */
  maxConcurrency: number;
  now: () => number;
  sleep: (ms: number) => Promise<void>;
}

export interface ThrottleGateStats {
  limit: number;
  inFlight: number;
  queued: number;
  pausedUntil: number;
  /** Milliseconds callers spent waiting for a pause to end. */
  pausedWaitMs: number;
}

/**
 * One gate per target, shared by every request of a worker (DESIGN invariant 8): every
 * attempt of every call passes through it. A `Retry-After` pauses every caller at once, and
 * the number of attempts in flight adapts (additive increase, multiplicative decrease on
 * throttling), so a storm slows the whole worker down instead of each request bouncing off
 * the target on its own.
 *
 * @example
 * const gate = new ThrottleGate({ maxConcurrency: 8, now: Date.now, sleep });
 * const leave = await gate.enter();
 * try { ... } finally { leave('ok'); }
 */
export class ThrottleGate {
  private limit: number;
  private inFlight = 0;
  private readonly waiting: (() => void)[] = [];
  private pausedUntil = 0;
  private pausedWaitMs = 0;
  /** Attempts started since the last decrease: one decrease per round of attempts. */
  private startedSinceDecrease = Number.POSITIVE_INFINITY;

  constructor(private readonly options: ThrottleGateOptions) {
    this.limit = Math.max(1, options.maxConcurrency);
  }

  /** Waits for a free slot (in order of arrival) and for a pause to end; returns the function that frees the slot. */
  async enter(): Promise<(signal: AttemptSignal) => void> {
    if (this.waiting.length === 0 && this.inFlight < Math.floor(this.limit)) this.inFlight += 1;
    // A slot freed later is handed over by `wake` (inFlight already counts it).
    else await new Promise<void>((resolve) => this.waiting.push(resolve));
    for (let wait = this.pausedUntil - this.options.now(); wait > 0;) {
      this.pausedWaitMs += wait;
      await this.options.sleep(wait);
      wait = this.pausedUntil - this.options.now();
    }
    this.startedSinceDecrease += 1;
    let left = false;
    return (signal) => {
      if (left) return;
      left = true;
      this.inFlight -= 1;
      this.adapt(signal);
      this.wake();
    };
  }

  /** Every caller waits until `ms` from now (the longest pause wins). */
  pause(ms: number): void {
    this.pausedUntil = Math.max(this.pausedUntil, this.options.now() + Math.max(0, ms));
  }

  get stats(): ThrottleGateStats {
    return {
      limit: Math.floor(this.limit),
      inFlight: this.inFlight,
      queued: this.waiting.length,
      pausedUntil: this.pausedUntil,
      pausedWaitMs: this.pausedWaitMs,
    };
  }

  private adapt(signal: AttemptSignal): void {
    const max = Math.max(1, this.options.maxConcurrency);
    if (signal === 'ok') {
      this.limit = Math.min(max, this.limit + 1 / this.limit);
      return;
    }
    if (signal !== 'throttled') return;
    // Answers to attempts started before the last decrease belong to the same burst.
    if (this.startedSinceDecrease < Math.floor(this.limit)) return;
    this.limit = Math.max(1, Math.floor(this.limit / 2));
    this.startedSinceDecrease = 0;
  }

  private wake(): void {
    while (this.waiting.length > 0 && this.inFlight < Math.floor(this.limit)) {
      this.inFlight += 1;
      this.waiting.shift()!();
    }
  }
}
