/** How an answered attempt went, for the limit. */
export type LimitSignal = 'ok' | 'throttled' | 'failed' | 'quota';

/** Answers remembered for the error rate. */
const WINDOW = 20;
/** Failures among them that make the target "failing". */
const FAILING = 4;
/** Answers before latency is judged: the first ones set the baseline. */
const WARM_UP = 10;
/** Weight of one answer in the recent latency. */
const RECENT_WEIGHT = 0.1;
/** How fast the baseline may follow a target that has become slower for good. */
const BASELINE_DRIFT = 0.002;

/**
 * The number of attempts a target gets in flight at once, adapted to what it shows (AIMD),
 * the configured concurrency its ceiling: one more per round of answers while it answers
 * as fast as it can; fewer once its recent latency is more than twice its unloaded latency
 * and 50 ms over it (it queues what it gets), in proportion (twice the unloaded latency
 * over the recent one: 10 % to half); half on throttling (429, 503 with
 * Retry-After) or when 4 of its last 20 answers failed (5xx, no answer). A decrease happens
 * once per round: attempts that started before it belong to the round already answered for.
 * A 429 of a quota the budget paces to (`quota`) is the pacing's business, not the limit's.
 *
 * @example
 * const limit = new AdaptiveLimit(8);
 * const round = limit.round;
 * limit.answered('ok', round, 12);
 */
export class AdaptiveLimit {
  private value: number;
  private epoch = 0;
  private baseline = Number.POSITIVE_INFINITY;
  private recent: number | undefined;
  private samples = 0;
  private readonly outcomes: boolean[] = [];

  constructor(private readonly max: number) {
    this.value = Math.max(1, Math.floor(max));
  }

  /** Attempts allowed in flight now. */
  get current(): number {
    return Math.floor(this.value);
  }

  /** The round an attempt starts in: hand it back with its answer. */
  get round(): number {
    return this.epoch;
  }

  /** The target's latency as the limit judges it: unloaded, and of late (ms). */
  get latency(): { baseline: number; recent: number | undefined } {
    return { baseline: this.baseline, recent: this.recent };
  }

  /** An attempt that started in `round` was answered after `latencyMs` (0 when unknown). */
  answered(signal: LimitSignal, round: number, latencyMs: number): void {
    if (signal === 'quota') return;
    this.outcomes.push(signal === 'failed');
    if (this.outcomes.length > WINDOW) this.outcomes.shift();
    if (signal === 'throttled') return this.decrease(round, 0.5);
    if (signal === 'failed') {
      if (this.outcomes.filter(Boolean).length >= FAILING) this.decrease(round, 0.5);
      return;
    }
    if (this.queues(latencyMs)) {
      const factor = (2 * this.baseline) / (this.recent ?? latencyMs);
      return this.decrease(round, Math.min(0.9, Math.max(0.5, factor)));
    }
    this.value = Math.min(this.max, this.value + 1 / this.value);
  }

  /** Records an answer's latency; whether the target is queueing what it gets. */
  private queues(latencyMs: number): boolean {
    if (!(latencyMs > 0)) return false;
    this.samples += 1;
    this.baseline =
      latencyMs < this.baseline
        ? latencyMs
        : this.baseline + (latencyMs - this.baseline) * BASELINE_DRIFT;
    this.recent =
      this.recent === undefined
        ? latencyMs
        : this.recent + (latencyMs - this.recent) * RECENT_WEIGHT;
    return (
      this.samples >= WARM_UP && this.recent > 2 * this.baseline && this.recent - this.baseline > 50
    );
  }

  private decrease(round: number, factor: number): void {
    if (round !== this.epoch) return;
    this.value = Math.max(1, Math.floor(this.value * factor));
    this.epoch += 1;
  }
}
