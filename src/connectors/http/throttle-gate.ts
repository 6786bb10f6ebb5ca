import { AdaptiveLimit, type LimitSignal } from './adaptive-limit';
import { spend, type QuotaBudget, type QuotaCost } from './quota-budget';

/**
 * How an attempt ended, for the gate: `throttled` is a 429 (or a 503 with Retry-After);
 * `failed` a 5xx or no answer; `quota` a 429 of the target's quota that the budget
 * accounts for (the pacing's, not the concurrency's business).
 */
export type AttemptSignal = LimitSignal;

export interface ThrottleGateOptions {
  /** The configured concurrency: the most attempts in flight at once. */
  maxConcurrency: number;
  now: () => number;
  sleep: (ms: number) => Promise<void>;
  /** The target's quota, where it has one the service knows: attempts are paced to it. */
  budget?: QuotaBudget;
  /** Real time in ms for latencies (default `performance.now`): what the target takes, unscaled. */
  measure?: () => number;
}

/** One attempt's way through the gate. */
export interface GatePass {
  /** Milliseconds this attempt waited for a Retry-After pause (a wait for a free slot not counted). */
  pausedMs: number;
  /** Milliseconds this attempt waited for its share of the target's quota (pacing). */
  pacedMs: number;
  /** Frees the slot and says how the attempt ended; only the first call counts. */
  leave(signal: AttemptSignal): void;
}

export interface ThrottleGateStats {
  /** Attempts allowed in flight now: between 1 and the configured concurrency. */
  limit: number;
  inFlight: number;
  queued: number;
  /** Epoch milliseconds (on the gate's clock) until which no attempt starts; 0 when never paused. */
  pausedUntil: number;
  /** Milliseconds all attempts together spent waiting for pauses to end. */
  throttleWaitMs: number;
  /** Milliseconds all attempts together waited for their share of the quota. */
  pacedMs: number;
  /** The target's latency as the limit judges it: unloaded, and of late (ms). */
  latency: { baseline: number; recent: number | undefined };
}

/**
 * One gate per target, shared by every request of a worker (DESIGN invariant 8): every
 * attempt of every call passes through it. A `Retry-After` pauses every caller at once, the
 * number of attempts in flight adapts to the target's latency, errors and throttling
 * ({@link AdaptiveLimit}), and attempts are paced to the target's quota where it has one, so
 * a storm or a slow target slows the whole worker down instead of each request bouncing off
 * the target on its own.
 *
 * @example
 * const gate = new ThrottleGate({ maxConcurrency: 8, now: Date.now, sleep });
 * const pass = await gate.enter();
 * try { ... } finally { pass.leave('ok'); }
 */
export class ThrottleGate {
  private readonly limit: AdaptiveLimit;
  private inFlight = 0;
  private readonly waiting: (() => void)[] = [];
  private pausedUntil = 0;
  private throttleWaitMs = 0;
  private pacedMs = 0;

  constructor(private readonly options: ThrottleGateOptions) {
    this.limit = new AdaptiveLimit(Math.max(1, Math.floor(options.maxConcurrency)));
  }

  /**
   * Waits for a free slot (in order of arrival), then for its share of the target's quota
   * (`cost`: what this attempt spends of it, where the target has a quota), then for any
   * pause to end. The share is taken with the slot in hand, so that the attempt is sent when
   * its share is there: spent earlier, attempts would reach the target bunched. Every
   * attempt must `leave` the pass it gets, or its slot stays taken.
   */
  async enter(cost?: QuotaCost): Promise<GatePass> {
    if (this.waiting.length === 0 && this.inFlight < this.limit.current) this.inFlight += 1;
    // A slot freed later is handed over by `wake` (inFlight already counts it).
    else await new Promise<void>((resolve) => this.waiting.push(resolve));
    const { budget } = this.options;
    const spent =
      budget === undefined || cost === undefined
        ? undefined
        : spend(budget, cost, this.options.now());
    const pacedMs = spent?.waitMs ?? 0;
    if (pacedMs > 0) {
      this.pacedMs += pacedMs;
      await this.options.sleep(pacedMs);
    }
    let pausedMs = 0;
    // Again after waking: the pause may have been lengthened meanwhile, or a timer fired early.
    for (let at = this.options.now(); this.pausedUntil > at;) {
      await this.options.sleep(this.pausedUntil - at);
      const after = this.options.now();
      // A clock that does not move (a test's) must not spin here.
      if (after <= at) break;
      pausedMs += after - at;
      at = after;
    }
    this.throttleWaitMs += pausedMs;
    spent?.sent(this.options.now());
    const round = this.limit.round;
    const measure = this.options.measure ?? (() => performance.now());
    const sentAt = measure();
    let left = false;
    return {
      pausedMs,
      pacedMs,
      leave: (signal) => {
        if (left) return;
        left = true;
        spent?.settle(this.options.now());
        this.inFlight -= 1;
        this.limit.answered(signal, round, measure() - sentAt);
        this.wake();
      },
    };
  }

  /** Every new attempt waits until `ms` from now (the longest pause wins). */
  pause(ms: number): void {
    this.pausedUntil = Math.max(this.pausedUntil, this.options.now() + Math.max(0, ms));
  }

  /** Milliseconds until the current pause ends (0 when not paused). */
  get pausedForMs(): number {
    return Math.max(0, this.pausedUntil - this.options.now());
  }

  get stats(): ThrottleGateStats {
    return {
      limit: this.limit.current,
      inFlight: this.inFlight,
      queued: this.waiting.length,
      pausedUntil: this.pausedUntil,
      throttleWaitMs: this.throttleWaitMs,
      pacedMs: this.pacedMs,
      latency: this.limit.latency,
    };
  }

  private wake(): void {
    while (this.waiting.length > 0 && this.inFlight < this.limit.current) {
      this.inFlight += 1;
      this.waiting.shift()!();
    }
  }
}
