import type { TokenBucket } from './token-bucket';

/** What one attempt spends of a target's quota, by bucket name (`writes: 1, units: 2`). */
export type QuotaCost = Readonly<Record<string, number>>;

/** An answer as the quota sees it. */
export interface QuotaAnswer {
  status: number;
  /** Lower-cased names. */
  headers: Record<string, string>;
  /** The wait its `Retry-After` asks for, as read once where the answer came in (parseRetryAfter). */
  retryAfterMs?: number;
}

/**
 * A target's quota as the service paces to it (graph-behaviour.md: Entra ID's limits per
 * app and tenant): the buckets every attempt spends from, shared by every connector of the
 * worker that calls the target as the same app, and what the target's answers tell of them.
 */
export interface QuotaBudget {
  readonly buckets: ReadonlyMap<string, TokenBucket>;
  /**
   * Corrects the buckets from an answer to an attempt that spent `cost` (429s, usage
   * headers). True when the answer is a 429 of the quota itself, which the buckets now
   * account for: callers then wait in them, not behind a pause of every call.
   */
  learn(answer: QuotaAnswer, cost: QuotaCost, now: number): boolean;
}

/** One attempt's spending: how long it waits, and what it tells the buckets after. */
export interface Spending {
  waitMs: number;
  /** The attempt is sent now. */
  sent(now: number): void;
  /** The attempt was answered, or failed. */
  settle(now: number): void;
}

/**
 * Spends `cost` from the budget's buckets for one attempt: the milliseconds until the
 * slowest of them has it.
 *
 * @example
 * const spent = spend(budget, { writes: 3, units: 3 }, Date.now());
 * await sleep(spent.waitMs); spent.sent(Date.now()); ...; spent.settle(Date.now());
 */
export function spend(budget: QuotaBudget, cost: QuotaCost, now: number): Spending {
  const taken: [TokenBucket, number][] = [];
  let waitMs = 0;
  for (const [name, units] of Object.entries(cost)) {
    const bucket = budget.buckets.get(name);
    if (bucket === undefined || units <= 0) continue;
    waitMs = Math.max(waitMs, bucket.take(units, now));
    taken.push([bucket, units]);
  }
  let sent = false;
  return {
    waitMs,
    sent: (at) => {
      if (sent) return;
      sent = true;
      for (const [bucket, units] of taken) bucket.sent(units, at);
    },
    settle: (at) => {
      if (!sent) return;
      for (const [bucket, units] of taken.splice(0)) bucket.settle(units, at);
    },
  };
}

/**
 * The share (0 to 1) of the budget the pacing has used: that of its fullest bucket, calls
 * waiting in it counted as used.
 *
 * @example
 * quotaUtilization(budget, Date.now()); // 0.25: a quarter of the writes window is spent
 */
export function quotaUtilization(budget: QuotaBudget, now: number): number {
  let used = 0;
  for (const bucket of budget.buckets.values()) {
    used = Math.max(used, (bucket.capacity - bucket.levelAt(now)) / bucket.capacity);
  }
  return Math.min(1, Math.max(0, used));
}
