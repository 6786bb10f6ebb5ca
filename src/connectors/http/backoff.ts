export interface BackoffPolicy {
  baseDelayMs: number;
  maxDelayMs: number;
}

/**
 * Exponential backoff with full jitter: a random wait in [0, min(max, base * 2^attempt)].
 * `attempt` counts from 0 for the first retry.
 *
 * @example
 * backoffDelay(2, { baseDelayMs: 100, maxDelayMs: 5000 }, () => 0.5); // 200
 */
export function backoffDelay(attempt: number, policy: BackoffPolicy, random: () => number): number {
  const ceiling = Math.min(policy.maxDelayMs, policy.baseDelayMs * 2 ** attempt);
  return Math.floor(random() * ceiling);
}

/**
 * Backoff for a throttled call that was not told how long to wait (no `Retry-After`, or 0):
 * exponential with "equal jitter", a random wait in [ceiling / 2, ceiling]. Unlike full
 * jitter it never draws 0, so the waits of a call add up to its throttle budget and a
 * target that keeps answering 429 is not hammered.
 *
 * @example
 * throttleBackoffDelay(2, { baseDelayMs: 100, maxDelayMs: 5000 }, () => 0); // 200
 */
export function throttleBackoffDelay(
  attempt: number,
  policy: BackoffPolicy,
  random: () => number,
): number {
  const ceiling = Math.min(policy.maxDelayMs, policy.baseDelayMs * 2 ** attempt);
  return Math.floor(ceiling / 2 + (random() * ceiling) / 2);
}
