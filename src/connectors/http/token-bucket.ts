/**
 * A target's quota as a token bucket (graph-behaviour.md: Entra ID throttles by token
 * bucket): `capacity` units, refilled at `capacity` per `windowMs`. A take never fails: it
 * spends the units at once and answers how long the caller waits before they are there, so
 * callers queue in time (the level below zero is what is promised already) and ride just
 * under the quota instead of bouncing off it. What the target says corrects the level.
 *
 * @example
 * const writes = new TokenBucket({ capacity: 3000, windowMs: 150_000 }, Date.now());
 * await sleep(writes.take(3, Date.now()));
 */
export class TokenBucket {
  readonly capacity: number;
  /** Units per millisecond. */
  readonly rate: number;
  private level: number;
  private at: number;
  /**
   * Units of calls sent and not answered yet: the target charges them only when they
   * arrive, so until then the bucket does not refill past what it holds once they are.
   */
  private inFlight = 0;
  /** Units taken by calls still waiting to be sent: the level counts them already. */
  private pending = 0;

  constructor(quota: { capacity: number; windowMs: number }, now: number) {
    this.capacity = quota.capacity;
    this.rate = quota.capacity / quota.windowMs;
    this.level = quota.capacity;
    this.at = now;
  }

  /**
   * Spends `units` on a call: the milliseconds until they are there (0: at once). Say when
   * the call is `sent` and when it is answered (`settle`).
   */
  take(units: number, now: number): number {
    this.refill(now);
    this.level -= units;
    this.pending += units;
    return this.level >= 0 ? 0 : -this.level / this.rate;
  }

  /** A call that spent `units` is on its way to the target. */
  sent(units: number, now: number): void {
    this.refill(now);
    this.pending = Math.max(0, this.pending - units);
    this.inFlight += units;
  }

  /** A call that spent `units` was answered (or failed): the target has charged them. */
  settle(units: number, now: number): void {
    this.refill(now);
    this.inFlight = Math.max(0, this.inFlight - units);
  }

  /**
   * The target throttled: it has nothing until `untilMs` (its Retry-After), and the calls
   * waiting here come after that.
   */
  emptyUntil(untilMs: number, now: number): void {
    this.atMost(-Math.max(0, untilMs - now) * this.rate, now);
  }

  /** The target says this share of its quota is used (others spend it too): never more left here. */
  used(share: number, now: number): void {
    this.atMost(this.capacity * (1 - share), now);
  }

  /** The units a call was charged beyond (negative: below) what was taken for it. */
  adjust(units: number, now: number): void {
    this.refill(now);
    this.level = Math.min(this.capacity, this.level - units);
  }

  /** Units left now (negative: promised to callers still waiting). */
  levelAt(now: number): number {
    this.refill(now);
    return this.level;
  }

  /** What the target holds is at most `units`: the level, which counts the waiting calls, follows. */
  private atMost(units: number, now: number): void {
    this.refill(now);
    this.level = Math.min(this.level, units - this.pending);
  }

  private refill(now: number): void {
    if (now > this.at) {
      const ceiling = Math.max(this.level, this.capacity - this.inFlight);
      this.level = Math.min(ceiling, this.level + (now - this.at) * this.rate);
      this.at = now;
    }
  }
}
