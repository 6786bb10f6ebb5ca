export type InjectedFault = { status: 429; retryAfter: string } | { status: 500 | 502 | 503 | 504 };

interface Burst {
  fault: InjectedFault;
  remaining: number;
}

/** Bursts of injected failures, served first-in first-out, one request each. */
export class FaultInjector {
  private readonly bursts: Burst[] = [];

  /** The next `count` requests answer 429 with this `Retry-After`. */
  throttle(count: number, retryAfter: string): void {
    if (count > 0) this.bursts.push({ fault: { status: 429, retryAfter }, remaining: count });
  }

  /** The next `count` requests answer `status`. */
  serverErrors(count: number, status: 500 | 502 | 503 | 504): void {
    if (count > 0) this.bursts.push({ fault: { status }, remaining: count });
  }

  /** Drops every burst not yet served. */
  clear(): void {
    this.bursts.length = 0;
  }

  /** The fault for the current request, if one is pending. */
  take(): InjectedFault | undefined {
    const burst = this.bursts[0];
    if (burst === undefined) return undefined;
    burst.remaining -= 1;
    if (burst.remaining <= 0) this.bursts.shift();
    return burst.fault;
  }
}
