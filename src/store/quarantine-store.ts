import type { ErrorCode } from '../domain/errors';
import type { QuarantineRelease, QuarantineState } from '../domain/quarantine';

/** A request held while its connector is quarantined, and since when (ISO). */
export interface HeldRequest {
  requestId: string;
  since: string;
}

/** A failure as the quarantine keeps it: code and (redacted) message. */
export interface QuarantineReason {
  code: ErrorCode;
  message: string;
}

/**
 * Each connector's quarantine, shared by every worker (issue 14): whether its target is
 * quarantined, since when and why, its probes, and the requests it holds. Every change is
 * made under the row's ETag, so workers that decide at once agree on one outcome. Times
 * come from the caller (an orchestration's clock), never from this machine's.
 */
export interface QuarantineStore {
  /**
   * The connector's state, undefined when it was never quarantined. With `maxAgeMs` a copy
   * this worker read less than that long ago may answer, or a read of it already under way
   * (a request's first look).
   */
  get(connector: string, options?: { maxAgeMs?: number }): Promise<QuarantineState | undefined>;
  /** Every connector that was ever quarantined, with its state. */
  list(): Promise<QuarantineState[]>;
  /** Quarantines the connector, unless it is already (then only the last error is noted). */
  enter(
    connector: string,
    entry: { at: string; reason: QuarantineReason; nextProbeAt: string },
  ): Promise<QuarantineState>;
  /** A probe of quarantine `epoch` failed: counted, and the next one set; undefined once that quarantine ended. */
  probeFailed(
    connector: string,
    epoch: number,
    probe: { at: string; error: QuarantineReason; nextProbeAt: string },
  ): Promise<QuarantineState | undefined>;
  /**
   * Ends the quarantine (only quarantine `epoch` when given), recording who ended it: whether
   * this call ended it, and the state.
   */
  release(
    connector: string,
    by: QuarantineRelease,
    at: string,
    epoch?: number,
  ): Promise<{ released: boolean; state: QuarantineState | undefined }>;
  /** Notes a request as held; idempotent. */
  hold(connector: string, request: HeldRequest): Promise<void>;
  /** The request is held no more; idempotent. */
  unhold(connector: string, requestId: string): Promise<void>;
  held(connector: string): Promise<HeldRequest[]>;
}
