export type InjectedFault =
  { status: 429; retryAfter: string } | { status: 403 } | { status: 500 | 502 | 503 | 504 };

interface Burst {
  fault: InjectedFault;
  remaining: number;
  /** Writes only (POST, PUT, PATCH, DELETE), once this many more writes have passed. */
  writesAfter?: number;
  /** Reads only (GET), once this many more writes have passed. */
  readsAfterWrites?: number;
}

/**
 * Which requests a burst answers: every one (default), writes only, or reads only
 * (the read a client makes right after its write, say), in either case after some writes.
 */
export interface ThrottleScope {
  writesOnly?: boolean;
  readsOnly?: boolean;
  /** With `writesOnly` or `readsOnly`: this many writes pass first. */
  afterWrites?: number;
}

const WRITES = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);

/** Bursts of injected failures, served first-in first-out, one request each. */
export class FaultInjector {
  private readonly bursts: Burst[] = [];

  /** The next `count` requests (of `scope`) answer 429 with this `Retry-After`. */
  throttle(count: number, retryAfter: string, scope: ThrottleScope = {}): void {
    this.push({ status: 429, retryAfter }, count, scope);
  }

  /** The next `count` requests (of `scope`) answer `status`. */
  serverErrors(count: number, status: 500 | 502 | 503 | 504, scope: ThrottleScope = {}): void {
    this.push({ status }, count, scope);
  }

  /** The next `count` requests (of `scope`) answer 403. */
  forbidden(count: number, scope: ThrottleScope = {}): void {
    this.push({ status: 403 }, count, scope);
  }

  private push(fault: InjectedFault, count: number, scope: ThrottleScope): void {
    if (count <= 0) return;
    const writes = scope.writesOnly === true ? { writesAfter: scope.afterWrites ?? 0 } : {};
    const reads = scope.readsOnly === true ? { readsAfterWrites: scope.afterWrites ?? 0 } : {};
    this.bursts.push({ fault, remaining: count, ...writes, ...reads });
  }

  /** Drops every burst not yet served. */
  clear(): void {
    this.bursts.length = 0;
  }

  /** The fault for the current request, if one is pending. */
  take(method = 'GET'): InjectedFault | undefined {
    const burst = this.bursts[0];
    if (burst === undefined) return undefined;
    if (burst.writesAfter !== undefined) {
      if (!WRITES.has(method)) return undefined;
      if (burst.writesAfter > 0) {
        burst.writesAfter -= 1;
        return undefined;
      }
    }
    if (burst.readsAfterWrites !== undefined) {
      if (WRITES.has(method)) {
        if (burst.readsAfterWrites > 0) burst.readsAfterWrites -= 1;
        return undefined;
      }
      if (burst.readsAfterWrites > 0) return undefined;
    }
    burst.remaining -= 1;
    if (burst.remaining <= 0) this.bursts.shift();
    return burst.fault;
  }
}
