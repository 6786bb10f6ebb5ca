/** The answer to a lease request. */
export interface LeaseResult {
  acquired: boolean;
  /** The current holder when not acquired. */
  holder?: string;
  /** ISO time the current lease ends. */
  expiresAt?: string;
  /** The row's version when acquired: releasing with it takes one call. */
  etag?: string;
}

/**
 * One writer per account and connector at a time (DESIGN invariant 7). A lease is a
 * table row taken with optimistic concurrency (ETag); it ends when released or when it
 * expires, so a crashed holder cannot block an account for ever. Times come from the
 * caller (the orchestration's clock), never from this machine's clock.
 */
export interface AccountLeaseStore {
  /** Takes the lease when free, expired, or already held by `owner` (then it is renewed). */
  acquire(
    connector: string,
    accountId: string,
    owner: string,
    nowMs: number,
    ttlMs: number,
  ): Promise<LeaseResult>;
  /**
   * Releases the lease if `owner` holds it; otherwise does nothing. With the `etag` of the
   * owner's last acquire the release is one call.
   */
  release(connector: string, accountId: string, owner: string, etag?: string): Promise<void>;
}
