import { backoffDelay, throttleBackoffDelay, type BackoffPolicy } from './backoff';

/** What one call has met so far, across its attempts. */
export interface CallProgress {
  /**
   * An attempt ended so that the target may have applied it although no answer said so
   * (503, 504, a network error after sending).
   */
  maybeApplied: boolean;
  /** Milliseconds the call was seen waiting because the target throttled (gate pauses, queueing). */
  throttledWaitMs: number;
  /**
   * The waits this call asked for after its own throttled answers. A floor for the wait it
   * is charged: a clock that does not move must not let a call retry forever.
   */
  plannedWaitMs: number;
  /** 429 answers met. */
  throttledAnswers: number;
  /** Answers that asked to wait (429, 503 with Retry-After). */
  throttledRounds: number;
  /** 503/504 answers and network errors: bounded by `maxRetries`. */
  failures: number;
}

export interface RetryLimits {
  maxRetries: number;
  /** A single Retry-After longer than this is not waited for. */
  maxRetryAfterMs: number;
  /** The most one call waits in all for a throttling target. */
  maxThrottleWaitMs: number;
  backoff: BackoffPolicy;
  random: () => number;
}

/** A call that has met nothing yet. */
export function startProgress(): CallProgress {
  return {
    maybeApplied: false,
    throttledWaitMs: 0,
    plannedWaitMs: 0,
    throttledAnswers: 0,
    throttledRounds: 0,
    failures: 0,
  };
}

/**
 * graph-behaviour.md: a 429, or a 503 that says how long to wait, is the target throttling
 * and is waited out on the throttle budget; a 503 without Retry-After is a gateway that gave
 * up. Either 503 may have come after the change was committed.
 *
 * @example
 * isThrottled(503, 2000); // true
 */
export function isThrottled(status: number, retryAfterMs: number | undefined): boolean {
  return status === 429 || (status === 503 && retryAfterMs !== undefined);
}

/**
 * How long a call has waited because the target throttled, as charged against its budget
 * and reported: what was seen, and at least what it asked to wait.
 *
 * @example
 * throttledWaitOf({ ...startProgress(), throttledWaitMs: 900, plannedWaitMs: 1000 }); // 1000
 */
export function throttledWaitOf(progress: CallProgress): number {
  return Math.max(progress.throttledWaitMs, progress.plannedWaitMs);
}

/**
 * Counts a throttled answer and says how long to wait before re-sending: the Retry-After,
 * else (none, or 0) exponential backoff with jitter. Undefined when that wait (or a longer
 * pause already set for every caller, `pausedForMs`) would take the call past its throttle
 * budget: waiting then is pointless, the throttled answer is the call's answer.
 *
 * @example
 * throttledWait(429, 2000, 0, startProgress(), limits); // 2000
 */
export function throttledWait(
  status: number,
  retryAfterMs: number | undefined,
  pausedForMs: number,
  progress: CallProgress,
  limits: RetryLimits,
): number | undefined {
  if (status === 429) progress.throttledAnswers++;
  progress.throttledRounds++;
  const wait =
    retryAfterMs !== undefined && retryAfterMs > 0
      ? retryAfterMs
      : throttleBackoffDelay(progress.throttledRounds - 1, limits.backoff, limits.random);
  if (wait > limits.maxRetryAfterMs) return undefined;
  const ahead = Math.max(wait, pausedForMs);
  if (throttledWaitOf(progress) + ahead > limits.maxThrottleWaitMs) return undefined;
  progress.plannedWaitMs += wait;
  // graph-behaviour.md: a gateway's 503 can come after the directory committed the change.
  if (status === 503) progress.maybeApplied = true;
  return wait;
}

/**
 * Says how long to wait before re-sending after a 503 or a 504, or
 * undefined when the answer is final (another status, `maxRetries` spent, a Retry-After
 * beyond `maxRetryAfterMs`). A call re-sent after a 503 or a 504 is marked as maybe
 * applied: the gateway that gave up may have passed the request on (graph-behaviour.md).
 *
 * @example
 * failedWait(504, undefined, startProgress(), limits); // a jittered backoff
 */
export function failedWait(
  status: number,
  retryAfterMs: number | undefined,
  progress: CallProgress,
  limits: RetryLimits,
): number | undefined {
  if (status !== 503 && status !== 504) return undefined;
  if (progress.failures >= limits.maxRetries) return undefined;
  if (retryAfterMs !== undefined && retryAfterMs > limits.maxRetryAfterMs) return undefined;
  progress.failures++;
  progress.maybeApplied = true;
  return retryAfterMs ?? backoffDelay(progress.failures - 1, limits.backoff, limits.random);
}
