/** How one attempt ended: the target's answer, or none (a timeout or another network failure). */
export type AttemptEnd =
  | {
      status: number;
      /** A throttling answer: 429, or 503 with Retry-After (retry-policy.ts). */
      throttled: boolean;
    }
  | { failure: 'timeout' | 'network_error' };

/** One attempt being watched: headers to send with it, and where its end is told. */
export interface AttemptWatch {
  /** Sent with the attempt: the W3C trace context (`traceparent`), nothing else. */
  headers: Record<string, string>;
  end(result: AttemptEnd): void;
}

/**
 * The transport's one hook for telemetry (src/telemetry implements it: metrics and a client
 * span per attempt). The transport tells it each attempt it sends, throttling answers that
 * came inside another answer, and how long each call waited on throttling. It sees the
 * method and URL only, never a header or a body, so it cannot leak a credential.
 */
export interface CallObserver {
  /** An attempt is about to be sent (its credentials are ready): retries are attempts too. */
  attempt(call: { method: string; url: URL }): AttemptWatch;
  /**
   * Throttling answers inside one answer: the 429 (and 503 with Retry-After) sub-responses
   * of a Graph `$batch`.
   */
  throttledInside(answers: number): void;
  /** A call is done: the time it waited in all because its target throttled (0: none). */
  callEnded(throttledWaitMs: number): void;
}
