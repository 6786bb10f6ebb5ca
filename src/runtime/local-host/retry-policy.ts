/** The retry options of a `callActivityWithRetry` action, as plain data. */
export interface RetryPolicy {
  firstRetryIntervalMs: number;
  maxNumberOfAttempts: number;
  backoffCoefficient: number;
  /** Infinity when the orchestrator set none. */
  maxRetryIntervalMs: number;
}

/** Reads durable-functions' `RetryOptions` (defaults as DurableTask's RetryOptions: coefficient 1, no cap). */
export function toRetryPolicy(options: unknown): RetryPolicy {
  const source = (typeof options === 'object' && options !== null ? options : {}) as Record<
    string,
    unknown
  >;
  const number = (key: string, fallback: number): number => {
    const value = source[key];
    return typeof value === 'number' && Number.isFinite(value) ? value : fallback;
  };
  return {
    firstRetryIntervalMs: number('firstRetryIntervalInMilliseconds', 0),
    maxNumberOfAttempts: number('maxNumberOfAttempts', 1),
    backoffCoefficient: number('backoffCoefficient', 1),
    maxRetryIntervalMs: number('maxRetryIntervalInMilliseconds', Number.POSITIVE_INFINITY),
  };
}

/**
 * The wait before the next attempt after `failedAttempts` failures, as DurableTask's
 * RetryInterceptor computes it: first * coefficient^(failedAttempts - 1), capped by the
 * maximum interval. The interceptor waits on a durable timer after every failed attempt,
 * the last one included (durable-functions' RetryableTask expects that timer too).
 *
 * @example
 * retryDelayMs({ firstRetryIntervalMs: 100, maxNumberOfAttempts: 3, backoffCoefficient: 2, maxRetryIntervalMs: 150 }, 2); // 150
 */
export function retryDelayMs(policy: RetryPolicy, failedAttempts: number): number {
  const delay = policy.firstRetryIntervalMs * policy.backoffCoefficient ** (failedAttempts - 1);
  return Math.max(0, Math.min(delay, policy.maxRetryIntervalMs));
}
