/**
 * Waits between re-reads (and patient re-writes): the first after 1 s, then doubling up to
 * every 5 s (spec: Membership write procedure, step 5: up to 30 s in total).
 *
 * @example
 * [0, 1, 2, 3, 4].map(nextRereadDelay); // [1000, 2000, 4000, 5000, 5000]
 */
export function nextRereadDelay(round: number): number {
  return Math.min(5_000, 1_000 * 2 ** round);
}

/**
 * The wait before the next try of a loop that may run until `deadlineMs`: the re-read
 * delay of this round, cut to end at the deadline; 0 or less when the time is up.
 *
 * @example
 * delayWithin(3, 20_000, 30_000); // 5000
 * delayWithin(7, 28_000, 30_000); // 2000
 */
export function delayWithin(round: number, nowMs: number, deadlineMs: number): number {
  return Math.min(nextRereadDelay(round), deadlineMs - nowMs);
}

/**
 * Whether a "not found" about an account may be replication lag: the service created it
 * less than the visibility window ago (graph-behaviour.md: a new object may 404 for a while).
 *
 * @example
 * mayStillBeReplicating(Date.parse('2026-01-01T00:00:00Z'), Date.parse('2026-01-01T00:00:10Z'), 30_000); // true
 */
export function mayStillBeReplicating(
  createdAtMs: number | undefined,
  nowMs: number,
  windowMs: number,
): boolean {
  return createdAtMs !== undefined && nowMs - createdAtMs < windowMs;
}
