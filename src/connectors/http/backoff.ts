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
